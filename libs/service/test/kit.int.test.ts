import { createLogger, currentCaller } from '@vus/core';
import { buildEvent, InProcessEventBus, type EventType } from '@vus/events';
import { callUnary, checkHealth, createClient, implement, loadProto } from '@vus/grpc';
import type { IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import { createMemoryDatabase, createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { join } from 'node:path';
import pino from 'pino';
import { defineService, defineWorker, intervalJob, migrateService, startService, startWorker, tableMaintenanceJobs } from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });

/** A service on index-service's registry row, recording what the kit does in order. */
function recordingService(steps: string[]) {
  return defineService({
    name: 'index-service',
    migrations: join(__dirname, 'migrations'),
    outbox: true,
    consumes: true,
    env: {},
    fromEnv: () => ({}),
    async build(scope) {
      const { rows } = await scope.db.query<{ n: string }>('SELECT count(*) AS n FROM notes');
      steps.push(`migrated: ${rows[0]!.n} notes`);
      scope.onStop(() => steps.push('closer'));
      return {
        implementation: implement<IndexServiceHandlers>({ GetIndex: async (request) => ({ id: request.index_id, name: 'n' }) }, logger),
        consumers: [
          {
            group: 'recorder',
            types: ['video.deleted'],
            handler: async () => {
              steps.push(`event for ${currentCaller()?.requestId}`);
              return 'done';
            },
          },
        ],
        jobs: [
          {
            name: 'recorder',
            start: () => {
              steps.push('job started');
              return { stop: async () => void steps.push('job stopped') };
            },
          },
        ],
      };
    },
  });
}

describe('startService', () => {
  it("migrates, serves, consumes with the event's request id, and stops jobs before closers", async () => {
    const steps: string[] = [];
    const bus = new InProcessEventBus({ logger });
    const running = await startService(recordingService(steps), {
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: 'memory://' },
      bus,
      logger,
    });
    const client = createClient(loadProto().proto.vus.index.v1.IndexService, running.address);
    await expect(callUnary((md, opts, cb) => client.GetIndex({ index_id: 'x' }, md, opts, cb), {})).resolves.toMatchObject({ id: 'x' });
    client.close();
    await bus.publish([{ ...buildEvent('video.deleted', 'v', null, {}), request_id: 'req-9' }]);
    await bus.drain();
    await running.stop();
    await bus.close();
    expect(steps).toEqual(['migrated: 0 notes', 'job started', 'event for req-9', 'job stopped', 'closer']);
  });
});

describe('startService refuses at boot', () => {
  it('a consumer of an event no payload schema describes, before it serves or takes events', async () => {
    const bus = new InProcessEventBus({ logger });
    let subscribed = false;
    const subscribe = bus.subscribe.bind(bus);
    bus.subscribe = (subscription) => ((subscribed = true), subscribe(subscription));
    const unknownEvent = defineService({
      name: 'index-service',
      migrations: join(__dirname, 'migrations'),
      consumes: true,
      env: {},
      fromEnv: () => ({}),
      build: async () => ({
        implementation: implement<IndexServiceHandlers>({}, logger),
        consumers: [{ group: 'renames', types: ['video.renamed' as EventType], handler: async () => 'done' as const }],
      }),
    });
    const started = startService(unknownEvent, { bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, bus, logger });
    await expect(started).rejects.toThrow('no event schema describes what these consumers take: renames consumes video.renamed');
    expect(subscribed).toBe(false);
    await bus.close();
  });
});

describe('startWorker', () => {
  it('runs the jobs on the database without migrating it, answers health checks, and stops jobs before closers', async () => {
    const steps: string[] = [];
    const worker = defineWorker({
      name: 'test-worker',
      env: {},
      fromEnv: () => ({}),
      async build(scope) {
        const { rows } = await scope.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('pgmigrations', 'outbox')",
        );
        steps.push(`tables of migrations: ${rows[0]!.n}`);
        scope.onStop(() => steps.push('closer'));
        return {
          jobs: [
            {
              name: 'recorder',
              start: () => {
                steps.push('job started');
                return { stop: async () => void steps.push('job stopped') };
              },
            },
          ],
        };
      },
    });
    const running = await startWorker(worker, { database: { kind: 'pglite', dataDir: 'memory://' }, logger, healthBind: '127.0.0.1:0' });
    expect(await checkHealth(running.healthAddress!, '')).toBe(true);
    await running.stop();
    expect(steps).toEqual(['tables of migrations: 0', 'job started', 'job stopped', 'closer']);
  });
});

describe('startWorker before its service has migrated the database', () => {
  let database: ThrowawayDatabase;
  beforeAll(async () => {
    database = await createThrowawayDatabase('vus_kit_worker');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('waits, says so once however many times it checks, and starts its jobs once the service has migrated it', async () => {
    const lines: { level: number; msg: string }[] = [];
    const captured = pino(
      { level: 'info' },
      { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
    );
    const service = recordingService([]);
    const steps: string[] = [];
    const worker = defineWorker({
      name: 'test-worker',
      service,
      env: {},
      fromEnv: () => ({}),
      async build(scope) {
        const { rows } = await scope.db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes');
        steps.push(`notes: ${rows[0]!.n}`);
        return { jobs: [{ name: 'recorder', start: () => (steps.push('job started'), { stop: async () => undefined }) }] };
      },
    });
    let started = false;
    const starting = startWorker(worker, { database: { kind: 'postgres', url: database.url }, logger: captured, migrationPollMs: 20 }).then(
      (running) => {
        started = true;
        return running;
      },
    );
    while (!lines.some((line) => /waiting for index-service to migrate the database/.test(line.msg))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Several more checks find the tables still missing: nothing runs, nothing more is said.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started).toBe(false);
    expect(steps).toEqual([]);
    await migrateService(database.db, service);
    const running = await starting;
    await running.stop();
    expect(steps).toEqual(['notes: 0', 'job started']);
    const said = lines.map((line) => line.msg);
    expect(said.filter((msg) => /waiting for index-service/.test(msg))).toHaveLength(1);
    expect(said.find((msg) => /waiting for/.test(msg))).toMatch(/\(\d+ migrations not applied yet\)/);
    expect(said.filter((msg) => msg === 'index-service has migrated the database; starting')).toHaveLength(1);
  });

  it('starts at once, saying nothing about migrations, on a database already migrated', async () => {
    const lines: { msg: string }[] = [];
    const captured = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
    const worker = defineWorker({
      name: 'test-worker',
      service: recordingService([]),
      env: {},
      fromEnv: () => ({}),
      build: async () => ({ jobs: [] }),
    });
    const running = await startWorker(worker, { database: { kind: 'postgres', url: database.url }, logger: captured });
    await running.stop();
    expect(lines.filter((line) => /migrat/.test(line.msg))).toEqual([]);
  });
});

describe('intervalJob', () => {
  it('runs at start when asked, logs a failed round, and waits for the round in flight on stop', async () => {
    let rounds = 0;
    let release!: () => void;
    const job = intervalJob({
      name: 'j',
      everyMs: 60_000,
      runAtStart: true,
      logger,
      run: () => {
        rounds++;
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    const running = await job.start();
    expect(rounds).toBe(1);
    let stopped = false;
    const stopping = running.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
  });
});

describe('tableMaintenanceJobs', () => {
  it('analyses an embedded database’s tables now and then, and leaves PostgreSQL’s to its autovacuum', async () => {
    const postgres = await createThrowawayDatabase();
    const embedded = await createMemoryDatabase();
    try {
      expect(tableMaintenanceJobs(postgres.db, logger)).toEqual([]);
      await embedded.db.query('CREATE TABLE notes (id int)');
      await embedded.db.query('INSERT INTO notes SELECT generate_series(1, 500)');
      const jobs = tableMaintenanceJobs(embedded.db, logger, 50);
      expect(jobs.map((job) => job.name)).toEqual(['table-maintenance']);
      const running = await jobs[0]!.start();
      const analysed = async () =>
        (await embedded.db.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'notes'`)).rows[0]?.n;
      for (let tries = 0; tries < 100 && (await analysed()) !== 500; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
      await running.stop();
      expect(await analysed()).toBe(500);
    } finally {
      await Promise.all([postgres.drop(), embedded.drop()]);
    }
  });
});
