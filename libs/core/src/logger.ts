import pino from 'pino';

export type Logger = pino.Logger;

export interface LoggerOptions {
  service: string;
  level?: string;
}

/** JSON logs with fixed field names: time, level, msg, service, requestId (set by child loggers). */
export function createLogger({ service, level = 'info' }: LoggerOptions): Logger {
  return pino({
    level,
    base: { service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['apiKey', 'req.headers["x-api-key"]', 'headers["x-api-key"]', 'token'], censor: '[redacted]' },
  });
}
