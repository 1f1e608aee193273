import { blobEnvShape, openBlobStore } from '@vus/blob';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { z } from 'zod';
import type { EmbedServiceOptions } from './main';

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
