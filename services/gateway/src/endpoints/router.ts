import { ApiError } from '@vus/core';
import { Router, type Response } from 'express';
import { locals } from '../http/context';
import { servedPath, type Endpoint } from './endpoint';

/** What the endpoint finder records about a request, beside the request context. */
interface EndpointLocals {
  endpoint?: Endpoint;
}

/** The endpoint that will serve the request (set by endpointFinder); absent when none does. */
export const endpointOf = (res: Response): Endpoint | undefined => (res.locals as EndpointLocals).endpoint;

/** The router that serves `endpoints`, each at its path, in their order (the first that matches serves). */
export function routerOf(endpoints: readonly Endpoint[]): Router {
  const router = Router();
  for (const endpoint of endpoints) router[endpoint.method](servedPath(endpoint), ...[endpoint.handle].flat());
  return router;
}

/**
 * Whether `path` spells the route `pattern` exactly: the router matches literal segments without
 * regard to case and takes a trailing slash; anything else the router accepted (another case) is
 * not the endpoint. `:param` segments are the client's and compared by the route's own checks.
 */
export function spellsRoute(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const got = path.split('/');
  if (got.length === want.length + 1 && got.at(-1) === '') got.pop();
  for (const [i, segment] of want.entries()) {
    if (segment.startsWith('*')) return true;
    if (!segment.startsWith(':') && segment !== got[i]) return false;
  }
  return got.length === want.length;
}

/**
 * Routing before the handlers run: finds, with the router's own matching rules, the endpoint that
 * `routerOf(endpoints)` will serve the request with, and records it as `res.locals.endpoint`.
 * Middleware that depends on the endpoint (body parsing, rate limits, version availability) then
 * reads its descriptor, never the raw path; a request no endpoint serves has none. A path that
 * matches only in another case (`/TASKS`, `/V1.3/tasks`) is refused as unknown.
 */
export function endpointFinder(endpoints: readonly Endpoint[]): Router {
  const finder = Router();
  for (const endpoint of endpoints) {
    const path = servedPath(endpoint);
    finder[endpoint.method](path, (req, res, next) => {
      if (endpointOf(res)) return next();
      if (!spellsRoute(path, req.path) || req.baseUrl !== req.baseUrl.toLowerCase()) {
        return next(new ApiError('endpoint_not_found', `No endpoint ${req.method} ${req.baseUrl}${req.path}.`));
      }
      (res.locals as EndpointLocals).endpoint = endpoint;
      locals(res).routePath = path;
      next();
    });
  }
  return finder;
}
