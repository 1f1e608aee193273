/*
 * Metrics on a service's own /metrics endpoint (Prometheus text), as an operator scrapes them:
 * the gateway's requests by route and status, and a 429 counted as a rate-limit rejection of its
 * category. The request chain is the
 * gateway's own (request context, routing, limiter, error handler) on a stand-in endpoint.
 */
import { createLogger } from '@vus/core';
import { staticLimits, memoryLimiters, UsageCounters } from '@vus/limits';
import { startMetrics, type MetricsEndpoint } from '@vus/telemetry/sdk';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { locals, requestContext } from '../src/http/context';
import { errorHandler } from '../src/http/errors';
import type { Endpoint } from '../src/endpoints/endpoint';
import { endpointFinder, routerOf } from '../src/endpoints/router';
import { rateLimits } from '../src/limits/middleware';

const logger = createLogger({ service: 'metrics-test', level: 'silent' });
let metrics: MetricsEndpoint;
let server: Server;
let url: string;

beforeAll(async () => {
  metrics = await startMetrics({ prometheus: { host: '127.0.0.1', port: 0 } });
  const counters = new UsageCounters(memoryLimiters());
  const limits = staticLimits([{ category: 'search', dimension: 'RPM', limit: 2 }]);
  const endpoints: Endpoint[] = [
    {
      method: 'post',
      path: '/search',
      rate: 'search',
      handle: (_req, res) => {
        res.json({ data: [] });
      },
    },
  ];
  const app = express();
  app.use(requestContext(logger));
  app.use(
    '/:version',
    (req, res, next) => {
      locals(res).orgId = req.get('x-org-id');
      next();
    },
    express.json(),
    endpointFinder(endpoints),
    rateLimits(counters, limits),
    routerOf(endpoints),
  );
  app.use(errorHandler(logger));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await metrics?.stop();
});

async function scrape(): Promise<string> {
  const res = await fetch(metrics.url!);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

/** The value of the series `name` whose labels include `labels` (others, such as the scope, are ignored); 0 when absent. */
function valueOf(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('/metrics', () => {
  it('counts a 429 as a rejection of its category and dimension', async () => {
    const rejections = (text: string) =>
      valueOf(text, 'vus_rate_limit_rejections_total', { vus_rate_limit_category: 'search', vus_rate_limit_dimension: 'RPM' });
    const before = rejections(await scrape());
    const send = () => request(url).post('/v1.3/search').set('x-org-id', 'org-metrics').send({});
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect(rejections(await scrape())).toBe(before);
    expect((await send()).status).toBe(429);
    const text = await scrape();
    expect(rejections(text)).toBe(before + 1);
    // RED by route: counts per status, from the duration histogram.
    const route = { http_request_method: 'POST', http_route: '/search' };
    expect(valueOf(text, 'http_server_request_duration_count', { ...route, http_response_status_code: '200' })).toBe(2);
    expect(valueOf(text, 'http_server_request_duration_count', { ...route, http_response_status_code: '429' })).toBe(1);
    expect(valueOf(text, 'http_server_request_duration_bucket', { ...route, http_response_status_code: '200', le: '+Inf' })).toBe(2);
  });

  it('serves nothing but /metrics', async () => {
    expect((await fetch(metrics.url!.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(metrics.url!, { method: 'POST' })).status).toBe(404);
  });
});
