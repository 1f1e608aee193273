import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema, type ModelRegistry } from '@vus/models';
import { z } from 'zod';

/** embed-service's environment beside the kit's: MODELS_DIR, the blob store of task uploads, FETCH_ALLOW_HOSTS. */
export const embedEnvShape = { ...modelsEnvSchema.shape, ...blobEnvShape, FETCH_ALLOW_HOSTS: z.string().optional() };

export async function embedOptionsFromEnv(config: z.infer<z.ZodObject<typeof embedEnvShape>>): Promise<EmbedServiceOptions> {
  return {
    models: createModelRegistry(modelsConfigFromEnv(config)),
    fetchAllowHosts: (config.FETCH_ALLOW_HOSTS ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter(Boolean),
    blobs: config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined,
  };
}

export interface EmbedServiceOptions {
  /** The bundled detector and OCR (and a speech recogniser when MODELS_DIR has one). Embedded mode shares the process's registry. */
  models: ModelRegistry;
  /** Hosts a media URL may reach even on private addresses (tests serve media on 127.0.0.1). */
  fetchAllowHosts?: readonly string[];
  /** The blob store the gateway puts embed-task uploads in; without one, tasks take URLs only. */
  blobs?: BlobStore | undefined;
  /** How often the task runner looks for work without being woken. */
  taskPollMs?: number;
}
