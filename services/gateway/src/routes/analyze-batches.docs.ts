import { z } from 'zod';
import { created, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import { MAX_BATCH_REQUESTS, createBatchSchema } from './analyze-batches.schema';
import { ANALYSIS_MODES, BATCH_ITEM_STATUSES, BATCH_STATUSES } from './analyze-tasks.schema';
import { TAG, taskResult } from './analyze-tasks.docs';

/** The OpenAPI operations of routes/analyze-batches.ts (analysis batches). */

/** AnalyzeBatchStatusResponse */
const batch = z.object({
  batch_id: id,
  analysis_mode: z.enum(ANALYSIS_MODES),
  model_name: z.string(),
  status: z.enum(BATCH_STATUSES),
  total_items: z.int(),
  created_at: z.string(),
  expires_at: z.string().describe('created_at plus 24 hours; items still queued then are canceled.'),
  completed_at: z.string().optional(),
  canceled_at: z.string().optional(),
  expired_at: z.string().optional(),
  queued_items: z.int(),
  processing_items: z.int(),
  ready_items: z.int(),
  failed_items: z.int(),
  canceled_items: z.int(),
});

/** POST /analyze/batches */
export const createBatch: OperationDoc = () => ({
  summary: 'Create an analysis batch',
  description:
    `One analysis task per request, with defaults merged (an item's prompt or response_format replaces the default whole). ` +
    `At most ${MAX_BATCH_REQUESTS} requests per batch (more is refused, not truncated) and 5 batches not yet ended per organization; ` +
    'custom_id values must be unique within a batch. Every request is checked before any task is made.',
  tag: TAG,
  body: { json: createBatchSchema, required: true },
  responses: created(
    z.object({
      batch_id: id,
      status: z.enum(BATCH_STATUSES),
      total_items: z.int(),
      created_at: z.string(),
      expires_at: z.string(),
      items: z.array(z.object({ task_id: id, custom_id: z.string().nullable() })),
    }),
  ),
});

/** GET /analyze/batches */
export const listBatches: OperationDoc = (s) => ({
  summary: 'List analysis batches',
  description: 'Newest first.',
  tag: TAG,
  query: {
    page: paging.page,
    page_limit: paging.page_limit,
    status: { schema: z.array(z.enum(BATCH_STATUSES)).optional(), description: 'Repeat for several statuses.' },
    analysis_mode: { schema: z.array(z.enum(ANALYSIS_MODES)).optional(), description: 'Repeat for several modes.' },
  },
  responses: ok(s.list(batch)),
});

/** GET /analyze/batches/{batch_id} */
export const retrieveBatch: OperationDoc = () => ({
  summary: 'Retrieve an analysis batch',
  description: 'completed means every item ended, not that every item succeeded: read ready_items, failed_items and canceled_items.',
  tag: TAG,
  responses: ok(batch),
});

/** DELETE /analyze/batches/{batch_id} */
export const deleteBatch: OperationDoc = () => ({
  summary: 'Delete an analysis batch and its tasks',
  description: 'Only a completed, canceled or expired batch; others answer 400 parameter_invalid (cancel first).',
  tag: TAG,
  responses: noContent,
});

/** POST /analyze/batches/{batch_id}/cancel */
export const cancelBatch: OperationDoc = () => ({
  summary: 'Cancel an analysis batch',
  description: 'Queued items are canceled at once; items being processed finish. The batch is canceling until they do, then canceled.',
  tag: TAG,
  responses: ok(batch),
});

/** GET /analyze/batches/{batch_id}/results */
export const batchResults: OperationDoc = () => ({
  summary: 'Stream the results of an analysis batch',
  description: 'NDJSON, one line per item in request order; callable while the batch runs.',
  tag: TAG,
  responses: {
    200: {
      description: 'One BatchResultItem per line.',
      ndjson: z.object({
        task_id: id,
        custom_id: z.string().nullable(),
        status: z.enum(BATCH_ITEM_STATUSES),
        data: taskResult.optional(),
        error: z.object({ code: z.string().optional(), message: z.string() }).optional(),
      }),
    },
  },
});
