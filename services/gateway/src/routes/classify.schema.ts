import { errors, knownId, parseInput } from '@vus/core';
import type { ClassifyBulkRequest__Input } from '@vus/grpc/types/classify/v1/ClassifyBulkRequest';
import type { ClassifyRequest__Input } from '@vus/grpc/types/classify/v1/ClassifyRequest';
import type { ClassifyThreshold__Input } from '@vus/grpc/types/classify/v1/ClassifyThreshold';
import { z } from 'zod';
import { looseBoolean, looseInt, looseList } from '../http/coerce';
import type { ClassifyShape, VersionAdapter } from '../versions';
import { parseConversationOption } from './combined-query.schema';
import { canonicalSearchOptions } from './search.schema';

const classSchema = z.object({
  name: z.string({ error: 'expected a string' }).trim().min(1, 'expected a name').max(200, 'at most 200 characters'),
  prompts: z.array(z.string({ error: 'expected a string' }).max(1000, 'at most 1,000 characters'), { error: 'expected a list of prompts' }),
  options: looseList(z.string()).optional(),
  conversation_option: z.string().optional(),
});

const score = (max: number) =>
  z.number({ error: 'expected a number' }).min(0, `expected 0 to ${max}`).max(max, `expected 0 to ${max}`).optional();

/** The fields every classify request has, whatever the version names its classes and videos. */
export const classifyFields = z.object({
  options: looseList(z.string()).optional(),
  conversation_option: z.string().optional(),
  page_limit: looseInt.pipe(z.number().min(1, 'expected 1 to 50').max(50, 'expected 1 to 50')).optional(),
  include_clips: looseBoolean.optional(),
  show_detailed_score: looseBoolean.optional(),
  threshold: z
    .union(
      [
        z.object({ min_video_score: score(100), min_clip_score: score(100), min_duration_ratio: score(1) }).strict(),
        // v1.1.1: one integer, the least score a class must have.
        z.number().int('expected an integer').min(0, 'expected 0 to 100').max(100, 'expected 0 to 100'),
        // v1.1: the least confidence of the clips that count.
        z.enum(['high', 'medium', 'low']),
      ],
      { error: 'expected {min_video_score, min_clip_score, min_duration_ratio}, an integer score or high, medium or low' },
    )
    .optional(),
});

/** How the request named its classes (the answer uses the same key) and its videos. */
export interface ClassifyNames {
  classesKey: 'labels' | 'classes';
  /** A single `video_id` (v1.1, v1.1.1): answered unwrapped, `{video_id, classes}`. */
  singleVideo: boolean;
}

/**
 * The key holding the classes: the version's, and on v1.1 (whose URL its revisions share) either
 * name (API-CONTRACT §5.6: serve the union there).
 */
function classesKeyOf(shape: ClassifyShape, body: Record<string, unknown>): 'labels' | 'classes' {
  if (shape.classesField === 'classes' || shape.videos === 'video_ids') return 'classes';
  return body.labels === undefined && body.classes !== undefined ? 'classes' : 'labels';
}

function thresholdOf(threshold: z.infer<typeof classifyFields>['threshold']): ClassifyThreshold__Input | null {
  if (threshold === undefined) return null;
  if (typeof threshold === 'number') return { min_video_score: threshold };
  if (typeof threshold === 'string') return { min_confidence: threshold };
  return threshold;
}

function commonRequest(version: VersionAdapter, shape: ClassifyShape, body: Record<string, unknown>) {
  const input = parseInput(classifyFields, body);
  const classesKey = classesKeyOf(shape, body);
  const rawClasses = body[classesKey];
  if (rawClasses === undefined || (Array.isArray(rawClasses) && rawClasses.length === 0)) throw errors.notProvided(classesKey);
  const classes = parseInput(
    z.object({ [classesKey]: z.array(classSchema, { error: 'expected a list of classes' }).max(100, 'at most 100 classes') }),
    body,
  )[classesKey]!;
  if (!input.options || input.options.length === 0) throw errors.notProvided('options');
  return {
    classesKey,
    request: {
      classes: classes.map((c, i) => ({
        name: c.name,
        prompts: c.prompts,
        options: c.options ? canonicalSearchOptions(version, c.options, `${classesKey}[${i}].options`) : [],
        conversation_option:
          c.conversation_option !== undefined
            ? parseConversationOption(c.conversation_option, `${classesKey}[${i}].conversation_option`)
            : '',
      })),
      options: canonicalSearchOptions(version, input.options, 'options'),
      conversation_option: input.conversation_option !== undefined ? parseConversationOption(input.conversation_option) : '',
      threshold: thresholdOf(input.threshold),
      show_detailed_score: input.show_detailed_score ?? false,
      include_clips: input.include_clips ?? false,
      page_limit: input.page_limit ?? 0,
    },
  };
}

const videoIdOf = (raw: unknown, param: string) => {
  if (typeof raw !== 'string') throw errors.invalid(param, 'Expected a video id.');
  return knownId('Video', raw.trim());
};

/** POST /classify: the videos (`video_ids`, or v1.1's one `video_id`) and the classes. */
export function parseClassify(
  version: VersionAdapter,
  shape: ClassifyShape,
  body: Record<string, unknown>,
): { request: ClassifyRequest__Input; names: ClassifyNames } {
  const { classesKey, request } = commonRequest(version, shape, body);
  const single = shape.videos === 'video_id' && body.video_ids === undefined;
  let videoIds: string[];
  if (single) {
    if (body.video_id === undefined) throw errors.notProvided('video_id');
    videoIds = [videoIdOf(body.video_id, 'video_id')];
  } else {
    const raw = body.video_ids;
    if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) throw errors.notProvided('video_ids');
    if (!Array.isArray(raw)) throw errors.invalid('video_ids', 'Expected a list of video ids.');
    if (raw.length > 1000) throw errors.invalid('video_ids', 'At most 1,000 videos are classified per request.');
    videoIds = raw.map((id) => videoIdOf(id, 'video_ids'));
  }
  return { request: { ...request, video_ids: videoIds }, names: { classesKey, singleVideo: single } };
}

/** POST /classify/bulk: every video of `index_id`. */
export function parseClassifyBulk(
  version: VersionAdapter,
  shape: ClassifyShape,
  body: Record<string, unknown>,
): { request: ClassifyBulkRequest__Input; names: ClassifyNames } {
  const { classesKey, request } = commonRequest(version, shape, body);
  if (body.index_id === undefined || body.index_id === '') throw errors.notProvided('index_id');
  if (typeof body.index_id !== 'string') throw errors.invalid('index_id', 'Expected an index id.');
  return { request: { ...request, index_id: knownId('Index', body.index_id.trim()) }, names: { classesKey, singleVideo: false } };
}
