import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What travels with a request across every hop (gRPC metadata, event envelopes): who asked and how
 * long they wait. A handler runs inside its caller's context, so that its own outgoing calls and the
 * events it writes inherit it without each call site passing it on.
 */
export interface CallerContext {
  readonly requestId?: string | undefined;
  /** Absolute deadline of the original caller; nothing done on its behalf should outlive it. */
  readonly deadline?: Date | undefined;
  /** W3C trace context (`traceparent`), carried unchanged until tracing reads it. */
  readonly traceparent?: string | undefined;
}

const storage = new AsyncLocalStorage<CallerContext>();

/** Runs `fn` (and everything it starts) on behalf of `caller`. */
export function withCaller<T>(caller: CallerContext, fn: () => T): T {
  return storage.run(caller, fn);
}

/**
 * Runs `fn` (and everything it starts) on nobody's behalf: for background loops that a handler may
 * wake, whose later rounds must not inherit that handler's request id or deadline.
 */
export function withoutCaller<T>(fn: () => T): T {
  return storage.exit(fn);
}

/** The caller the current code runs for, if any (inside a gRPC handler or an event handler). */
export function currentCaller(): CallerContext | undefined {
  return storage.getStore();
}

/** The earlier of two deadlines; a missing one does not count. */
export function earlierDeadline(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() <= b.getTime() ? a : b;
}
