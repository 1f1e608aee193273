import { envAddress } from '@vus/core';
import { z } from 'zod';
import type { ClassifyServiceOptions } from './main';

/** classify-service's environment beside the kit's. */
export const classifyEnvShape = {
  INDEX_SERVICE_ADDR: envAddress,
  SEARCH_SERVICE_ADDR: envAddress,
  CLASSIFY_PAGE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(3600),
};

export function classifyOptionsFromEnv(config: z.infer<z.ZodObject<typeof classifyEnvShape>>): ClassifyServiceOptions {
  return {
    indexServiceAddress: config.INDEX_SERVICE_ADDR,
    searchServiceAddress: config.SEARCH_SERVICE_ADDR,
    pageTtlSeconds: config.CLASSIFY_PAGE_TTL_SECONDS,
  };
}
