import { createLogger, isApiError, newId } from '@vus/core';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createClient, type RedisClientType } from 'redis';
import { connectRedis, memoryLimiters, redisLimiters, UsageCounters, type LimiterSource, type RateLimit } from '../src';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const logger = createLogger({ service: 'limits-test', level: 'silent' });

const SEARCH: RateLimit[] = [
  { category: 'search', dimension: 'RPM', limit: 3 },
  { category: 'search', dimension: 'RPD', limit: 5 },
];
const INDEX: RateLimit[] = [
  { category: 'index', dimension: 'RPM', limit: 100 },
  { category: 'index', dimension: 'DPH', limit: 2 },
  { category: 'index', dimension: 'DPD', limit: 10 },
];
const ANALYZE: RateLimit[] = [
  { category: 'analyze', dimension: 'RPM', limit: 100 },
  { category: 'analyze', dimension: 'TPM', limit: 1 },
  { category: 'analyze', dimension: 'TPD', limit: 5 },
];

let redis: RedisClientType;
beforeAll(async () => {
  redis = createClient({ url: REDIS_URL });
  await redis.connect();
});
afterAll(async () => {
  await redis.close();
});

const SOURCES: [string, () => LimiterSource][] = [
  ['memory', () => memoryLimiters()],
  ['redis', () => redisLimiters(redis)],
];

describe.each(SOURCES)('usage counters on %s', (_kind, makeSource) => {
  let counters: UsageCounters;
  let org: string;
  beforeEach(() => {
    counters = new UsageCounters(makeSource());
    org = newId();
  });

  it('admits the limit, refuses the next with the 429 form and the window reset', async () => {
    for (let i = 0; i < 3; i++) expect((await counters.admitRequest(org, 'search', SEARCH)).admitted).toBe(true);
    const before = Date.now();
    const refused = await counters.admitRequest(org, 'search', SEARCH);
    if (refused.admitted) throw new Error('the fourth request was admitted');
    expect(refused.exceeded.dimension).toBe('RPM');
    expect(refused.exceeded.resetAt.getTime()).toBeGreaterThan(before);
    expect(refused.exceeded.resetAt.getTime()).toBeLessThanOrEqual(before + 60_000 + 1000);
  });

  it('a refused request consumes nothing in any window', async () => {
    for (let i = 0; i < 3; i++) await counters.admitRequest(org, 'search', SEARCH);
    for (let i = 0; i < 4; i++) expect((await counters.admitRequest(org, 'search', SEARCH)).admitted).toBe(false);
    const refused = await counters.admitRequest(org, 'search', SEARCH);
    // RPD counted only the three admitted requests.
    expect(refused.states.find((s) => s.dimension === 'RPD')?.remainingUnits).toBe(2);
  });

  it('a request of several units takes them all, or none when fewer are left', async () => {
    const admitted = await counters.admitRequest(org, 'search', SEARCH, 2);
    expect(admitted.admitted).toBe(true);
    expect(admitted.states.find((s) => s.dimension === 'RPM')?.remainingUnits).toBe(1);
    const refused = await counters.admitRequest(org, 'search', SEARCH, 2);
    if (refused.admitted) throw new Error('two units were admitted with one left');
    expect(refused.exceeded.dimension).toBe('RPM');
    // Nothing was taken: the one unit left is still there, in both windows.
    expect(refused.states.map((s) => [s.dimension, s.remainingUnits])).toEqual([
      ['RPM', 1],
      ['RPD', 3],
    ]);
    expect((await counters.admitRequest(org, 'search', SEARCH)).admitted).toBe(true);
    await counters.refundRequest(org, 'search', SEARCH, 3);
    expect((await counters.admitRequest(org, 'search', SEARCH, 3)).admitted).toBe(true);
  });

  it('keeps organizations and categories apart', async () => {
    for (let i = 0; i < 3; i++) await counters.admitRequest(org, 'search', SEARCH);
    expect((await counters.admitRequest(newId(), 'search', SEARCH)).admitted).toBe(true);
    expect((await counters.admitRequest(org, 'index', INDEX)).admitted).toBe(true);
  });

  it('duration budgets admit while minutes are left and refuse a video longer than what is left', async () => {
    await counters.reserve(org, 'index', 'duration', 90, INDEX); // 1.5 of 2 minutes this hour
    const error: unknown = await counters.reserve(org, 'index', 'duration', 31, INDEX).catch((e: unknown) => e);
    expect(isApiError(error) && error.code).toBe('too_many_requests');
    expect(isApiError(error) && error.message).toMatch(
      /^You have exceeded the rate limit \(DPH:2\/hour\), try again after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.$/,
    );
    expect((await counters.admitRequest(org, 'index', INDEX)).admitted).toBe(true); // 30 s left: still admitted
    await counters.debit(org, 'index', 'duration', 30, INDEX);
    const refused = await counters.admitRequest(org, 'index', INDEX);
    expect(refused.admitted || refused.exceeded.dimension).toBe('DPH');
  });

  it('output-token budgets are debited after generation and then refuse', async () => {
    expect((await counters.admitRequest(org, 'analyze', ANALYZE)).admitted).toBe(true);
    await counters.debit(org, 'analyze', 'output_token', 1_200, ANALYZE); // over the 1k TPM: the request had already run
    const refused = await counters.admitRequest(org, 'analyze', ANALYZE);
    expect(refused.admitted || refused.exceeded.dimension).toBe('TPM');
    expect(refused.states.find((s) => s.dimension === 'TPD')?.remainingUnits).toBe(3_800);
  });
});

describe('counters shared in Redis', () => {
  // (Memory counters, embedded mode, start new windows when a limit changes.)
  it('a plan change keeps the window count and applies the new limit', async () => {
    const counters = new UsageCounters(redisLimiters(redis));
    const org = newId();
    for (let i = 0; i < 3; i++) await counters.admitRequest(org, 'search', SEARCH);
    const raised = SEARCH.map((l) => ({ ...l, limit: l.limit * 10 }));
    const admitted = await counters.admitRequest(org, 'search', raised);
    expect(admitted.states.find((s) => s.dimension === 'RPM')?.remainingUnits).toBe(26);
  });

  it('admit exactly the limit under concurrency', async () => {
    const a = new UsageCounters(redisLimiters(redis));
    const b = new UsageCounters(redisLimiters(redis));
    const org = newId();
    const limits: RateLimit[] = [
      { category: 'search', dimension: 'RPM', limit: 20 },
      { category: 'search', dimension: 'RPD', limit: 1000 },
    ];
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).admitRequest(org, 'search', limits)));
    expect(results.filter((r) => r.admitted)).toHaveLength(20);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve(child);
    });
  });
}

const waitFor = async (condition: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('Redis going away', () => {
  it('falls back to per-process limits, then shares counters again once Redis returns', async () => {
    const port = await freePort();
    let server = await startRedisServer(port);
    const client = connectRedis(`redis://127.0.0.1:${port}`, logger);
    try {
      await waitFor(() => client.isReady);
      const counters = new UsageCounters(redisLimiters(client));
      const org = newId();
      const limits: RateLimit[] = [{ category: 'search', dimension: 'RPM', limit: 2 }];
      expect((await counters.admitRequest(org, 'search', limits)).admitted).toBe(true);

      server.kill('SIGKILL');
      await waitFor(() => !client.isReady);
      // Down: this process still serves, limited by its own memory counters.
      expect((await counters.admitRequest(org, 'search', limits)).admitted).toBe(true);
      expect((await counters.admitRequest(org, 'search', limits)).admitted).toBe(true);
      expect((await counters.admitRequest(org, 'search', limits)).admitted).toBe(false);

      server = await startRedisServer(port);
      await waitFor(() => client.isReady);
      // Back: the (empty) Redis counters are used again.
      const other = newId();
      expect((await counters.admitRequest(other, 'search', limits)).admitted).toBe(true);
      expect(Number(await client.get(`vus:rl:RPM:${other}:search`))).toBe(1);
    } finally {
      client.destroy();
      server.kill('SIGKILL');
    }
  });
});
