import { ApiError, errors, parseInput } from '@vus/core';
import type { AnalyzeTaskSpec__Input } from '@vus/grpc/types/analyze/v1/AnalyzeTaskSpec';
import type { ListAnalyzeTasksRequest__Input } from '@vus/grpc/types/analyze/v1/ListAnalyzeTasksRequest';
import { z } from 'zod';
import { parsePageQuery } from '../http/paging';
import { scalar, type RawQuery } from '../http/query';
import { videoIdOf } from './generate.schema';

/**
 * Requests of routes/analyze-tasks.ts and analyze-batches.ts (twelvelabs-js 1.3.4 `analyzeAsync`):
 * the shapes only; analyze-service checks the values (async-spec.ts: ranges per mode, segment
 * definitions, windows) and answers with the parameter named.
 */

export const ANALYSIS_MODES = ['general', 'time_based_metadata'] as const;
export const TASK_STATUSES = ['queued', 'pending', 'processing', 'ready', 'failed'] as const;
export const BATCH_STATUSES = ['pending', 'processing', 'canceling', 'canceled', 'completed', 'expired'] as const;
export const BATCH_ITEM_STATUSES = ['queued', 'processing', 'ready', 'failed', 'canceled'] as const;

const seconds = z.number({ error: 'expected a number of seconds' });

/** The video: `asset_id` names an indexed video, as for POST /analyze (a URL or base64 video is not indexed). */
export const videoSchema = z.looseObject({
  type: z.enum(['url', 'asset_id', 'base64_string'], { error: 'expected url, asset_id or base64_string' }),
  asset_id: z.string().optional(),
  url: z.string().optional(),
  base64_string: z.string().optional(),
});

/** segment_definitions or json_schema; the values are analyze-service's to check. */
export const responseFormatSchema = z.looseObject({
  type: z.enum(['json_schema', 'segment_definitions'], { error: 'expected json_schema or segment_definitions' }),
  json_schema: z.record(z.string(), z.unknown()).optional(),
  segment_definitions: z
    .array(
      z.looseObject({
        id: z.string(),
        description: z.string(),
        fields: z
          .array(
            z.looseObject({
              name: z.string(),
              type: z.enum(['string', 'boolean', 'number', 'integer', 'array', 'timestamp']),
              description: z.string(),
              format: z.enum(['seconds', 'hh:mm:ss', 'hh:mm:ss.fff']).optional(),
              enum: z.array(z.string()).optional(),
              items: z.object({ type: z.enum(['string', 'boolean', 'number', 'integer']) }).optional(),
            }),
          )
          .optional(),
        time_ranges: z.array(z.object({ start_time: seconds, end_time: seconds })).optional(),
      }),
    )
    .optional(),
  segment_time_format: z.enum(['seconds', 'hh:mm:ss', 'hh:mm:ss.fff']).optional(),
});

/** The options a task and a batch's defaults and items share. */
export const analysisOptions = {
  temperature: z.number({ error: 'expected a number' }).optional(),
  max_tokens: z.int({ error: 'expected an integer' }).optional(),
  response_format: responseFormatSchema.optional(),
  min_segment_duration: seconds.optional(),
  max_segment_duration: seconds.optional(),
  start_time: seconds.optional(),
  end_time: seconds.optional(),
};

/** POST /analyze/tasks */
export const createTaskSchema = z.object({
  model_name: z.string({ error: 'expected a string' }).optional(),
  custom_id: z.string({ error: 'expected a string' }).optional(),
  video: videoSchema,
  prompt: z.string({ error: 'expected a string' }).optional(),
  prompt_v2: z.unknown().optional(),
  analysis_mode: z.enum(ANALYSIS_MODES, { error: 'expected general or time_based_metadata' }).optional(),
  ...analysisOptions,
});

export type AnalysisOptions = z.infer<z.ZodObject<typeof analysisOptions>>;

/** Reference images (prompt_v2, media_sources) need a model that looks at images beside the video's evidence. */
export const referenceImagesNotBuilt = () =>
  new ApiError(
    'not_implemented',
    'Prompts with reference images (prompt_v2, media_sources) are not supported by this server: its analysis reads the indexed evidence of the video. Use prompt.',
  );

/** The indexed video a request names (POST /analyze's rule: video {type: "asset_id", asset_id}). */
export function analyzedVideoId(video: unknown): string {
  if (video === undefined) throw errors.notProvided('video');
  return videoIdOf({ video });
}

/** An AnalyzeTaskSpec from the fields asked (defaults merged by the caller). */
export function specOf(
  fields: AnalysisOptions & { video: unknown; prompt?: string | undefined; custom_id?: string | undefined },
  mode: string,
  modelName: string,
): AnalyzeTaskSpec__Input {
  const set = <K extends string>(key: K, value: number | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    video_id: analyzedVideoId(fields.video),
    analysis_mode: mode,
    model_name: modelName,
    prompt: fields.prompt ?? '',
    custom_id: fields.custom_id ?? '',
    max_tokens: fields.max_tokens ?? 0,
    response_format_json: fields.response_format ? JSON.stringify(fields.response_format) : '',
    ...set('temperature', fields.temperature),
    ...set('min_segment_duration', fields.min_segment_duration),
    ...set('max_segment_duration', fields.max_segment_duration),
    ...set('start_time', fields.start_time),
    ...set('end_time', fields.end_time),
  };
}

export function parseCreateTask(body: unknown): AnalyzeTaskSpec__Input {
  const input = parseInput(createTaskSchema, body ?? {});
  if (input.prompt_v2 !== undefined) throw referenceImagesNotBuilt();
  if (input.video.type === 'asset_id' && input.video.asset_id === undefined) throw errors.notProvided('video.asset_id');
  return specOf(input, input.analysis_mode ?? '', input.model_name ?? '');
}

/** GET /analyze/tasks: the page and the filters; `video_url` matches no task (this server takes none by URL). */
export function parseListTasks(query: RawQuery): { request: ListAnalyzeTasksRequest__Input; byUrl: boolean } {
  const page = parsePageQuery(query);
  const filters = parseInput(
    z.object({
      status: z.enum(TASK_STATUSES, { error: `expected ${TASK_STATUSES.join(', ')}` }).optional(),
      asset_id: z.string().optional(),
      video_url: z.string().optional(),
      analysis_mode: z.enum(ANALYSIS_MODES, { error: 'expected general or time_based_metadata' }).optional(),
    }),
    {
      status: scalar(query, 'status'),
      asset_id: scalar(query, 'asset_id'),
      video_url: scalar(query, 'video_url'),
      analysis_mode: scalar(query, 'analysis_mode'),
    },
  );
  return {
    request: {
      page: page.page,
      page_limit: page.pageLimit,
      status: filters.status ?? '',
      video_id: filters.asset_id ?? '',
      analysis_mode: filters.analysis_mode ?? '',
    },
    byUrl: filters.video_url !== undefined,
  };
}
