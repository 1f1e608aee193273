/*
 * Endpoint descriptors (endpoints/): the finder records the endpoint that will serve a request, by
 * the router's own matching and only as spelt; and every route the app serves has exactly one
 * descriptor, and every descriptor is served (read from Express's router, the one place that
 * knows what it really serves).
 */
import { createLogger } from '@vus/core';
import { memoryLimiters, staticLimits, UsageCounters } from '@vus/limits';
import express, { type Router } from 'express';
import request from 'supertest';
import { createApp, type ServedRoute } from '../src/app';
import { endpointName, servedPath } from '../src/endpoints/endpoint';
import { endpointFinder, endpointOf, spellsRoute } from '../src/endpoints/router';
import { errorHandler } from '../src/http/errors';
import { requestContext } from '../src/http/context';
import type { KeyService } from '../src/keys';
import { SERVED_VERSIONS } from '../src/versions';
import { endpointsOf, listingDeps } from './endpoint-list';

describe('spellsRoute', () => {
  it.each([
    ['/tasks', '/tasks', true],
    ['/tasks', '/tasks/', true],
    ['/tasks', '/TASKS', false],
    ['/tasks', '/Tasks/', false],
    ['/tasks', '/tasks//', false],
    ['/tasks/:taskId', '/tasks/6528dde58f9cd95a98cbd075', true],
    ['/tasks/:taskId', '/tasks/ABC', true],
    ['/tasks/:taskId', '/TASKS/abc', false],
    ['/indexes/:indexId/videos/:videoId', '/indexes/a/Videos/b', false],
    ['/indexes/:indexId/videos/:videoId', '/indexes/a/videos/b', true],
    ['/embed/*rest', '/embed/tasks/x', true],
    ['/embed/*rest', '/EMBED/tasks', false],
  ])('%s spelt %s: %s', (pattern, path, expected) => {
    expect(spellsRoute(pattern, path)).toBe(expected);
  });
});

describe('endpointFinder', () => {
  const logger = createLogger({ service: 'endpoints-test', level: 'silent' });
  const endpoints = endpointsOf('v1.3');
  const app = express()
    .use(requestContext(logger))
    .use('/v1.3', endpointFinder(endpoints), (_req, res) => {
      const endpoint = endpointOf(res);
      res.json({ endpoint: endpoint ? endpointName(endpoint) : null });
    })
    .use(errorHandler(logger));

  it.each([
    ['get', '/v1.3/tasks/status', 'GET /tasks/status'],
    ['get', '/v1.3/tasks/6528dde58f9cd95a98cbd075', 'GET /tasks/{task_id}'],
    ['post', '/v1.3/search/combined', 'POST /search/combined'],
    ['get', '/v1.3/search/abc-2', 'GET /search/{token}'],
    ['post', '/v1.3/embed-v2/tasks', 'POST /embed-v2/tasks'],
    ['get', '/v1.3/indexes/', 'GET /indexes'],
    // The not-built catch-alls are not endpoints (their body is never read nor counted).
    ['get', '/v1.3/tasks/transfers/x', null],
    ['delete', '/v1.3/indexes', null],
  ])('%s %s is %s', async (method, path, name) => {
    const answer = await request(app)[method as 'get'](path);
    expect(answer.body).toEqual({ endpoint: name });
  });

  it.each(['/v1.3/TASKS', '/V1.3/tasks', '/v1.3/Indexes/abc'])('refuses %s, which matches only in another case', async (path) => {
    const answer = await request(app).get(path);
    expect([answer.status, answer.body.code]).toEqual([404, 'endpoint_not_found']);
  });
});

/** Every route of an Express router, with those of routers mounted in it (Express 5 internals, test-only). */
function expressRoutes(router: Router, prefix = ''): ServedRoute[] {
  type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> }; handle: unknown; rawPath?: unknown };
  return (router as unknown as { stack: Layer[] }).stack.flatMap((layer): ServedRoute[] => {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).map((m) => (m === '_all' ? 'all' : m));
      return [layer.route.path].flat().flatMap((path) => methods.map((method) => ({ method, path: `${prefix}${path}` })));
    }
    const sub = layer.handle as { stack?: unknown };
    if (!Array.isArray(sub.stack)) return [];
    const prefixes = [layer.rawPath ?? ''].flat().filter((p): p is string => typeof p === 'string');
    return prefixes.flatMap((p) => expressRoutes(layer.handle as Router, `${prefix}${p === '/' ? '' : p}`));
  });
}

describe('descriptors', () => {
  it.each(SERVED_VERSIONS)('%s: no two endpoints share a method and a path', (version) => {
    const keys = endpointsOf(version).map((e) => `${e.method} ${servedPath(e)}`);
    expect(keys.length).toBeGreaterThan(60);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('every route the app serves has exactly one descriptor, and every descriptor is served', () => {
    const deps = listingDeps();
    const { app, routes } = createApp({
      keys: {} as KeyService,
      clients: deps.clients,
      logger: createLogger({ service: 'endpoints-test', level: 'silent' }),
      limits: { counters: new UsageCounters(memoryLimiters()), source: staticLimits([]) },
      adminToken: 'a'.repeat(32),
      bodyLimits: { json: 1_000, field: 1_000 },
      requestTimeoutMs: 1_000,
      readiness: async () => ({}),
      thumbnails: deps.thumbnails,
    });
    const key = (r: ServedRoute) => `${r.method} ${r.path}`;
    const listed = routes.map(key);
    expect(new Set(listed).size).toBe(listed.length);
    // Express also holds the finders' copies of the routes they find: the same routes again.
    const served = new Set(expressRoutes((app as unknown as { router: Router }).router).map(key));
    expect([...served].sort()).toEqual([...listed].sort());
    expect(listed).toEqual(
      expect.arrayContaining(['get /healthz', 'post /admin/organizations', 'get /v1.3/openapi.json', 'post /p/v1/indexes/tasks']),
    );
  });
});
