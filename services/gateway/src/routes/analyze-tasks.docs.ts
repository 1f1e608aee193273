import { z } from 'zod';
import { created, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import { ANALYSIS_MODES, createTaskSchema, responseFormatSchema, TASK_STATUSES } from './analyze-tasks.schema';

/**
 * The OpenAPI operations of routes/analyze-tasks.ts (asynchronous analysis tasks), one per
 * endpoint, and the shapes routes/analyze-batches.docs.ts shares (openapi/operation.ts says what an
 * operation holds).
 */

export const TAG = 'Analyze (asynchronous)';

const usage = z.object({ output_tokens: z.int(), input_tokens: z.int().optional() });

/** AnalyzeTaskResult: the text (general), or the segments as JSON text keyed by definition id (time_based_metadata). */
export const taskResult = z.object({
  generation_id: z.string(),
  data: z.string(),
  finish_reason: z.enum(['stop', 'length']),
  usage,
});

/** A task as presenters/analyze-tasks.ts writes it (AnalyzeTaskResponse). */
const task = z.object({
  task_id: id,
  custom_id: z.string().nullable(),
  video_source: z.object({
    type: z.literal('asset_id'),
    asset_id: id,
    system_metadata: z.object({ duration: z.number() }).optional(),
  }),
  request_params: z.object({
    analysis_mode: z.enum(ANALYSIS_MODES),
    prompt: z.string().optional().describe('general only; a list shows its first 30 characters.'),
    response_format: responseFormatSchema.optional(),
    temperature: z.number().optional(),
    max_tokens: z.int().optional(),
    min_segment_duration: z.number().optional(),
    max_segment_duration: z.number().optional(),
    start_time: z.number().optional(),
    end_time: z.number().optional(),
  }),
  status: z
    .enum(TASK_STATUSES)
    .describe(
      'queued until a worker takes it, then processing, then ready or failed. An item of a canceled or expired batch reads as failed.',
    ),
  created_at: z.string(),
  completed_at: z.string().optional(),
  result: taskResult.optional(),
  error: z
    .object({ message: z.string() })
    .optional()
    .describe('Why it failed; or, when ready with finish_reason length, the truncation notice.'),
});

/** POST /analyze/tasks */
export const createTask: OperationDoc = () => ({
  summary: 'Create an asynchronous analysis task',
  description:
    'video {type: "asset_id", asset_id} names an indexed video in an index with a Pegasus engine (as for POST /analyze); a URL or base64 video is refused. ' +
    'analysis_mode general needs prompt (response_format json_schema optional); time_based_metadata needs response_format segment_definitions. ' +
    'max_tokens: general 512-98,304 (default 4,096), time_based_metadata 2,048-98,304 (default 32,768); at most 4,096 tokens are generated for a general task. ' +
    'prompt_v2 and media_sources (reference images) answer 501. Poll GET /analyze/tasks/{task_id} until ready or failed.',
  tag: TAG,
  body: { json: createTaskSchema, required: true },
  responses: created(z.object({ task_id: id, status: z.enum(TASK_STATUSES) })),
});

/** GET /analyze/tasks */
export const listTasks: OperationDoc = (s) => ({
  summary: 'List asynchronous analysis tasks',
  description: 'Newest first. video_url matches no task: this server analyzes indexed videos only.',
  tag: TAG,
  query: {
    page: paging.page,
    page_limit: paging.page_limit,
    status: { schema: z.enum(TASK_STATUSES).optional() },
    asset_id: { schema: id.optional() },
    video_url: { schema: z.string().optional() },
    analysis_mode: { schema: z.enum(ANALYSIS_MODES).optional() },
  },
  responses: ok(s.list(task)),
});

/** GET /analyze/tasks/{task_id} */
export const retrieveTask: OperationDoc = () => ({ summary: 'Retrieve an analysis task and its result', tag: TAG, responses: ok(task) });

/** DELETE /analyze/tasks/{task_id} */
export const deleteTask: OperationDoc = () => ({
  summary: 'Delete an analysis task',
  description: 'Refused (400 parameter_invalid) while the task is processing.',
  tag: TAG,
  responses: noContent,
});
