import {
  createLogger,
  envBoolean,
  loadConfig,
  logLevel,
  runMain,
  systemClock,
  withCaller,
  type Clock,
  type Logger,
  type Stoppable,
} from '@vus/core';
import { Database, migrate, pendingMigrations, type DatabaseTarget, type MigrationSet } from '@vus/db';
import {
  checkConsumers,
  EVENTS_MIGRATIONS,
  kafkaBusFromBrokers,
  startOutboxRelay,
  type EventBus,
  type EventEnvelope,
  type OutboxRelay,
} from '@vus/events';
import { serviceDefinition, serviceEntry, startGrpcServer, useInternalSecret, watchReadiness, type RunningGrpcServer } from '@vus/grpc';
import { join } from 'node:path';
import { z } from 'zod';
import type { KitOptions, ServiceDefinition, ServiceScope, WorkerDefinition } from './define';
import { tableMaintenanceJobs, type BackgroundJob } from './jobs';

type Definition<O extends object, X extends object> = ServiceDefinition<O, z.ZodRawShape, X>;

export type RunningService<Extra extends object = object> = { readonly address: string; stop(): Promise<void> } & Extra;

/** What a start got to, undone last first by `stop` (on a failed start too). */
function undoStack() {
  const steps: (() => unknown)[] = [];
  return {
    push: (step: () => unknown) => void steps.push(step),
    stop: async () => {
      for (const step of steps.splice(0).reverse()) await step();
    },
  };
}
type UndoStack = ReturnType<typeof undoStack>;

/** The scope `build` gets; the closers it registers run, last-registered first, where the stack stands now. */
function scopeOf(
  db: Database,
  options: { logger: Logger; bus?: EventBus | undefined; clock?: Clock | undefined },
  stack: UndoStack,
  eventsWritten: () => void,
): ServiceScope {
  const closers: (() => unknown)[] = [];
  stack.push(async () => {
    for (const close of closers.reverse()) await close();
  });
  const { logger, bus } = options;
  return { db, logger, bus, clock: options.clock ?? systemClock, eventsWritten, onStop: (close) => void closers.push(close) };
}

async function startJobs(jobs: readonly BackgroundJob[] | undefined, stack: UndoStack): Promise<void> {
  for (const job of jobs ?? []) {
    const running: Stoppable = await job.start();
    stack.push(() => running.stop());
  }
}

/** What a service's database needs: the events tables (when it writes or consumes events), its libraries' and its own. */
export type MigratedBy = Pick<Definition<object, object>, 'migrations' | 'outbox' | 'consumes' | 'libraryMigrations'>;

function migrationSetsOf(definition: MigratedBy): MigrationSet[] {
  return [
    ...(definition.outbox || definition.consumes ? [EVENTS_MIGRATIONS] : []),
    ...(definition.libraryMigrations ?? []),
    { dir: definition.migrations, table: 'pgmigrations' },
  ];
}

/** Its migrations, after the events tables (when it writes or consumes events) and its libraries'. */
export async function migrateService(db: Database, definition: MigratedBy): Promise<void> {
  for (const set of migrationSetsOf(definition)) await migrate(db, set);
}

/**
 * Resolves once `definition`'s migrations are all on `db`, checking every `pollMs`: a worker started
 * before its service has migrated the database waits (and says so once, then once more when it goes
 * on) instead of failing on a missing table and being restarted in a loop.
 */
export async function waitForMigrations(
  db: Database,
  definition: MigratedBy & { name: string },
  logger: Logger,
  pollMs = 2_000,
): Promise<void> {
  let waited = false;
  for (;;) {
    const pending: string[] = [];
    for (const set of migrationSetsOf(definition)) pending.push(...(await pendingMigrations(db, set)));
    if (pending.length === 0) break;
    if (!waited) {
      logger.warn(
        { pending: pending.length, first: pending[0] },
        `waiting for ${definition.name} to migrate the database (${pending.length} migrations not applied yet); checking every ${pollMs / 1000} s`,
      );
      waited = true;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  if (waited) logger.info(`${definition.name} has migrated the database; starting`);
}

/**
 * Starts a service: database (migrated), outbox relay, the domain (`build`), the gRPC server with
 * readiness following the database, consumers, background jobs. `stop` undoes it in reverse order.
 */
export async function startService<O extends object, X extends object>(
  definition: Definition<O, X>,
  options: KitOptions & O,
): Promise<RunningService<X>> {
  const { logger, bus } = options;
  const stack = undoStack();
  try {
    const db = await Database.open(options.database);
    stack.push(() => db.close());
    if (options.migrateOnStart ?? true) await migrateService(db, definition);
    let relay: OutboxRelay | undefined;
    if (definition.outbox) {
      relay = startOutboxRelay({ db, bus, logger });
      stack.push(() => relay?.stop());
    }
    const scope = scopeOf(db, options, stack, () => relay?.wake());
    const parts = await definition.build(scope, options);
    // Before anything listens: a consumer of an event no payload schema describes fails the boot.
    const consumers = checkConsumers(parts.consumers ?? []);

    const protoService = serviceEntry(definition.name).protoService!;
    const server: RunningGrpcServer = await startGrpcServer({
      bind: options.bind,
      logger,
      reflection: options.reflection,
      internalSecret: options.internalSecret,
      services: [{ name: protoService, definition: serviceDefinition(protoService), implementation: parts.implementation }],
    });
    stack.push(() => server.stop());
    stack.push(watchReadiness(server, () => db.ping()));

    if (consumers.length && !bus) logger.warn(parts.withoutBus ?? 'no event bus: this service consumes no events');
    for (const consumer of bus ? consumers : []) {
      // A handler runs for the request its event was written for: its calls carry that request id
      // (and its trace, when this process does not trace: libs/events makes the consumer span).
      const handler = consumer.handler;
      const subscription = await bus!.subscribe({
        ...consumer,
        handler: (event: EventEnvelope) =>
          withCaller({ requestId: event.request_id, traceparent: event.traceparent }, () => handler(event)),
      });
      stack.push(() => subscription.stop());
    }
    await startJobs([...(parts.jobs ?? []), ...tableMaintenanceJobs(db, logger)], stack);
    return { ...(parts.extra?.() as X), address: server.address, stop: stack.stop };
  } catch (error) {
    await stack.stop().catch(() => undefined);
    throw error;
  }
}

/** How a worker process is started (runWorker reads it from the environment). */
export interface WorkerOptions {
  /** Its service's database, migrated by the service. */
  database: DatabaseTarget;
  /** Only wakes its jobs (e.g. on `task.created`); without one they poll. */
  bus?: EventBus | undefined;
  logger: Logger;
  clock?: Clock;
  /** host:port for gRPC health checks; unset: no server. */
  healthBind?: string | undefined;
  /** How often a worker waiting for its service's migrations checks again (default 2 s). */
  migrationPollMs?: number;
}

/** A started worker process: where it answers health checks (none without `healthBind`). */
export interface RunningWorkerProcess {
  readonly healthAddress: string | undefined;
  stop(): Promise<void>;
}

/** Starts a worker process's jobs on its service's database, then its health server; `stop` undoes it in reverse order. */
export async function startWorker<O extends object>(
  definition: WorkerDefinition<O, z.ZodRawShape>,
  options: WorkerOptions & O,
): Promise<RunningWorkerProcess> {
  const stack = undoStack();
  try {
    const db = await Database.open(options.database);
    stack.push(() => db.close());
    if (definition.service) await waitForMigrations(db, definition.service, options.logger, options.migrationPollMs);
    // No relay here: the events its jobs write wait in the outbox for the service's relay.
    const scope = scopeOf(db, options, stack, () => undefined);
    const parts = await definition.build(scope, options);
    await startJobs(parts.jobs, stack);
    const health = options.healthBind
      ? await startGrpcServer({ bind: options.healthBind, services: [], logger: options.logger })
      : undefined;
    if (health) stack.push(() => health.stop());
    return { healthAddress: health?.address, stop: stack.stop };
  } catch (error) {
    await stack.stop().catch(() => undefined);
    throw error;
  }
}

/** INTERNAL_GRPC_SECRET: every process of a cluster deployment reads it (services, gateway, worker). */
export const internalSecretEnv = z.string().min(32, 'use at least 32 characters');

/** What every process of a cluster deployment reads (beside its own settings). */
const processEnv = {
  DATABASE_URL: z.string().url(),
  /** Shared by every service of the deployment: internal calls without it are refused. */
  INTERNAL_GRPC_SECRET: internalSecretEnv,
  /** host:port[,host:port] of the Kafka brokers; unset: events wait in the outbox, none are consumed. */
  KAFKA_BROKERS: z.string().optional(),
  LOG_LEVEL: logLevel,
};

type ProcessConfig = z.infer<z.ZodObject<typeof processEnv>>;

/**
 * Cluster mode's part common to services and workers: the environment parsed once (so that a bad
 * start lists every problem at once), the internal secret, the logger, the bus; `start` does the rest.
 */
function runFromEnv<Config extends ProcessConfig>(
  name: string,
  env: z.ZodRawShape,
  withBus: boolean,
  start: (config: Config, context: { logger: Logger; bus: EventBus | undefined }) => Promise<Stoppable>,
): void {
  runMain(async () => {
    const config = loadConfig(z.object(env)) as Config;
    useInternalSecret(config.INTERNAL_GRPC_SECRET);
    const logger = createLogger({ service: name, level: config.LOG_LEVEL });
    const bus = withBus ? kafkaBusFromBrokers(config.KAFKA_BROKERS, name, logger) : undefined;
    const running = await start(config, { logger, bus });
    return {
      async stop() {
        await running.stop();
        await bus?.close();
      },
    };
  });
}

/** The environment every service reads in cluster mode, beside its own. */
function kitEnv(definition: Definition<object, object>) {
  return {
    ...processEnv,
    /** Loopback unless configured: the chart and compose bind 0.0.0.0 explicitly. */
    GRPC_BIND: z.string().default(`127.0.0.1:${serviceEntry(definition.name).port}`),
    MIGRATE_ON_START: envBoolean.default(true),
    GRPC_REFLECTION: envBoolean.default(false),
  };
}

/** Every variable a service's cluster-mode process reads: the kit's and its own (the README's cluster-mode section is checked against it). */
export function serviceEnvOf<O extends object, X extends object>(definition: Definition<O, X>) {
  return { ...kitEnv(definition), ...definition.env };
}

/** Every variable a worker process reads: the process's, GRPC_BIND for health checks, and its own. */
export function workerEnvOf<O extends object>(definition: WorkerDefinition<O, z.ZodRawShape>) {
  return { ...processEnv, GRPC_BIND: z.string().optional(), ...definition.env };
}

/** Cluster mode: one process, configured from the environment (the Helm chart's and compose's form). */
export function runService<O extends object, X extends object>(definition: Definition<O, X>): void {
  const env = serviceEnvOf(definition);
  const withBus = Boolean(definition.outbox || definition.consumes);
  runFromEnv<z.infer<z.ZodObject<typeof env>>>(definition.name, env, withBus, async (config, { logger, bus }) =>
    startService(definition, {
      ...(await definition.fromEnv(config, { logger })),
      bind: config.GRPC_BIND,
      database: { kind: 'postgres', url: config.DATABASE_URL },
      bus,
      logger,
      migrateOnStart: config.MIGRATE_ON_START,
      reflection: config.GRPC_REFLECTION,
    }),
  );
}

/** A worker process from the environment: its service's DATABASE_URL, GRPC_BIND for health checks (unset: none). */
export function runWorker<O extends object>(definition: WorkerDefinition<O, z.ZodRawShape>): void {
  const env = workerEnvOf(definition);
  runFromEnv<z.infer<z.ZodObject<typeof env>>>(definition.name, env, true, async (config, { logger, bus }) =>
    startWorker(definition, {
      ...(await definition.fromEnv(config, { logger })),
      database: { kind: 'postgres', url: config.DATABASE_URL },
      bus,
      logger,
      healthBind: config.GRPC_BIND,
    }),
  );
}

/**
 * Embedded mode: services started in this process on loopback, each on a PGlite folder named after
 * it, sharing one bus; `stop` stops them in reverse order (with any closers added between them).
 */
export function inProcessServices(shared: { dataDir: string; bus: EventBus; logger: Logger }) {
  const stops: (() => unknown)[] = [];
  return {
    async start<O extends object, X extends object>(definition: Definition<O, X>, options: O): Promise<RunningService<X>> {
      const running = await startService<O, X>(definition, {
        bind: '127.0.0.1:0',
        database: { kind: 'pglite', dataDir: join(shared.dataDir, definition.name) },
        bus: shared.bus,
        logger: shared.logger.child({ service: definition.name }),
        ...options,
      });
      stops.push(() => running.stop());
      return running;
    },
    /** Something the next services use, closed after them. */
    onStop(close: () => unknown) {
      stops.push(close);
    },
    async stop() {
      for (const close of stops.splice(0).reverse()) await close();
    },
  };
}
