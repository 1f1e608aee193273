import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { ConfigError, envAddress, type Logger } from '@vus/core';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import type { z } from 'zod';
import { webhookEnvShape, webhookOptionsFromEnv, type WebhookOptions } from './webhooks/start';
import type { IndexingWorkerConfig } from './worker/start';
import { workerConfigFromEnv, workerEnvShape } from './worker/config';

/** task-service's environment beside the kit's: the blob store, the worker, webhooks. */
export const taskEnvShape = {
  ...blobEnvShape,
  ...modelsEnvSchema.shape,
  ...workerEnvShape,
  ...webhookEnvShape,
  INDEX_SERVICE_ADDR: envAddress,
};

export async function taskOptionsFromEnv(
  config: z.infer<z.ZodObject<typeof taskEnvShape>>,
  { logger }: { logger: Logger },
): Promise<TaskServiceOptions> {
  if (config.WORKER_ENABLED && !config.BLOB_DIR) {
    throw new ConfigError(['BLOB_DIR: the indexing worker reads uploads from the blob store; set it, or WORKER_ENABLED=false.']);
  }
  const blobs = config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined;
  return {
    indexServiceAddress: config.INDEX_SERVICE_ADDR,
    webhooks: webhookOptionsFromEnv(config),
    blobs,
    worker:
      config.WORKER_ENABLED && blobs
        ? workerConfigFromEnv(config, blobs, createModelRegistry(modelsConfigFromEnv(config)), logger)
        : undefined,
  };
}

export interface TaskServiceOptions {
  indexServiceAddress: string;
  /** The store the gateway and index-service share: failed tasks' uploads and deleted videos' media files are removed from it. */
  blobs?: BlobStore | undefined;
  /** Runs the indexing worker in this process (embedded mode; or set WORKER_ENABLED in cluster mode). */
  worker?: Omit<IndexingWorkerConfig, 'indexServiceAddress'> | undefined;
  /** Webhook endpoints, the fan-out of task events to deliveries, the dispatcher (on by default). */
  webhooks?: WebhookOptions | undefined;
}
