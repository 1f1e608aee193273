import type { Clock, Logger } from '@vus/core';
import type { Database, DatabaseTarget, MigrationSet } from '@vus/db';
import type { EventBus, EventHandler, EventType } from '@vus/events';
import type { GrpcServiceName, ServiceRegistration } from '@vus/grpc';
import type { z } from 'zod';
import type { BackgroundJob } from './jobs';

/** One consumer group's subscription; the kit subscribes it when the service has a bus. */
export interface Consumer {
  group: string;
  types: readonly EventType[];
  handler: EventHandler;
}

/** What the kit hands a service's `build`: the resources it opened for it. */
export interface ServiceScope {
  readonly db: Database;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly bus: EventBus | undefined;
  /** Wakes the outbox relay after a transaction that wrote events (a no-op without a bus). */
  eventsWritten: () => void;
  /** Registers a closer (a client, a store): run after the server has stopped, last-registered first. */
  onStop: (close: () => unknown) => void;
}

export interface ServiceParts<Extra extends object = object> {
  implementation: ServiceRegistration['implementation'];
  consumers?: readonly Consumer[];
  /** Logged once when the service has consumers but no bus to take them from. */
  withoutBus?: string;
  jobs?: readonly BackgroundJob[];
  /** Returned with the running service (e.g. a job's handle that tests read); asked once everything has started. */
  extra?: () => Extra;
}

/** What every service is started with, in either mode. */
export interface KitOptions {
  /** host:port to listen on; port 0 picks a free one. */
  bind: string;
  database: DatabaseTarget;
  /** Where committed events go and consumed ones come from; without one they wait in the outbox. */
  bus?: EventBus | undefined;
  logger: Logger;
  clock?: Clock;
  migrateOnStart?: boolean;
  /** Serve grpc.reflection (off by default: it lists the whole contract). */
  reflection?: boolean;
  /** The secret callers must present; default: this process's. */
  internalSecret?: string;
}

export interface ServiceDefinition<Options extends object, Env extends z.ZodRawShape, Extra extends object> {
  /** Its registry row: proto service, port, database. */
  name: GrpcServiceName;
  /** Folder of its numbered SQL migrations. */
  migrations: string;
  /** Libraries' tables it uses (e.g. the job queue's), migrated before its own, each in its own bookkeeping table. */
  libraryMigrations?: readonly MigrationSet[];
  /** Writes events through the transactional outbox (migrates the outbox, runs the relay). */
  outbox?: boolean;
  /** Consumes events (migrates the handled-events table, reads KAFKA_BROKERS). */
  consumes?: boolean;
  /** Its environment beyond the kit's (GRPC_BIND, DATABASE_URL, INTERNAL_GRPC_SECRET …), zod as everywhere. */
  env: Env;
  /** Cluster mode: the service's own options from its parsed environment. */
  fromEnv(config: z.infer<z.ZodObject<Env>>, context: { logger: Logger }): Options | Promise<Options>;
  /** Wires the domain onto the kit's resources. */
  build(scope: ServiceScope, options: Options): Promise<ServiceParts<Extra>>;
}

/** Identity, for inference: `export const indexService = defineService({ … })`. */
export function defineService<Options extends object, Env extends z.ZodRawShape, Extra extends object = object>(
  definition: ServiceDefinition<Options, Env, Extra>,
): ServiceDefinition<Options, Env, Extra> {
  return definition;
}

/**
 * A process that runs a service's background jobs and nothing else (the indexing worker apart from
 * task-service's API): on that service's database, which the service migrates; no RPCs, gRPC
 * health checks only (on GRPC_BIND when set).
 */
export interface WorkerDefinition<Options extends object, Env extends z.ZodRawShape> {
  /** Its logs' service name and its client id on the bus. */
  name: string;
  /** Its environment beyond the kit's (DATABASE_URL, GRPC_BIND, KAFKA_BROKERS …). */
  env: Env;
  /**
   * The service whose database it runs on: the worker starts its jobs once that service has
   * migrated it (a worker started first waits, and says so once).
   */
  service?: Pick<ServiceDefinition<object, z.ZodRawShape, object>, 'name' | 'migrations' | 'outbox' | 'consumes' | 'libraryMigrations'>;
  fromEnv(config: z.infer<z.ZodObject<Env>>, context: { logger: Logger }): Options | Promise<Options>;
  /** Its jobs on the kit's resources; the scope's `eventsWritten` does nothing (the service's relay publishes). */
  build(scope: ServiceScope, options: Options): Promise<{ jobs: readonly BackgroundJob[] }>;
}

/** Identity, for inference: `export const indexingWorker = defineWorker({ … })`. */
export function defineWorker<Options extends object, Env extends z.ZodRawShape>(
  definition: WorkerDefinition<Options, Env>,
): WorkerDefinition<Options, Env> {
  return definition;
}
