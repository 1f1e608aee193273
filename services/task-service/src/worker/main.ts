import { blobEnvShape, openBlobStore } from '@vus/blob';
import { ConfigError, createLogger, envAddress, loadConfig, logLevel, runMain } from '@vus/core';
import { Database } from '@vus/db';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { z } from 'zod';
import { workerConfigFromEnv, workerEnvShape } from './config';
import { startIndexingWorker } from './start';

/**
 * A process that only indexes: the same worker as inside task-service, on task-service's database
 * (already migrated by task-service). Scale indexing apart from the API with more of these.
 */
const configSchema = z.object({
  ...blobEnvShape,
  ...modelsEnvSchema.shape,
  ...workerEnvShape,
  DATABASE_URL: z.string().url(),
  INDEX_SERVICE_ADDR: envAddress,
  LOG_LEVEL: logLevel,
});

if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(configSchema);
    if (!config.BLOB_DIR) throw new ConfigError(['BLOB_DIR: the indexing worker reads uploads from the blob store; set it.']);
    const logger = createLogger({ service: 'indexing-worker', level: config.LOG_LEVEL });
    const db = await Database.open({ kind: 'postgres', url: config.DATABASE_URL });
    const blobs = await openBlobStore({ kind: 'fs', root: config.BLOB_DIR });
    const models = createModelRegistry(modelsConfigFromEnv(config));
    const running = await startIndexingWorker(
      db,
      { ...workerConfigFromEnv(config, blobs, models, logger), indexServiceAddress: config.INDEX_SERVICE_ADDR },
      // No bus in this process: the poll finds new tasks; task-service's relay publishes the events.
      { logger, eventsWritten: () => undefined },
    );
    return {
      async stop() {
        await running.stop();
        await models.dispose();
        await db.close();
      },
    };
  });
}
