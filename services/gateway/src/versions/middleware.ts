import type { ApiError } from '@vus/core';
import type { RequestHandler, Response } from 'express';
import { locals } from '../http/context';
import type { RouteEntry } from '../http/route-entry';
import { docsPath, unavailableError, type VersionAdapter, type VersionedEndpoint } from './adapter';

/**
 * What every route of a version's router shares once the route is known (http/route-table.ts
 * routeFinder): the version's deprecation headers, the refusal of an endpoint the version lacks
 * (before the body is read or a quota is used), and v1's `type` on success bodies.
 */

/** `:indexId` → `{index_id}`: the contract's spelling of a path parameter. */
const contractParam = (segment: string) =>
  segment.startsWith(':') ? `{${segment.slice(1).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}}` : segment;

/**
 * A route as the contract names the endpoint (`GET /tasks/{task_id}`), with the version's task
 * prefix (v1's `/indexes/tasks…`) taken off so that every version names it the same.
 */
export function endpointOfRoute(version: VersionAdapter, route: RouteEntry): string {
  const prefix = version.tasks.pathPrefix;
  const path = prefix && route.path.startsWith(`${prefix}/tasks`) ? route.path.slice(prefix.length) : route.path;
  return `${route.method.toUpperCase()} ${path.split('/').map(contractParam).join('/')}`;
}

/** Routes that a version has exactly when it has another endpoint (their aliases and later pages). */
const SAME_AVAILABILITY: Readonly<Record<string, VersionedEndpoint>> = {
  'POST /search/combined': 'POST /combined-search',
  'POST /beta/search': 'POST /combined-search',
  'GET /combined-search/{token}': 'POST /combined-search',
  'GET /beta/search/{token}': 'POST /combined-search',
  'GET /search-v2/{token}': 'POST /search-v2',
  'POST /search-v2/{token}': 'POST /search-v2',
  'POST /classify/bulk': 'POST /classify',
  'GET /classify/{page_token}': 'POST /classify',
  'GET /assets': 'POST /assets',
  'GET /assets/{asset_id}': 'POST /assets',
  'DELETE /assets/{asset_id}': 'POST /assets',
  'POST /assets/multipart-uploads': 'POST /assets',
  'GET /assets/multipart-uploads': 'POST /assets',
  'GET /assets/multipart-uploads/{upload_id}': 'POST /assets',
  'POST /assets/multipart-uploads/{upload_id}': 'POST /assets',
  'POST /assets/multipart-uploads/{upload_id}/presigned-urls': 'POST /assets',
  'GET /indexes/{index_id}/indexed-assets': 'POST /indexes/{index_id}/indexed-assets',
  'GET /indexes/{index_id}/indexed-assets/{indexed_asset_id}': 'POST /indexes/{index_id}/indexed-assets',
  'PATCH /indexes/{index_id}/indexed-assets/{indexed_asset_id}': 'POST /indexes/{index_id}/indexed-assets',
  'DELETE /indexes/{index_id}/indexed-assets/{indexed_asset_id}': 'POST /indexes/{index_id}/indexed-assets',
};

/** The version's error for the route, if the version lacks that endpoint. */
export function unavailableRoute(version: VersionAdapter, route: RouteEntry): ApiError | undefined {
  const endpoint = endpointOfRoute(version, route);
  const unavailable = version.unavailable[(SAME_AVAILABILITY[endpoint] ?? endpoint) as VersionedEndpoint];
  return unavailable ? unavailableError(unavailable) : undefined;
}

/** Deprecation (RFC 9745) and a link to the successor's docs, on every answer of a superseded version. */
function deprecationHeaders(version: VersionAdapter, res: Response): void {
  if (!version.deprecation) return;
  res.setHeader('Deprecation', 'true');
  res.setHeader('Link', `<${docsPath(version.deprecation.successor)}>; rel="successor-version"`);
}

/** Adds the version's `type` to a success body of a typed route (v1). */
function typedBodies(version: VersionAdapter, res: Response): void {
  const route = locals(res).route;
  const type = route && version.successTypes?.[`${route.method} ${route.path}`];
  if (!type) return;
  const json = res.json.bind(res);
  res.json = (body: unknown) =>
    json(res.statusCode < 400 && body && typeof body === 'object' && !Array.isArray(body) ? { ...body, type } : body);
}

export function versionMiddleware(version: VersionAdapter): RequestHandler {
  return (_req, res, next) => {
    deprecationHeaders(version, res);
    const route = locals(res).route;
    const unavailable = route && unavailableRoute(version, route);
    if (unavailable) return next(unavailable);
    typedBodies(version, res);
    next();
  };
}
