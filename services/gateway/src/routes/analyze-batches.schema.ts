import { errors, parseInput } from '@vus/core';
import type { CreateAnalyzeBatchRequest__Input } from '@vus/grpc/types/analyze/v1/CreateAnalyzeBatchRequest';
import type { ListAnalyzeBatchesRequest__Input } from '@vus/grpc/types/analyze/v1/ListAnalyzeBatchesRequest';
import { z } from 'zod';
import { parsePageQuery } from '../http/paging';
import { list, type RawQuery } from '../http/query';
import { ANALYSIS_MODES, analysisOptions, BATCH_STATUSES, referenceImagesNotBuilt, specOf } from './analyze-tasks.schema';

/**
 * Requests of routes/analyze-batches.ts. A batch holds at most MAX_BATCH_REQUESTS requests (the
 * reference's limit); a larger one is refused as a whole, before any item is read.
 */
export const MAX_BATCH_REQUESTS = 1_000;

/** BatchPrompt: the prompt's text; reference images are not built. */
const batchPrompt = z.object({
  input_text: z.string({ error: 'expected a string' }),
  media_sources: z.array(z.unknown()).optional(),
});

export const batchDefaultsSchema = z.object({ prompt: batchPrompt.optional(), ...analysisOptions });

export const batchItemSchema = z.object({
  video: z.object({ type: z.literal('asset_id', { error: 'expected asset_id' }), asset_id: z.string({ error: 'expected an asset id' }) }),
  custom_id: z.string({ error: 'expected a string' }).optional(),
  prompt: batchPrompt.optional(),
  ...analysisOptions,
});

/** POST /analyze/batches */
export const createBatchSchema = z.object({
  model_name: z.string({ error: 'expected a string' }),
  analysis_mode: z.enum(ANALYSIS_MODES, { error: 'expected general or time_based_metadata' }),
  defaults: batchDefaultsSchema.optional(),
  requests: z.array(batchItemSchema).min(1, 'expected at least one request'),
});

/** Each item with the defaults it does not override (prompt and response_format replaced whole, as the reference says). */
export function parseCreateBatch(body: unknown): CreateAnalyzeBatchRequest__Input {
  const requests = (body as { requests?: unknown } | undefined)?.requests;
  if (Array.isArray(requests) && requests.length > MAX_BATCH_REQUESTS)
    throw errors.invalid(
      'requests',
      `A batch holds at most ${MAX_BATCH_REQUESTS} requests; this one has ${requests.length}. Split it into several batches.`,
    );
  const input = parseInput(createBatchSchema, body ?? {});
  const defaults = input.defaults ?? {};
  if (defaults.prompt?.media_sources !== undefined || input.requests.some((r) => r.prompt?.media_sources !== undefined))
    throw referenceImagesNotBuilt();
  return {
    model_name: input.model_name,
    analysis_mode: input.analysis_mode,
    items: input.requests.map((item) => {
      const merged = { ...defaults, ...Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined)) };
      return specOf(
        { ...merged, video: item.video, prompt: (item.prompt ?? defaults.prompt)?.input_text },
        input.analysis_mode,
        input.model_name,
      );
    }),
  };
}

/** GET /analyze/batches: the page and `status` / `analysis_mode`, each repeated or comma-separated. */
export function parseListBatches(query: RawQuery): ListAnalyzeBatchesRequest__Input {
  const page = parsePageQuery(query);
  const statuses = parseInput(
    z.array(z.enum(BATCH_STATUSES, { error: `expected ${BATCH_STATUSES.join(', ')}` })),
    list(query, 'status') ?? [],
  );
  const modes = parseInput(
    z.array(z.enum(ANALYSIS_MODES, { error: 'expected general or time_based_metadata' })),
    list(query, 'analysis_mode') ?? [],
  );
  return { page: page.page, page_limit: page.pageLimit, statuses, analysis_modes: modes };
}
