import type { ApiError, Logger } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { Category } from '@vus/limits';
import { SpanKind, contextFromTraceparent, markFailed, recordHttpRequest, tracer, withActiveSpan } from '@vus/telemetry';
import type { RequestHandler, Response } from 'express';
import { randomUUID } from 'node:crypto';

/** What the middleware chain learns about a request, kept on `res.locals`. */
export interface RequestLocals {
  requestId: string;
  logger: Logger;
  /**
   * The error body in the form of the request's API version, set by the version's router (app.ts);
   * absent outside any version: `{code, message}` (http/errors.ts).
   */
  presentError?: (error: ApiError) => Record<string, unknown>;
  orgId?: string;
  /**
   * The path pattern of the endpoint that will serve the request (endpoints/router.ts endpointFinder),
   * relative to its version's root: what metrics and traces group by. Absent when no endpoint does.
   */
  routePath?: string;
  /**
   * Makes the request count as `units` requests of a category it was admitted in, once its body
   * shows it does the work of several (limits/middleware.ts); rejects with the 429 when they are not left.
   */
  countRequestAs?: (category: Category, units: number) => Promise<void>;
}

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}

const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the client's, if sane), echoes it, and logs the request once; the
 * rest of the chain runs in the request's server span (continuing a client's `traceparent`),
 * named by its route once known so that traces group by endpoint rather than by id.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const parent = contextFromTraceparent(typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined);
    const span = tracer().startSpan(`${req.method}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } }, parent);
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', requestId);
    const requestLogger = logger.child({ requestId });
    Object.assign(res.locals, { requestId, logger: requestLogger } satisfies RequestLocals);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      requestLogger.info({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms) }, 'request');
      const route = locals(res).routePath;
      recordHttpRequest(req.method, route, res.statusCode, ms / 1000);
      if (route) span.updateName(`${req.method} ${route}`).setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', res.statusCode).setAttribute('vus.request_id', requestId);
      if (res.statusCode >= 500) markFailed(span, new Error(`HTTP ${res.statusCode}`));
      span.end();
    });
    withActiveSpan(span, next);
  };
}

/**
 * Aborted when the client disconnects before its response is written: the work done for it can
 * stop (pass it as an outgoing call's `signal`, which cancels the call).
 */
export function clientGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** The context passed to downstream calls: identity, request id and an absolute deadline. */
export function outgoing(res: Response, timeoutMs: number): OutgoingContext {
  const { requestId, orgId } = locals(res);
  return { requestId, orgId, deadline: new Date(Date.now() + timeoutMs) };
}
