import { envAddress } from '@vus/core';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema, type ModelRegistry } from '@vus/models';
import { z } from 'zod';

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

export interface SearchServiceOptions {
  indexServiceAddress: string;
  models?: ModelRegistry | undefined;
  /** How long result pages stay readable (the real API: about an hour). */
  pageTtlSeconds?: number;
  /** Hosts a query_media_url may reach even on private addresses (tests serve images on 127.0.0.1). */
  fetchAllowHosts?: readonly string[];
}
