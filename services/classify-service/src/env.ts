import { envAddress } from '@vus/core';
import { resultSetTtlSecondsEnv } from '@vus/service';
import type { z } from 'zod';

export interface ClassifyServiceOptions {
  /** index-service: the videos (their index and duration). */
  indexServiceAddress: string;
  /** search-service: each prompt's clips. */
  searchServiceAddress: string;
  /** How long result pages stay readable (the real API: about an hour). */
  pageTtlSeconds?: number | undefined;
}

/** classify-service's environment beside the kit's. */
export const classifyEnvShape = {
  INDEX_SERVICE_ADDR: envAddress,
  SEARCH_SERVICE_ADDR: envAddress,
  CLASSIFY_PAGE_TTL_SECONDS: resultSetTtlSecondsEnv,
};

export function classifyOptionsFromEnv(config: z.infer<z.ZodObject<typeof classifyEnvShape>>): ClassifyServiceOptions {
  return {
    indexServiceAddress: config.INDEX_SERVICE_ADDR,
    searchServiceAddress: config.SEARCH_SERVICE_ADDR,
    pageTtlSeconds: config.CLASSIFY_PAGE_TTL_SECONDS,
  };
}
