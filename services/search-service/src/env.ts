import { envAddress } from '@vus/core';
import { resultSetTtlSecondsEnv } from '@vus/service';
import { z } from 'zod';
import type { TaskServiceAddress } from './entity-parts';

/** Segments held in memory by default (resident/: about 0.6 KB each with their postings: 1,000,000 ≈ 570 MB). */
export const DEFAULT_RESIDENT_SEGMENTS = 1_000_000;

/** search-service's environment beside the kit's (EMBED_SERVICE_ADDR: query vectors; unset, searches are lexical). */
export const searchEnvShape = {
  INDEX_SERVICE_ADDR: envAddress,
  EMBED_SERVICE_ADDR: envAddress.optional(),
  /** task-service: entities' reference faces for entity search; unset, a query naming an entity answers 501. */
  TASK_SERVICE_ADDR: envAddress.optional(),
  SEARCH_PAGE_TTL_SECONDS: resultSetTtlSecondsEnv,
  /** Segments of searched indexes held in the process (resident/); 0: every search reads the database. */
  SEARCH_RESIDENT_SEGMENTS: z.coerce.number().int().min(0).default(DEFAULT_RESIDENT_SEGMENTS),
};

export function searchOptionsFromEnv(config: z.infer<z.ZodObject<typeof searchEnvShape>>): SearchServiceOptions {
  return {
    indexServiceAddress: config.INDEX_SERVICE_ADDR,
    embedServiceAddress: config.EMBED_SERVICE_ADDR,
    taskServiceAddress: config.TASK_SERVICE_ADDR,
    pageTtlSeconds: config.SEARCH_PAGE_TTL_SECONDS,
    residentSegments: config.SEARCH_RESIDENT_SEGMENTS,
  };
}

export interface SearchServiceOptions {
  indexServiceAddress: string;
  /** embed-service, the model server: query vectors (CLIP) and image labels; unset, searches are lexical. */
  embedServiceAddress?: string | undefined;
  /** task-service: entities' reference faces (entity search); unset, entity search answers 501. */
  taskServiceAddress?: TaskServiceAddress | undefined;
  /** How long result pages stay readable (the real API: about an hour). */
  pageTtlSeconds?: number;
  /** Segments of searched indexes held in the process (resident/); 0: none. Default DEFAULT_RESIDENT_SEGMENTS. */
  residentSegments?: number;
  /** Called when an index has been loaded into memory (benches). */
  onResidentLoaded?: ((orgId: string, indexId: string) => void) | undefined;
  /** Hosts a query_media_url may reach even on private addresses (tests serve images on 127.0.0.1). */
  fetchAllowHosts?: readonly string[];
}
