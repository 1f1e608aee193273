import type { ApiError } from '@vus/core';
import type { RequestHandler, Response } from 'express';
import { endpointName, type Endpoint } from '../endpoints/endpoint';
import { endpointOf } from '../endpoints/router';
import { docsPath, unavailableError, type VersionAdapter } from './adapter';

/**
 * What every endpoint of a version's router shares once the endpoint is known (endpoints/router.ts
 * endpointFinder): the version's deprecation headers, the refusal of an endpoint the version lacks
 * (before the body is read or a quota is used), and v1's `type` on success bodies.
 */

/** The version's error for the endpoint, if the version lacks it (or the endpoint it shares availability with). */
export function unavailableIn(version: VersionAdapter, endpoint: Endpoint): ApiError | undefined {
  const unavailable = endpoint.availability && version.unavailable[endpoint.availability];
  return unavailable ? unavailableError(unavailable) : undefined;
}

/** Deprecation (RFC 9745) and a link to the successor's docs, on every answer of a superseded version. */
function deprecationHeaders(version: VersionAdapter, res: Response): void {
  if (!version.deprecation) return;
  res.setHeader('Deprecation', 'true');
  res.setHeader('Link', `<${docsPath(version.deprecation.successor)}>; rel="successor-version"`);
}

/** The version's `type` for success bodies of the endpoint (v1), if it has one. */
export const successTypeOf = (version: VersionAdapter, endpoint: Endpoint): string | undefined =>
  version.successTypes?.[endpointName(endpoint)];

/** Adds the version's `type` to a success body of a typed endpoint (v1). */
function typedBodies(version: VersionAdapter, res: Response): void {
  const endpoint = endpointOf(res);
  const type = endpoint && successTypeOf(version, endpoint);
  if (!type) return;
  const json = res.json.bind(res);
  res.json = (body: unknown) =>
    json(res.statusCode < 400 && body && typeof body === 'object' && !Array.isArray(body) ? { ...body, type } : body);
}

export function versionMiddleware(version: VersionAdapter): RequestHandler {
  return (_req, res, next) => {
    deprecationHeaders(version, res);
    const endpoint = endpointOf(res);
    const unavailable = endpoint && unavailableIn(version, endpoint);
    if (unavailable) return next(unavailable);
    typedBodies(version, res);
    next();
  };
}
