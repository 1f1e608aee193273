import { blobEnvShape, openBlobStore } from '@vus/blob';
import { ConfigError, envAddress } from '@vus/core';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { defineWorker, runWorker } from '@vus/service';
import { taskService } from '../main';
import { workerConfigFromEnv, workerEnvShape } from './config';
import { startIndexingWorker } from './start';

/**
 * A process that only indexes: the same worker as inside task-service, on task-service's database
 * (already migrated by task-service). Scale indexing apart from the API with more of these; the
 * API's replicas then run with WORKER_ENABLED=false. With KAFKA_BROKERS, `task.created` wakes it at
 * once; without, it polls (WORKER_POLL_MS).
 */
export const indexingWorker = defineWorker({
  name: 'indexing-worker',
  // On task-service's database: started before task-service has migrated it, it waits.
  service: taskService,
  env: { ...blobEnvShape, ...modelsEnvSchema.shape, ...workerEnvShape, INDEX_SERVICE_ADDR: envAddress },
  async fromEnv(config, { logger }) {
    if (!config.BLOB_DIR) throw new ConfigError(['BLOB_DIR: the indexing worker reads uploads from the blob store; set it.']);
    const blobs = await openBlobStore({ kind: 'fs', root: config.BLOB_DIR });
    const models = createModelRegistry(modelsConfigFromEnv(config));
    return { ...workerConfigFromEnv(config, blobs, models, logger), indexServiceAddress: config.INDEX_SERVICE_ADDR };
  },
  async build({ db, bus, clock, logger, eventsWritten, onStop }, config) {
    onStop(() => config.models.dispose());
    const start = () => startIndexingWorker(db, config, { logger, bus, clock, eventsWritten });
    return { jobs: [{ name: 'indexing-worker', start }] };
  },
});

if (require.main === module) runWorker(indexingWorker);
