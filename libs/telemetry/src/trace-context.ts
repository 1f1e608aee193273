import { TraceFlags, isSpanContextValid, type SpanContext } from '@opentelemetry/api';

/**
 * W3C trace context (`traceparent`, version 00) read and written by hand: the one header every hop
 * carries (gRPC metadata, Kafka headers, outbox and job rows). Parsing it here rather than through
 * the global propagator keeps it working when no SDK is registered (tracing off: passed on as is).
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The remote span a traceparent names; undefined when it is absent, malformed or all zeros. */
export function parseTraceparent(traceparent: string | undefined | null): SpanContext | undefined {
  const match = traceparent ? TRACEPARENT.exec(traceparent.trim()) : null;
  if (!match) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

export function formatTraceparent(spanContext: SpanContext): string | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}
