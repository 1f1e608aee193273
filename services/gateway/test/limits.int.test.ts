import { startBillingService, type RunningBillingService } from '@vus/billing-service';
import { startClassifyService, type RunningClassifyService } from '@vus/classify-service';
import { createLogger } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { InProcessEventBus, usageRecorded, type MeteredUsage } from '@vus/events';
import { internalSecret } from '@vus/grpc';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { createBillingClient, type BillingClient } from '@vus/clients';
import { cachedLimits, connectRedis, limitTableOf, redisLimiters, UsageCounters } from '@vus/limits';
import { waitFor } from '@vus/testing';
import express from 'express';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { locals, requestContext } from '../src/http/context';
import { errorHandler } from '../src/http/errors';
import { endpointFinder, routerOf } from '../src/endpoints/router';
import { endpointsOf } from './endpoint-list';
import { rateLimits } from '../src/limits/middleware';
import { startGateway, type RunningGateway } from '../src/main';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = 'limits-admin-token-0123456789';
const logger = createLogger({ service: 'limits-test', level: 'silent' });
const MESSAGE =
  /^You have exceeded the rate limit \(([A-Z]{3}):(\d+)\/(minute|hour|day)\), try again after (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.$/;

let gatewayDb: ThrowawayDatabase;
let billingDb: ThrowawayDatabase;
let mailDir: string;
let indexService: RunningIndexService;
let billingService: RunningBillingService;
let classifyService: RunningClassifyService;
let gateway: RunningGateway;
let billing: BillingClient;
let stubs: { url: string; close(): Promise<void> };
/** The bus producers publish usage on and billing-service consumes it from. */
let bus: InProcessEventBus;

beforeAll(async () => {
  gatewayDb = await createThrowawayDatabase();
  billingDb = await createThrowawayDatabase();
  mailDir = mkdtempSync(join(tmpdir(), 'vus-limits-mail-'));
  bus = new InProcessEventBus({ logger });
  indexService = await startIndexService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus: new InProcessEventBus(),
    logger,
  });
  billingService = await startBillingService({
    bind: '127.0.0.1:0',
    database: { kind: 'postgres', url: billingDb.url },
    logger,
    mail: { kind: 'folder', dir: mailDir, from: 'billing@test' },
    // It debits the minutes and tokens of usage from the gateway's counters.
    redisUrl: REDIS_URL,
    bus,
  });
  // Classifications are counted only where they can run (without classify-service: 501, counting nothing);
  // the classified index does not exist, so search-service is never called.
  classifyService = await startClassifyService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    indexServiceAddress: indexService.address,
    searchServiceAddress: '127.0.0.1:1',
    logger,
  });
  gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    database: { kind: 'postgres', url: gatewayDb.url },
    indexServiceAddress: indexService.address,
    billingServiceAddress: billingService.address,
    classifyServiceAddress: classifyService.address,
    redisUrl: REDIS_URL,
    limitsCacheMs: 200,
    adminToken: ADMIN_TOKEN,
    logger,
  });
  billing = createBillingClient(billingService.address);
  stubs = await startStubEndpoints();
});

afterAll(async () => {
  await stubs.close();
  billing.close();
  await gateway.stop();
  await billingService.stop();
  await classifyService.stop();
  await bus.close();
  await indexService.stop();
  await gatewayDb.drop();
  await billingDb.drop();
  rmSync(mailDir, { recursive: true, force: true });
});

const admin = () => request(gateway.url);
const auth = (req: request.Test) => req.set('Authorization', `Bearer ${ADMIN_TOKEN}`);

async function newOrg(limits?: { category: string; dimension: string; limit: number }[]) {
  const org = await auth(admin().post('/admin/organizations'))
    .send({ name: `org-${Math.random().toString(36).slice(2)}` })
    .expect(201);
  const orgId = org.body._id as string;
  const newKey = async () =>
    (
      await auth(admin().post(`/admin/organizations/${orgId}/keys`))
        .send({})
        .expect(201)
    ).body.key as string;
  if (limits)
    await auth(admin().put(`/admin/organizations/${orgId}/billing/enterprise`))
      .send({ limits })
      .expect(200);
  return { orgId, key: await newKey(), newKey };
}

const post = (key: string, path: string, body: object = {}) => request(gateway.url).post(path).set('x-api-key', key).send(body);

/**
 * The categories whose endpoints are not built (assets, analyze, embeddings) answer 501 without
 * counting on the gateway. Their limits are checked here on stand-in endpoints behind the
 * gateway's own routing and limiter, with the same Redis counters and billing limits.
 */
async function startStubEndpoints(): Promise<{ url: string; close(): Promise<void> }> {
  const redis = connectRedis(REDIS_URL, logger);
  const counters = new UsageCounters(redisLimiters(redis));
  const source = cachedLimits(async (org) => limitTableOf(await billing.getPlan(org)), { logger, ttlMs: 200 });
  // The real descriptors (their categories), each answered by a stand-in.
  const paths = ['/assets', '/analyze', '/embed', '/embed/tasks', '/embed-v2'];
  const endpoints = endpointsOf('v1.3')
    .filter((e) => e.method === 'post' && paths.includes(e.path))
    .map((e) => ({ ...e, handle: (_req: express.Request, res: express.Response) => void res.json({ stub: true }) }));
  expect(endpoints).toHaveLength(paths.length);
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
    rateLimits(counters, source),
    routerOf(endpoints),
  );
  app.use(errorHandler(logger));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await redis.close();
    },
  };
}
/** A request to a stand-in endpoint as the organization. */
const postStub = (orgId: string, path: string, body: object = {}) => request(stubs.url).post(path).set('x-org-id', orgId).send(body);

function expect429(res: request.Response, dimension: string, limit: number, window: string) {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe('too_many_requests');
  const match = MESSAGE.exec(res.body.message as string);
  expect(match?.slice(1, 4)).toEqual([dimension, String(limit), window]);
  const resetAt = Date.parse(match![4]!);
  const windowMs = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[window]!;
  expect(resetAt).toBeGreaterThan(Date.now() - 1000);
  expect(resetAt).toBeLessThanOrEqual(Date.now() + windowMs + 1000);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

describe('request dimensions', () => {
  it('the Free plan admits 60 index requests a minute and refuses the 61st with the exact form', async () => {
    const { key } = await newOrg();
    for (let i = 0; i < 60; i++) expect((await post(key, '/v1.3/tasks')).status).not.toBe(429);
    const refused = await post(key, '/v1.3/tasks');
    expect429(refused, 'RPM', 60, 'minute');
    expect(refused.headers['x-ratelimit-request-remaining']).toBe('0');
    expect(Number(refused.headers['x-ratelimit-request-reset'])).toBeCloseTo(
      Date.parse(MESSAGE.exec(refused.body.message as string)![4]!) / 1000,
      -1,
    );
  });

  it.each([
    ['upload', '/v1.3/assets', {}, 'stub'],
    ['search', '/v1.3/search', {}, 'gateway'],
    ['analyze', '/v1.3/analyze', {}, 'stub'],
    ['embed_video', '/v1.2/embed/tasks', {}, 'stub'],
    ['embed_audio', '/v1.3/embed-v2', { input_type: 'audio' }, 'stub'],
    ['embed_image', '/v1.3/embed-v2', { input_type: 'image' }, 'stub'],
    ['embed_text', '/v1.2/embed', { text: 'a dog' }, 'stub'],
    ['embed_text_image', '/v1.3/embed-v2', { input_type: 'text_image' }, 'stub'],
  ])('%s: RPM and RPD at their limits', async (category, path, body, where) => {
    const send = (org: { orgId: string; key: string }) => (where === 'stub' ? postStub(org.orgId, path, body) : post(org.key, path, body));
    const org = await newOrg([
      { category, dimension: 'RPM', limit: 2 },
      { category, dimension: 'RPD', limit: 1000 },
    ]);
    expect((await send(org)).status).not.toBe(429);
    expect((await send(org)).status).not.toBe(429);
    expect429(await send(org), 'RPM', 2, 'minute');

    const daily = await newOrg([{ category, dimension: 'RPD', limit: 1 }]);
    expect((await send(daily)).status).not.toBe(429);
    expect429(await send(daily), 'RPD', 1, 'day');
  });

  // Issue 28 item 6: 100 classes of one 990-character prompt, four options, ran 100 searches and counted one.
  it('a classification counts one search request per prompt, and a refused one takes none', async () => {
    const { key } = await newOrg([
      { category: 'search', dimension: 'RPM', limit: 150 },
      { category: 'search', dimension: 'RPD', limit: 1000 },
    ]);
    const heavy = {
      index_id: '6528dde58f9cd95a98cbd075',
      options: ['visual', 'conversation', 'text_in_video', 'logo'],
      classes: Array.from({ length: 100 }, (_, i) => ({ name: `class ${i}`, prompts: [`${i} ${'x'.repeat(985)}`] })),
    };
    const first = await post(key, '/v1.2/classify/bulk', heavy);
    expect(first.status).not.toBe(429);
    expect(first.headers['x-ratelimit-request-remaining']).toBe('50');
    const refused = await post(key, '/v1.2/classify/bulk', heavy);
    expect429(refused, 'RPM', 150, 'minute');
    expect(refused.headers['x-ratelimit-request-remaining']).toBe('50');
    // The refused classification took nothing: a search still finds its 50.
    const search = await post(key, '/v1.3/search', {
      index_id: '6528dde58f9cd95a98cbd075',
      query_text: 'a dog',
      search_options: ['visual'],
    });
    expect(search.headers['x-ratelimit-request-remaining']).toBe('49');
  });

  it('search, search-v2 and combined-search share one limit', async () => {
    const { orgId, key } = await newOrg([{ category: 'search', dimension: 'RPM', limit: 2 }]);
    expect((await post(key, '/v1.2/search')).status).not.toBe(429);
    expect((await post(key, '/v1.2/search-v2')).status).not.toBe(429);
    expect429(await post(key, '/v1.2/combined-search'), 'RPM', 2, 'minute');
    expect((await postStub(orgId, '/v1.2/embed', { text: 'x' })).status).not.toBe(429); // another category
  });

  it('two keys of one organization share counters; another organization is unaffected', async () => {
    const { key, newKey } = await newOrg([{ category: 'search', dimension: 'RPM', limit: 2 }]);
    const second = await newKey();
    expect((await post(key, '/v1.3/search')).status).not.toBe(429);
    expect((await post(second, '/v1.3/search')).status).not.toBe(429);
    expect429(await post(key, '/v1.3/search'), 'RPM', 2, 'minute');
    expect429(await post(second, '/v1.3/search'), 'RPM', 2, 'minute');
    const other = await newOrg([{ category: 'search', dimension: 'RPM', limit: 2 }]);
    expect((await post(other.key, '/v1.3/search')).status).not.toBe(429);
  });

  it('a refused request consumes nothing', async () => {
    const { orgId, key } = await newOrg([
      { category: 'search', dimension: 'RPM', limit: 2 },
      { category: 'search', dimension: 'RPD', limit: 3 },
    ]);
    await post(key, '/v1.3/search');
    await post(key, '/v1.3/search');
    for (let i = 0; i < 3; i++) expect((await post(key, '/v1.3/search')).status).toBe(429);
    // Lift the minute limit: had the refusals counted, the day's 3 would be gone.
    await auth(admin().put(`/admin/organizations/${orgId}/billing/enterprise`))
      .send({
        limits: [
          { category: 'search', dimension: 'RPM', limit: 100 },
          { category: 'search', dimension: 'RPD', limit: 3 },
        ],
      })
      .expect(200);
    await new Promise((r) => setTimeout(r, 300));
    const third = await post(key, '/v1.3/search');
    expect(third.status).not.toBe(429);
    expect(third.headers['x-ratelimit-request-remaining']).toBe('0');
    expect429(await post(key, '/v1.3/search'), 'RPD', 3, 'day');
  });

  it('a request that counts in two categories is refused in both or neither', async () => {
    const { orgId } = await newOrg([
      { category: 'embed_text', dimension: 'RPM', limit: 5 },
      { category: 'embed_image', dimension: 'RPM', limit: 1 },
    ]);
    expect((await postStub(orgId, '/v1.2/embed', { text: 'a', image_url: 'https://example.com/a.png' })).status).not.toBe(429);
    expect429(await postStub(orgId, '/v1.2/embed', { text: 'a', image_url: 'https://example.com/a.png' }), 'RPM', 1, 'minute');
    // The text window was given back: 5 - 1 admitted = 4 left.
    const text = await postStub(orgId, '/v1.2/embed', { text: 'a' });
    expect(text.headers['x-ratelimit-request-remaining']).toBe('3');
  });
});

describe('headers', () => {
  it('carry only the families of the dimensions that apply to the endpoint', async () => {
    const { orgId, key } = await newOrg();
    const search = await post(key, '/v1.3/search');
    expect(search.headers).toMatchObject({ 'x-ratelimit-request-limit': '600', 'x-ratelimit-limit': '600' });
    expect(search.headers['x-ratelimit-duration-limit']).toBeUndefined();
    expect(search.headers['x-ratelimit-outputtoken-limit']).toBeUndefined();

    const tasks = await post(key, '/v1.3/tasks');
    expect(tasks.headers).toMatchObject({
      'x-ratelimit-request-limit': '60',
      'x-ratelimit-duration-limit': '600',
      'x-ratelimit-duration-remaining': '600',
    });
    expect(tasks.headers['x-ratelimit-outputtoken-limit']).toBeUndefined();

    const analyze = await postStub(orgId, '/v1.3/analyze');
    expect(analyze.headers).toMatchObject({
      'x-ratelimit-request-limit': '60',
      'x-ratelimit-duration-limit': '600',
      'x-ratelimit-outputtoken-limit': '30000',
    });
    for (const name of ['x-ratelimit-request-reset', 'x-ratelimit-duration-reset', 'x-ratelimit-outputtoken-reset']) {
      expect(Number(analyze.headers[name])).toBeGreaterThan(Date.now() / 1000);
    }

    const indexes = await request(gateway.url).get('/v1.3/indexes').set('x-api-key', key).expect(200);
    expect(Object.keys(indexes.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });
});

describe('metered budgets', () => {
  // What the producers do: the worker reserves a video's minutes in billing-service before indexing
  // it; every usage reaches billing-service as a usage.recorded event (here published as their
  // outboxes' relays do), which billing-service records as spend and debits from the budgets.
  const publishUsage = (orgId: string, usage: Omit<MeteredUsage, 'occurredAt'>) =>
    bus.publish([usageRecorded(orgId, { ...usage, occurredAt: new Date() })]);
  const monthSpendUsd = async (orgId: string) =>
    (await auth(admin().get(`/admin/organizations/${orgId}/billing`)).expect(200)).body.month_spend_usd as number;

  it('video minutes: admitted while minutes are left, a longer video is refused, and the spend reaches billing', async () => {
    const { orgId, key } = await newOrg([
      { category: 'index', dimension: 'RPM', limit: 100 },
      { category: 'index', dimension: 'DPH', limit: 2 },
    ]);
    const reserve = (idempotencyKey: string, seconds: number) =>
      billing.reserveMediaSeconds(orgId, { idempotencyKey, category: 'index', seconds });
    await reserve('task-1', 90);
    expect(await reserve('task-1', 90)).toEqual({ duplicate: true }); // a worker taking over reserves nothing twice
    const tooLong: unknown = await reserve('task-2', 60).catch((e: unknown) => e);
    expect(tooLong).toMatchObject({ code: 'too_many_requests' });
    expect((tooLong as Error).message).toMatch(/\(DPH:2\/hour\)/);

    const admitted = await post(key, '/v1.3/tasks');
    expect(admitted.status).not.toBe(429);
    expect(admitted.headers['x-ratelimit-duration-remaining']).toBe('0'); // 30 s left shows as 0 whole minutes
    await reserve('task-3', 30);
    expect429(await post(key, '/v1.3/tasks'), 'DPH', 2, 'hour');

    // The tasks' usage events: spend once per task id, and no second debit of what was reserved.
    await publishUsage(orgId, { kind: 'media_seconds', quantity: 90, idempotencyKey: 'task-1', category: 'index' });
    await publishUsage(orgId, { kind: 'media_seconds', quantity: 30, idempotencyKey: 'task-3', category: 'index' });
    await waitFor(async () => (await monthSpendUsd(orgId)) >= 0.084, 'the spend of the two tasks');
    await bus.drain();
    // 120 s at $0.042/min = $0.084.
    expect(await monthSpendUsd(orgId)).toBeCloseTo(0.084, 6);
  });

  it('output tokens: debited as their usage event is recorded, then the endpoint refuses', async () => {
    const { orgId } = await newOrg([{ category: 'analyze', dimension: 'TPM', limit: 1 }]);
    expect((await postStub(orgId, '/v1.3/analyze')).status).not.toBe(429);
    const generation = { kind: 'output_tokens', quantity: 1500, idempotencyKey: 'gen-1', category: 'analyze' } as const;
    await publishUsage(orgId, generation);
    await publishUsage(orgId, generation); // the same usage reported twice is one ledger entry and one debit
    await waitFor(async () => (await postStub(orgId, '/v1.3/analyze')).status === 429, 'the tokens debited');
    await bus.drain();
    expect(await monthSpendUsd(orgId)).toBeCloseTo(1500 * 8e-6, 9);
    expect429(await postStub(orgId, '/v1.3/analyze'), 'TPM', 1, 'minute');
  });

  it('an analyze request’s video minutes are debited from Analyze’s DPH and DPD, not priced', async () => {
    const { orgId } = await newOrg([
      { category: 'analyze', dimension: 'DPH', limit: 1 },
      { category: 'analyze', dimension: 'DPD', limit: 10 },
    ]);
    expect((await postStub(orgId, '/v1.3/analyze')).headers['x-ratelimit-duration-remaining']).toBe('1');
    await publishUsage(orgId, { kind: 'media_seconds', quantity: 61, idempotencyKey: 'gen-2/video', category: 'analyze' });
    await waitFor(async () => (await postStub(orgId, '/v1.3/analyze')).status === 429, 'the minutes debited');
    expect429(await postStub(orgId, '/v1.3/analyze'), 'DPH', 1, 'hour');
    expect(await monthSpendUsd(orgId)).toBe(0);
  });
});

describe('effective limits follow the plan', () => {
  it('a tier or contract change takes effect within the cache time', async () => {
    const { orgId, key } = await newOrg([{ category: 'search', dimension: 'RPM', limit: 1 }]);
    expect((await post(key, '/v1.3/search')).status).not.toBe(429);
    expect((await post(key, '/v1.3/search')).status).toBe(429);
    await auth(admin().put(`/admin/organizations/${orgId}/billing/enterprise`))
      .send({ limits: [{ category: 'search', dimension: 'RPM', limit: 100 }] })
      .expect(200);
    await new Promise((r) => setTimeout(r, 300));
    const after = await post(key, '/v1.3/search');
    expect(after.status).not.toBe(429);
    expect(after.headers['x-ratelimit-request-limit']).toBe('100');
  });

  it('admin API: payment method, spend, upgrade, downgrade; unknown organizations are 404', async () => {
    const { orgId } = await newOrg();
    await auth(admin().post(`/admin/organizations/${orgId}/billing/payment-method`))
      .send({ payment_method_ref: 'pm_1', billing_email: 'a@example.com' })
      .expect(200);
    const spent = await auth(admin().post(`/admin/organizations/${orgId}/billing/spend`))
      .send({ idempotency_key: 's1', amount_usd: 250 })
      .expect(200);
    expect(spent.body).toMatchObject({
      upgraded: true,
      plan: { plan: 'developer', tier: 2, month_spend_usd: 250, next_tier_threshold_usd: 400 },
    });
    const down = await auth(admin().post(`/admin/organizations/${orgId}/billing/downgrade`)).expect(200);
    expect(down.body).toMatchObject({ plan: 'free', tier: 0 });
    await auth(admin().get('/admin/organizations/6528dde58f9cd95a98cbd075/billing')).expect(404);
    const bad = await auth(admin().post(`/admin/organizations/${orgId}/billing/spend`))
      .send({ idempotency_key: 's2', amount_usd: 'lots' })
      .expect(400);
    expect(bad.body.code).toBe('parameter_invalid');
    await request(gateway.url).get(`/admin/organizations/${orgId}/billing`).expect(401);
  });
});

describe('two gateway processes sharing Redis', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGTERM');
  });

  function spawnGateway(): Promise<string> {
    const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: gatewayDb.url,
        INDEX_SERVICE_ADDR: indexService.address,
        BILLING_SERVICE_ADDR: billingService.address,
        REDIS_URL,
        // This process's secret: the services it started refuse calls without it.
        INTERNAL_GRPC_SECRET: internalSecret(),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      let output = '';
      child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${output}`)));
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const url = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
        if (url) resolve(url);
      });
    });
  }

  it('50 concurrent clients are admitted exactly the limit', async () => {
    const [a, b] = await Promise.all([spawnGateway(), spawnGateway()]);
    const { key } = await newOrg([{ category: 'search', dimension: 'RPM', limit: 20 }]);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request(i % 2 ? a : b)
          .post('/v1.3/search')
          .set('x-api-key', key)
          .send({}),
      ),
    );
    expect(responses.filter((r) => r.status !== 429)).toHaveLength(20);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(30);
  }, 60_000);
});

describe('embedded mode', () => {
  it('without Redis and billing, the Free limits apply from memory', async () => {
    const local = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'pglite', dataDir: 'memory://' },
      indexServiceAddress: indexService.address,
      logger,
    });
    try {
      const org = await local.keys.createOrganization('solo');
      const { secret } = await local.keys.createKey(org.id, null);
      const res = await request(local.url).post('/v1.3/search').set('x-api-key', secret).send({});
      expect(res.headers['x-ratelimit-request-limit']).toBe('600');
      expect(res.headers['x-ratelimit-request-remaining']).toBe('599');
    } finally {
      await local.stop();
    }
  });
});
