import { errors, parseInput } from '@vus/core';
import { MAX_TRANSCRIPTION_BYTES } from '@vus/domain';
import { toMetadataValues } from '@vus/grpc';
import type { CreateTaskRequest__Input } from '@vus/grpc/types/task/v1/CreateTaskRequest';
import type { ListTasksRequest__Input } from '@vus/grpc/types/task/v1/ListTasksRequest';
import { z } from 'zod';
import { looseBoolean, looseJson, firstValue } from '../http/coerce';
import { parsePageQuery } from '../http/paging';
import { list, scalar, type RawQuery } from '../http/query';
import { parseNumberRange, parseTimeRange } from '../http/ranges';
import type { StoredFile } from '../http/upload';
import { named, type VersionAdapter } from '../versions';

/** Multipart parts of POST /tasks that carry files (streamed to the blob store). */
export const TASK_FILE_FIELDS: ReadonlySet<string> = new Set(['video_file', 'transcription_file']);
/** Streamed parts smaller than an upload: a transcription is read whole by the worker. */
export const TASK_FILE_LIMITS: Readonly<Record<string, number>> = { transcription_file: MAX_TRANSCRIPTION_BYTES };

const text = z.preprocess(firstValue, z.string({ error: 'expected a string' }).trim());
const flag = z.preprocess(firstValue, looseBoolean);

const metadataValue = z.union([z.string(), z.number().finite(), z.boolean()]);
export const createSchema = z.object({
  index_id: text.pipe(z.string().min(1, 'expected an index id')),
  video_url: text.optional(),
  transcription_url: text.optional(),
  provide_transcription: flag.optional(),
  language: text.pipe(z.string().max(16, 'expected a language code such as en')).optional(),
  disable_video_stream: flag.optional(),
  enable_video_stream: flag.optional(),
  user_metadata: z
    .preprocess(
      firstValue,
      looseJson(z.record(z.string(), metadataValue, { error: 'expected a JSON object of strings, numbers or booleans' })),
    )
    .optional(),
});

export interface CreateTaskPlan {
  request: CreateTaskRequest__Input;
  /** Stored files the request does not use (the URL won over an uploaded file): remove them. */
  unused: StoredFile[];
}

/**
 * POST /tasks (API-CONTRACT §5.3): `index_id` and `video_file` or `video_url` (the URL wins when
 * both come); a transcription as `transcription_file` or `transcription_url` (≤ v1.2); the
 * version's video stream switch (`disable_video_stream` in v1.2, `enable_video_stream` in v1.3)
 * and, where the version has it, `user_metadata` as a JSON string. The video file is already in
 * the blob store.
 */
export function parseCreateTask(
  version: VersionAdapter,
  fields: unknown,
  files: readonly StoredFile[],
  idempotencyKey: string | undefined,
): CreateTaskPlan {
  const input = parseInput(createSchema, fields);
  const video = files.find((f) => f.field === 'video_file');
  const transcription = files.find((f) => f.field === 'transcription_file');
  if (!input.video_url && !video) throw errors.notProvided('video_file');
  const unused = files.filter((f) => f !== video && f !== transcription);
  if (input.video_url && video) unused.push(video);

  const request: CreateTaskRequest__Input = {
    index_id: input.index_id,
    ...(input.video_url ? { video_url: input.video_url } : { video_blob_key: video!.blobKey }),
    filename: input.video_url ? '' : video!.filename,
    language: input.language ?? '',
    idempotency_key: idempotencyKey ?? '',
  };
  if (input.transcription_url) {
    request.transcription_url = input.transcription_url;
    if (transcription) unused.push(transcription);
  } else if (transcription) {
    request.transcription_blob_key = transcription.blobKey;
  }
  const { videoStreamFlag, acceptsUserMetadata } = version.tasks;
  const streams = input[videoStreamFlag.field];
  if (streams !== undefined) request.enable_video_stream = videoStreamFlag.negated ? !streams : streams;
  if (acceptsUserMetadata && input.user_metadata) request.user_metadata = toMetadataValues(input.user_metadata);
  return { request, unused };
}

/** `status` filters: each of the version's statuses stands for one or more canonical ones. */
function statusFilter(version: VersionAdapter, query: RawQuery): string[] {
  const asked = list(query, 'status') ?? [];
  return [
    ...new Set(
      asked.flatMap((status) => {
        const statuses = named(version.tasks.statuses, status);
        if (!statuses) throw errors.invalid('status', `"${status}" is not a task status.`);
        return statuses;
      }),
    ),
  ];
}

/** GET /tasks query (API-CONTRACT §5.3): paging, ids, index, filename, sizes, dates, status. */
export function parseListTasks(version: VersionAdapter, query: RawQuery): ListTasksRequest__Input {
  const page = parsePageQuery(query);
  return {
    page: { page: page.page, page_limit: page.pageLimit, sort_by: page.sortBy ?? '', sort_option: page.sortOption ?? '' },
    ids: list(query, '_id', 'id') ?? [],
    index_id: scalar(query, 'index_id') ?? '',
    filename: scalar(query, 'filename') ?? '',
    duration: parseNumberRange('duration', query),
    width: parseNumberRange('width', query),
    height: parseNumberRange('height', query),
    created_at: parseTimeRange('created_at', query, 'createdAt'),
    updated_at: parseTimeRange('updated_at', query, 'updatedAt'),
    statuses: statusFilter(version, query),
  };
}

/** GET /tasks/status?index_id= */
export function parseStatusCounts(query: RawQuery): { index_id: string } {
  const indexId = scalar(query, 'index_id');
  if (!indexId) throw errors.notProvided('index_id');
  return { index_id: indexId };
}
