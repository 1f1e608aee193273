import { envAddress } from '@vus/core';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { z } from 'zod';
import type { SearchServiceOptions } from './main';

/** search-service's environment beside the kit's (MODELS_DIR: CLIP for vector queries). */
export const searchEnvShape = {
  ...modelsEnvSchema.shape,
  INDEX_SERVICE_ADDR: envAddress,
  SEARCH_PAGE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(3600),
};

export function searchOptionsFromEnv(config: z.infer<z.ZodObject<typeof searchEnvShape>>): SearchServiceOptions {
  return {
    indexServiceAddress: config.INDEX_SERVICE_ADDR,
    models: createModelRegistry(modelsConfigFromEnv(config)),
    pageTtlSeconds: config.SEARCH_PAGE_TTL_SECONDS,
  };
}
