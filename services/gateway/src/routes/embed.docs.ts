import { z } from 'zod';
import { created, file, ok, paging, type OperationDoc } from '../openapi/operation';
import { id, pageInfo } from '../openapi/shapes';

/**
 * The OpenAPI operations of routes/embed.ts (Embeddings): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

const embedTask = z.looseObject({ _id: id, status: z.enum(['processing', 'ready', 'failed']), created_at: z.string().optional() });
const embedTaskV2 = z.looseObject({
  _id: id,
  status: z.enum(['processing', 'ready', 'failed']),
  data: z.array(z.looseObject({ embedding: z.array(z.number()) })).nullable(),
});

/** POST /embed */
export const embed: OperationDoc = () => ({
  summary: 'Embed a text, an image or audio',
  tag: 'Embeddings',
  body: {
    multipart: z.object({
      text: z.string().optional(),
      image_url: z.string().optional(),
      image_file: file.optional(),
      audio_url: z.string().optional(),
      audio_file: file.optional(),
    }),
    required: true,
  },
  responses: ok(z.looseObject({})),
});

/** POST /embed/tasks */
// Embedding tasks (the embed work's routes): the fields every SDK reads, the rest left open.
export const createEmbedTask: OperationDoc = () => ({
  summary: 'Embed a video (a task)',
  description:
    'engine_name (v1.2) or model_name (v1.3), video_url or video_file, offsets, video_clip_length, video_embedding_scope (repeated).',
  tag: 'Embeddings',
  body: {
    multipart: z.looseObject({
      video_url: z.string().optional(),
      video_file: file.optional(),
      video_clip_length: z.number().optional(),
      video_embedding_scope: z.array(z.enum(['clip', 'video'])).optional(),
    }),
    required: true,
  },
  responses: ok(z.object({ _id: id })),
});

/** GET /embed/tasks */
export const listEmbedTasks: OperationDoc = () => ({
  summary: 'List video embedding tasks (the last 7 days unless dated)',
  tag: 'Embeddings',
  query: {
    page: paging.page,
    page_limit: paging.page_limit,
    started_at: { schema: z.string().optional() },
    ended_at: { schema: z.string().optional() },
    status: { schema: z.string().optional() },
  },
  responses: ok(z.object({ data: z.array(embedTask), page_info: pageInfo })),
});

/** GET /embed/tasks/{task_id}/status */
export const embedTaskStatus: OperationDoc = () => ({
  summary: 'The status of a video embedding task',
  tag: 'Embeddings',
  responses: ok(embedTask),
});

/** GET /embed/tasks/{task_id} */
export const retrieveEmbedTask: OperationDoc = () => ({
  summary: 'A video embedding task and its vectors',
  tag: 'Embeddings',
  responses: ok(embedTask),
});

/** POST /embed-v2/tasks */
export const createEmbedV2Task: OperationDoc = () => ({
  summary: 'Embed a video (Marengo 3.0, a task)',
  tag: 'Embeddings',
  body: { json: z.looseObject({ input_type: z.string(), model_name: z.string() }), required: true },
  responses: created(z.object({ _id: id, status: z.string(), data: z.null() }), 202),
});

/** GET /embed-v2/tasks */
export const listEmbedV2Tasks: OperationDoc = () => ({
  summary: 'List Marengo 3.0 embedding tasks',
  tag: 'Embeddings',
  query: { page: paging.page, page_limit: paging.page_limit },
  responses: ok(z.object({ data: z.array(embedTaskV2), page_info: pageInfo })),
});

/** GET /embed-v2/tasks/{task_id} */
export const retrieveEmbedV2Task: OperationDoc = () => ({
  summary: 'A Marengo 3.0 embedding task and its vectors',
  tag: 'Embeddings',
  responses: ok(embedTaskV2),
});

/** POST /embed-v2 */
export const embedV2: OperationDoc = () => ({
  summary: 'Embed text, an image, text and an image, or media (Marengo 3.0)',
  tag: 'Embeddings',
  body: { json: z.looseObject({ input_type: z.string(), model_name: z.string() }), required: true },
  responses: ok(z.looseObject({ data: z.array(z.looseObject({ embedding: z.array(z.number()) })) })),
});
