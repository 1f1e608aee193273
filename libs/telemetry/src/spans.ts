import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { currentCaller, withCaller } from '@vus/core';
import { formatTraceparent, parseTraceparent } from './trace-context';

export { SpanKind, type Span };

/** Every span of the project comes from this one tracer (the services differ by resource). */
export function tracer() {
  return trace.getTracer('vus');
}

/** `base` continued from a traceparent (the span that sent it becomes the parent); `base` itself without one. */
export function contextFromTraceparent(traceparent: string | undefined | null, base: Context = ROOT_CONTEXT): Context {
  const remote = parseTraceparent(traceparent);
  return remote ? trace.setSpanContext(base, remote) : base;
}

/** The traceparent of a span, when it has a valid context (a recording span, or a remote one passed through). */
export function traceparentOf(span: Span): string | undefined {
  return formatTraceparent(span.spanContext());
}

/**
 * What the next hop continues: the active span's traceparent, else the caller's as it arrived
 * (tracing is off in this process, or the code runs outside any span).
 */
export function currentTraceparent(): string | undefined {
  const span = trace.getSpan(context.active());
  return (span && traceparentOf(span)) ?? currentCaller()?.traceparent;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /**
   * The traceparent this span continues (an event's, a job's, a request header's); `null` starts a
   * new trace. Left out: the span is a child of the active one.
   */
  parent?: string | null | undefined;
}

/**
 * Runs `fn` inside a new span: active for everything `fn` starts, ended when it settles, marked
 * as an error (with the exception) when it throws. The span's traceparent also goes in the caller
 * context's slot: without an SDK (no context manager, a no-op span carrying its parent's context)
 * that is how a traceparent passes through this process untouched.
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent === undefined ? context.active() : contextFromTraceparent(options.parent);
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
    parent,
    async (span) => {
      try {
        const caller = currentCaller();
        return await withCaller({ ...caller, traceparent: traceparentOf(span) ?? caller?.traceparent }, () => fn(span));
      } catch (error) {
        markFailed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Records a failure on a span (its exception and an error status). */
export function markFailed(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * A messaging producer span that ends at once, for an event written now and published later (the
 * outbox): its traceparent is what the event carries, so the consumer's span becomes its child.
 */
export function producerTraceparent(destination: string, attributes: Attributes = {}): string | undefined {
  const span = tracer().startSpan(`${destination} publish`, {
    kind: SpanKind.PRODUCER,
    attributes: { 'messaging.destination.name': destination, ...attributes },
  });
  span.end();
  return traceparentOf(span) ?? currentCaller()?.traceparent;
}

/** Runs `fn` with `span` active (for spans that end in a callback rather than when a promise settles). */
export function withActiveSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}
