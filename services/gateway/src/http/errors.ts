import { ApiError, isApiError, type Logger } from '@vus/core';
import type { ErrorRequestHandler, Response } from 'express';
import { locals } from './context';

/** The error body from v1.1 on, and outside any version (health, admin, unknown paths). */
export const codeAndMessage = (error: ApiError): Record<string, unknown> => ({
  code: error.code,
  message: error.message,
  ...(error.details?.docs_url ? { docs_url: error.details.docs_url } : {}),
});

/** The Twelve Labs error body in the request's version's form, the only error shape the gateway writes. */
export function writeError(res: Response, error: ApiError): void {
  res.status(error.httpStatus).json((locals(res).presentError ?? codeAndMessage)(error));
}

// Errors raised by express's own body parsers, by their `type`.
const PARSER_ERRORS: Record<string, (e: { message?: string; limit?: number }) => ApiError> = {
  'entity.parse.failed': () => new ApiError('body_malformed', 'The request body is not valid JSON.'),
  'entity.too.large': (e) =>
    new ApiError('payload_too_large', `The request body is larger than the limit of ${e.limit ?? 'the server'} bytes.`),
  'encoding.unsupported': () => new ApiError('unsupported_media_type', 'The request body encoding is not supported.'),
  'charset.unsupported': () => new ApiError('unsupported_media_type', 'The request body charset is not supported.'),
  'request.aborted': () => new ApiError('request_canceled_or_timed_out', 'The request was aborted by the client.'),
  'parameters.too.many': () => new ApiError('payload_too_large', 'The request body has too many parameters.'),
};

/** The router's own error for a path parameter that is not valid percent-encoding (`/tasks/%zz`). */
const isUndecodablePath = (error: unknown) => error instanceof URIError && (error as { status?: number }).status === 400;

/** Last middleware: every failure becomes `{code, message}` with its status; never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const parserError = error as { type?: string };
    const apiError = isApiError(error)
      ? error
      : parserError.type && PARSER_ERRORS[parserError.type]
        ? PARSER_ERRORS[parserError.type]!(error as { limit?: number })
        : isUndecodablePath(error)
          ? new ApiError('parameter_invalid', 'The request path is not valid: a part of it is not valid percent-encoding.')
          : undefined;
    if (!apiError || apiError.httpStatus >= 500) {
      ((res.locals.logger as Logger | undefined) ?? logger).error({ err: error, path: req.path }, 'request failed');
    }
    if (res.headersSent) return;
    writeError(res, apiError ?? new ApiError('internal_error', 'An internal error occurred. Please try again later.'));
  };
}
