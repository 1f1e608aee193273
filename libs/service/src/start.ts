import { createLogger, envBoolean, loadConfig, logLevel, runMain, systemClock, withCaller, type Logger, type Stoppable } from '@vus/core';
import { Database, migrate } from '@vus/db';
import { EVENTS_MIGRATIONS, kafkaBusFromBrokers, startOutboxRelay, type EventBus, type EventEnvelope, type OutboxRelay } from '@vus/events';
import { serviceDefinition, serviceEntry, startGrpcServer, useInternalSecret, watchReadiness, type RunningGrpcServer } from '@vus/grpc';
import { join } from 'node:path';
import { z } from 'zod';
import type { KitOptions, ServiceDefinition } from './define';

type Definition<O extends object, X extends object> = ServiceDefinition<O, z.ZodRawShape, X>;

export type RunningService<Extra extends object = object> = { readonly address: string; stop(): Promise<void> } & Extra;

/** Its migrations, after the events tables (when it writes or consumes events) and its libraries'. */
export async function migrateService(
  db: Database,
  definition: Pick<Definition<object, object>, 'migrations' | 'outbox' | 'consumes' | 'libraryMigrations'>,
): Promise<void> {
  if (definition.outbox || definition.consumes) await migrate(db, EVENTS_MIGRATIONS);
  for (const set of definition.libraryMigrations ?? []) await migrate(db, set);
  await migrate(db, { dir: definition.migrations, table: 'pgmigrations' });
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
  const stack: (() => unknown)[] = [];
  const stop = async () => {
    for (const step of stack.splice(0).reverse()) await step();
  };
  try {
    const db = await Database.open(options.database);
    stack.push(() => db.close());
    if (options.migrateOnStart ?? true) await migrateService(db, definition);
    let relay: OutboxRelay | undefined;
    if (definition.outbox) {
      relay = startOutboxRelay({ db, bus, logger });
      stack.push(() => relay?.stop());
    }
    const closers: (() => unknown)[] = [];
    stack.push(async () => {
      for (const close of closers.reverse()) await close();
    });
    const scope = {
      db,
      logger,
      bus,
      clock: options.clock ?? systemClock,
      eventsWritten: () => relay?.wake(),
      onStop: (close: () => unknown) => closers.push(close),
    };
    const parts = await definition.build(scope, options);

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

    if (parts.consumers?.length && !bus) logger.warn(parts.withoutBus ?? 'no event bus: this service consumes no events');
    for (const consumer of (bus && parts.consumers) || []) {
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
    for (const job of parts.jobs ?? []) {
      const running: Stoppable = await job.start();
      stack.push(() => running.stop());
    }
    return { ...(parts.extra?.() as X), address: server.address, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The environment every service reads in cluster mode, beside its own. */
function kitEnv(definition: Definition<object, object>) {
  return {
    /** Loopback unless configured: the chart and compose bind 0.0.0.0 explicitly. */
    GRPC_BIND: z.string().default(`127.0.0.1:${serviceEntry(definition.name).port}`),
    DATABASE_URL: z.string().url(),
    MIGRATE_ON_START: envBoolean.default(true),
    /** Shared by every service of the deployment: internal calls without it are refused. */
    INTERNAL_GRPC_SECRET: internalSecretEnv,
    GRPC_REFLECTION: envBoolean.default(false),
    /** host:port[,host:port] of the Kafka brokers; unset: events wait in the outbox, none are consumed. */
    KAFKA_BROKERS: z.string().optional(),
    LOG_LEVEL: logLevel,
  };
}

/** INTERNAL_GRPC_SECRET: every process of a cluster deployment reads it (services, gateway, worker). */
export const internalSecretEnv = z.string().min(32, 'use at least 32 characters');

/** Cluster mode: one process, configured from the environment (the Helm chart's and compose's form). */
export function runService<O extends object, X extends object>(definition: Definition<O, X>): void {
  runMain(async () => {
    const kit = kitEnv(definition);
    // One parse of both, so that a bad start lists every problem at once.
    const config = loadConfig(z.object({ ...kit, ...definition.env })) as z.infer<z.ZodObject<typeof kit>>;
    useInternalSecret(config.INTERNAL_GRPC_SECRET);
    const logger = createLogger({ service: definition.name, level: config.LOG_LEVEL });
    const bus = definition.outbox || definition.consumes ? kafkaBusFromBrokers(config.KAFKA_BROKERS, definition.name, logger) : undefined;
    const running = await startService(definition, {
      ...(await definition.fromEnv(config, { logger })),
      bind: config.GRPC_BIND,
      database: { kind: 'postgres', url: config.DATABASE_URL },
      bus,
      logger,
      migrateOnStart: config.MIGRATE_ON_START,
      reflection: config.GRPC_REFLECTION,
    });
    return {
      async stop() {
        await running.stop();
        await bus?.close();
      },
    };
  });
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
