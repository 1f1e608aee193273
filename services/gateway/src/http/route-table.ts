import { ApiError } from '@vus/core';
import { Router, type RequestHandler } from 'express';
import { locals } from './context';
import type { RouteEntry } from './route-entry';

// The parts of Express 5's router (the `router` package) that a route table reads: stable since
// Express 4 (`stack`, `layer.route`, `route.path`, `route.methods`) plus router 2's `layer.rawPath`.
interface RouterInternals {
  stack: LayerInternals[];
  caseSensitive?: boolean;
  strict?: boolean;
}
interface LayerInternals {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  rawPath?: unknown;
  handle: unknown;
}

const isRouter = (handle: unknown): handle is RouterInternals =>
  typeof handle === 'function' && Array.isArray((handle as Partial<RouterInternals>).stack);

/**
 * The routes of a router in the order Express tries them, with those of routers mounted in it by
 * `router.use(sub)` or `router.use('/prefix' | ['/a', '/b'], sub)` (string prefixes). The order
 * matters: the first route whose path and method match is the one that serves a request.
 */
export function routesOf(router: RequestHandler | Router): RouteEntry[] {
  if (!isRouter(router)) throw new Error('routesOf: not an Express router');
  return router.stack.flatMap((layer): RouteEntry[] => {
    if (layer.route) {
      const paths = [layer.route.path].flat().filter((path) => typeof path === 'string');
      const methods = Object.keys(layer.route.methods).map((m) => (m === '_all' ? 'all' : m));
      return paths.flatMap((path) => methods.map((method) => ({ method, path })));
    }
    if (!isRouter(layer.handle)) return [];
    const prefixes = [layer.rawPath].flat().filter((prefix) => typeof prefix === 'string');
    const routes = routesOf(layer.handle as Router);
    return prefixes.flatMap((prefix) => routes.map((route) => ({ ...route, path: `${prefix === '/' ? '' : prefix}${route.path}` })));
  });
}

/**
 * Every endpoint an app serves, once each (method and full path pattern), in the order Express
 * tries them: what the fuzz suite requests, so that a new route is covered without a list to keep.
 */
export function appRoutes(app: { router: unknown }): RouteEntry[] {
  const seen = new Set<string>();
  return routesOf(app.router as Router).filter((route) => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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
 * Routing before the handlers run: a router that finds, among `routers` (in the order they will be
 * mounted), the route Express will serve the request with, using the same matching rules (each
 * router's own case and trailing-slash options), and records it as `res.locals.route`. Middleware
 * that depends on the endpoint (body parsing, rate limits) then reads the route, never the raw path;
 * a request that no route serves (unknown, or a not-built endpoint left out of `routers`) has none.
 * A path that matches only in another case (`/TASKS`, `/V1.3/tasks`) is refused as unknown.
 */
export function routeFinder(routers: readonly (RequestHandler | Router)[]): Router {
  const finder = Router();
  for (const router of routers) {
    const options = router as RouterInternals;
    const mirror = Router({ caseSensitive: options.caseSensitive ?? false, strict: options.strict ?? false });
    for (const route of routesOf(router)) {
      const record: RequestHandler = (req, res, next) => {
        const l = locals(res);
        if (l.route) return next();
        if (!spellsRoute(route.path, req.path) || req.baseUrl !== req.baseUrl.toLowerCase()) {
          return next(new ApiError('endpoint_not_found', `No endpoint ${req.method} ${req.baseUrl}${req.path}.`));
        }
        l.route = route;
        next();
      };
      (mirror as unknown as Record<string, (path: string, handler: RequestHandler) => void>)[route.method]!(route.path, record);
    }
    finder.use(mirror);
  }
  return finder;
}
