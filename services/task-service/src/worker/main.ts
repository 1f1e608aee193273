import { blobEnvShape, openBlobStore } from '@vus/blob';
import { ConfigError, createLogger, envAddress, loadConfig, logLevel, runMain } from '@vus/core';
import { Database } from '@vus/db';
import { kafkaBusFromBrokers } from '@vus/events';
import { startGrpcServer, useInternalSecret } from '@vus/grpc';
import { internalSecretEnv } from '@vus/service';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { z } from 'zod';
import { workerConfigFromEnv, workerEnvShape } from './config';
import { startIndexingWorker } from './start';

/**
 * A process that only indexes: the same worker as inside task-service, on task-service's database
 * (already migrated by task-service). Scale indexing apart from the API with more of these; the
 * API's replicas then run with WORKER_ENABLED=false.
 */
const configSchema = z.object({
  ...blobEnvShape,
  ...modelsEnvSchema.shape,
  ...workerEnvShape,
  DATABASE_URL: z.string().url(),
  INDEX_SERVICE_ADDR: envAddress,
  /** Brokers of the event bus: `task.created` wakes the worker at once; unset, it polls (WORKER_POLL_MS). */
  KAFKA_BROKERS: z.string().optional(),
  /** Serves grpc.health.v1 only (liveness and readiness probes: the process answers); unset, none. */
  GRPC_BIND: z.string().optional(),
  /** The deployment's secret for calls to the services (they refuse calls without it). */
  INTERNAL_GRPC_SECRET: internalSecretEnv,
  LOG_LEVEL: logLevel,
});

if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(configSchema);
    useInternalSecret(config.INTERNAL_GRPC_SECRET);
    if (!config.BLOB_DIR) throw new ConfigError(['BLOB_DIR: the indexing worker reads uploads from the blob store; set it.']);
    const logger = createLogger({ service: 'indexing-worker', level: config.LOG_LEVEL });
    const db = await Database.open({ kind: 'postgres', url: config.DATABASE_URL });
    const blobs = await openBlobStore({ kind: 'fs', root: config.BLOB_DIR });
    const models = createModelRegistry(modelsConfigFromEnv(config));
    const bus = kafkaBusFromBrokers(config.KAFKA_BROKERS, 'indexing-worker', logger);
    const running = await startIndexingWorker(
      db,
      { ...workerConfigFromEnv(config, blobs, models, logger), indexServiceAddress: config.INDEX_SERVICE_ADDR },
      // The bus only wakes the worker; the events it writes are published by task-service's relay.
      { logger, bus, eventsWritten: () => undefined },
    );
    const health = config.GRPC_BIND ? await startGrpcServer({ bind: config.GRPC_BIND, services: [], logger }) : undefined;
    return {
      async stop() {
        await health?.stop();
        await running.stop();
        await bus?.close();
        await models.dispose();
        await db.close();
      },
    };
  });
}
