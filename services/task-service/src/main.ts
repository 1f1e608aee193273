import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { ConfigError, createLogger, envAddress, envBoolean, loadConfig, logLevel, runMain, systemClock, type Clock, type Logger } from '@vus/core';
import { Database, migrate, type DatabaseTarget } from '@vus/db';
import { EVENTS_MIGRATIONS, kafkaBusFromBrokers, startOutboxRelay, type EventBus, type SubscriptionHandle } from '@vus/events';
import { loadProto, startGrpcServer, TASK_SERVICE_NAME, watchReadiness } from '@vus/grpc';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { join } from 'node:path';
import { z } from 'zod';
import { createIndexClient, indexDirectory } from './index-client';
import { taskServiceImplementation } from './server';
import { VIDEO_BLOBS_GROUP, videoBlobCleanup } from './video-blobs';
import { startWebhooks, webhookEnvShape, webhookOptionsFromEnv, type WebhookOptions } from './webhooks/start';
import { taskHandlers } from './tasks/rpc';
import { createTaskStore } from './tasks/store';
import { createTaskService } from './tasks/tasks';
import { startIndexingWorker, type IndexingWorkerConfig, type RunningWorker } from './worker/start';
import { workerEnvShape, workerConfigFromEnv } from './worker/config';

export const MIGRATIONS = { dir: join(__dirname, '..', 'migrations'), table: 'pgmigrations' };
export { parseAllowList } from '@vus/fetch';
export { mediaMeter, workerEnvShape, type MediaMeterHandle } from './worker/config';

export interface TaskServiceOptions {
  /** host:port to listen on; port 0 picks a free one. */
  bind: string;
  database: DatabaseTarget;
  /** Where committed events go; without one they wait in the outbox until a relay runs. */
  bus?: EventBus | undefined;
  logger: Logger;
  clock?: Clock;
  migrateOnStart?: boolean;
  indexServiceAddress: string;
  /**
   * Where uploads and thumbnails are (the store the gateway and index-service share): a deleted
   * failed task's upload is removed from it, and with a bus, a deleted video's media and thumbnails.
   */
  blobs?: BlobStore | undefined;
  /** Runs the indexing worker in this process (embedded mode; or set WORKER_ENABLED in cluster mode). */
  worker?: Omit<IndexingWorkerConfig, 'indexServiceAddress'> | undefined;
  /** Webhook endpoints, the fan-out of task events to deliveries, the dispatcher (on by default). */
  webhooks?: WebhookOptions | undefined;
}

export interface RunningTaskService {
  address: string;
  worker: RunningWorker | undefined;
  stop(): Promise<void>;
}

export async function startTaskService(options: TaskServiceOptions): Promise<RunningTaskService> {
  const { logger, clock = systemClock } = options;
  const db = await Database.open(options.database);
  if (options.migrateOnStart ?? true) {
    await migrate(db, EVENTS_MIGRATIONS);
    await migrate(db, MIGRATIONS);
  }
  const relay = startOutboxRelay({ db, bus: options.bus, logger });
  const eventsWritten = () => relay?.wake();

  const index = createIndexClient(options.indexServiceAddress);
  const tasks = createTaskService({ store: createTaskStore(db), indexes: indexDirectory(index), blobs: options.blobs, clock, eventsWritten });
  const webhooks = await startWebhooks({ db, bus: options.bus, clock, logger, options: options.webhooks });
  const server = await startGrpcServer({
    bind: options.bind,
    logger,
    services: [
      {
        name: TASK_SERVICE_NAME,
        definition: loadProto().proto.vus.task.v1.TaskService.service,
        implementation: taskServiceImplementation({ tasks: taskHandlers(tasks, clock), webhooks: webhooks.handlers }, logger),
      },
    ],
  });
  const stopWatching = watchReadiness(server, () => db.ping());
  let videoBlobs: SubscriptionHandle | undefined;
  if (options.bus && options.blobs) {
    videoBlobs = await options.bus.subscribe({ group: VIDEO_BLOBS_GROUP, types: ['video.deleted'], handler: videoBlobCleanup({ db, blobs: options.blobs, logger }) });
  } else if (options.blobs) {
    logger.warn('no event bus: deleted videos\' media and thumbnails stay in the blob store');
  }
  const worker = options.worker
    ? await startIndexingWorker(db, { ...options.worker, indexServiceAddress: options.indexServiceAddress }, { logger, bus: options.bus, clock, eventsWritten })
    : undefined;

  return {
    address: server.address,
    worker,
    async stop() {
      await worker?.stop();
      await videoBlobs?.stop();
      stopWatching();
      await server.stop();
      await webhooks.stop();
      await relay?.stop();
      index.close();
      await db.close();
    },
  };
}

const configSchema = z.object({
  ...blobEnvShape,
  ...modelsEnvSchema.shape,
  ...workerEnvShape,
  ...webhookEnvShape,
  /** host:port[,host:port] of the Kafka brokers; unset: no event bus (events wait in the outbox). */
  KAFKA_BROKERS: z.string().optional(),
  GRPC_BIND: z.string().default('0.0.0.0:50051'),
  DATABASE_URL: z.string().url(),
  INDEX_SERVICE_ADDR: envAddress,
  MIGRATE_ON_START: envBoolean.default(true),
  LOG_LEVEL: logLevel,
});

/** Cluster mode: one process, configured from the environment (the Helm chart's form). */
if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(configSchema);
    const logger = createLogger({ service: 'task-service', level: config.LOG_LEVEL });
    if (config.WORKER_ENABLED && !config.BLOB_DIR) {
      throw new ConfigError(['BLOB_DIR: the indexing worker reads uploads from the blob store; set it, or WORKER_ENABLED=false.']);
    }
    const blobs = config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined;
    const bus = kafkaBusFromBrokers(config.KAFKA_BROKERS, 'task-service', logger);
    const service = await startTaskService({
      bind: config.GRPC_BIND,
      database: { kind: 'postgres', url: config.DATABASE_URL },
      bus,
      webhooks: webhookOptionsFromEnv(config),
      logger,
      migrateOnStart: config.MIGRATE_ON_START,
      indexServiceAddress: config.INDEX_SERVICE_ADDR,
      blobs,
      worker: config.WORKER_ENABLED && blobs ? workerConfigFromEnv(config, blobs, createModelRegistry(modelsConfigFromEnv(config)), logger) : undefined,
    });
    return {
      async stop() {
        await service.stop();
        await bus?.close();
      },
    };
  });
}
