import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';

export type Logger = pino.Logger;

export interface LoggerOptions {
  service: string;
  level?: string;
}

/** The trace and span a line was written in (when there is one), so logs and traces join up. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}

/**
 * JSON logs with fixed field names: time, level, msg, service, requestId (set by child loggers),
 * trace_id and span_id (inside a span).
 */
export function createLogger({ service, level = 'info' }: LoggerOptions): Logger {
  return pino({
    level,
    base: { service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: traceFields,
    redact: { paths: ['apiKey', 'req.headers["x-api-key"]', 'headers["x-api-key"]', 'token'], censor: '[redacted]' },
  });
}
