/*
 * A job queue's depth and age, as an autoscaler reads them from a worker's /metrics: per kind and
 * state, zeros included, read from the database when scraped.
 */
import { createLogger, type Clock } from '@vus/core';
import { migrate } from '@vus/db';
import { createMemoryDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { startMetrics, type MetricsEndpoint } from '@vus/telemetry/sdk';
import { createJobStore, enqueueJob, JOBS_MIGRATIONS, JobRunner, type JobOutcome } from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });
const T0 = new Date('2026-03-01T12:00:00Z');

let database: ThrowawayDatabase;
let metrics: MetricsEndpoint;
let now = T0;
const clock: Clock = { now: () => now };

beforeAll(async () => {
  database = await createMemoryDatabase();
  await migrate(database.db, JOBS_MIGRATIONS);
  metrics = await startMetrics({ prometheus: { host: '127.0.0.1', port: 0 } });
});
afterAll(async () => {
  await metrics?.stop();
  await database?.drop();
});

/** Series of `name` by their kind and state labels. */
async function scrape(name: string): Promise<Record<string, number>> {
  const text = await (await fetch(metrics.url!)).text();
  const series: Record<string, number> = {};
  for (const match of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const kind = /vus_job_kind="([^"]*)"/.exec(match[1]!)?.[1];
    const state = /vus_job_state="([^"]*)"/.exec(match[1]!)?.[1];
    series[`${kind}/${state}`] = Number(match[2]);
  }
  return series;
}

it('reports depth and the oldest wait per kind and state while the runner runs', async () => {
  const store = createJobStore(database.db);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const runner = new JobRunner({
    store,
    kinds: {
      mail: {
        run: async (): Promise<JobOutcome> => (await held, { kind: 'succeeded' }),
        retry: { baseMs: 1000, maxMs: 1000 },
        maxAttempts: 3,
      },
    },
    concurrency: 1,
    leaseMs: 60_000,
    pollMs: 50,
    owner: 'metrics',
    clock,
    logger,
  });
  for (const [subject, due] of [
    ['a', T0],
    ['b', new Date(T0.getTime() + 1000)],
    ['c', new Date(T0.getTime() + 3_600_000)],
  ] as const) {
    await enqueueJob(database.db, { kind: 'mail', subjectId: subject, orgId: 'org-1', runAt: due });
  }
  expect(await scrape('vus_jobs_queue_depth')).toEqual({});
  now = new Date(T0.getTime() + 10_000);
  runner.start();
  try {
    // One job runs (concurrency 1); two wait, one of them not due for an hour.
    await waitUntil(async () => (await scrape('vus_jobs_queue_depth'))['mail/running'] === 1);
    expect(await scrape('vus_jobs_queue_depth')).toEqual({ 'mail/queued': 2, 'mail/running': 1 });
    // The oldest queued job came due 9 s before "now" (b, due at T0 + 1 s); one not yet due does not age.
    expect((await scrape('vus_jobs_queue_oldest_age'))['mail/queued']).toBe(9);
  } finally {
    release();
    await runner.stop();
  }
});

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 25));
  expect(await condition()).toBe(true);
}
