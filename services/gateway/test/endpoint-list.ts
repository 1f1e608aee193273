/*
 * The gateway's endpoint descriptors as tests read them: each version's list (built from route
 * deps whose parts are never called), and the one that serves a request, found by the gateway's
 * own endpoint finder (endpoints/router.ts) rather than by a matcher of the test's own.
 */
import express from 'express';
import request from 'supertest';
import { versionEndpoints } from '../src/app';
import type { Clients } from '../src/clients';
import type { Endpoint } from '../src/endpoints/endpoint';
import { endpointFinder, endpointOf } from '../src/endpoints/router';
import type { RouteDeps } from '../src/routes/deps';
import { createThumbnailSigner } from '../src/http/signed-urls';
import { adapterFor, type ApiVersion } from '../src/versions';
import { ManualClock } from '@vus/core';

const unused = new Proxy({}, { get: () => () => Promise.reject(new Error('not called in a listing')) });

/** Route deps with every optional part present (so every endpoint is listed as a server with all services has it). */
export const listingDeps = (): RouteDeps =>
  ({
    clients: { index: unused, task: unused, search: unused, analyze: unused, embed: unused, classify: unused } as unknown as Clients,
    timeoutMs: 1_000,
    thumbnails: { signer: createThumbnailSigner('s'.repeat(32)), clock: new ManualClock('2024-06-01T00:00:00Z'), ttlMs: 60_000 },
    uploadLimits: { fileBytes: 1, fieldBytes: 1, textBytes: 1 },
    providers: {} as RouteDeps['providers'],
    keys: {} as RouteDeps['keys'],
  }) satisfies RouteDeps;

/** The endpoints of a version, in the order its router tries them. */
export const endpointsOf = (version: ApiVersion): Endpoint[] => versionEndpoints(adapterFor(version), listingDeps());

/** The endpoint of `endpoints` that serves `method path` (by name), or undefined when none does. */
export async function servingEndpoint(endpoints: readonly Endpoint[], method: string, path: string): Promise<Endpoint | undefined> {
  const app = express()
    .use(endpointFinder(endpoints))
    .use((_req, res) => {
      const endpoint = endpointOf(res);
      res.json({ index: endpoint ? endpoints.indexOf(endpoint) : -1 });
    })
    .use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.json({ index: -1 });
    });
  const answer = await request(app)[method.toLowerCase() as 'get'](path);
  const index = (answer.body as { index: number }).index;
  return index >= 0 ? endpoints[index] : undefined;
}
