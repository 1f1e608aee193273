import { parseInput, sortAndPaging, type Clock, knownId, pageRequestSchema } from '@vus/core';
import {
  fromNumberRange,
  fromRecordFilter,
  plainMetadataValues,
  requireOrg,
  toMetadataValues,
  toTimestamp,
  type AsyncHandlers,
} from '@vus/grpc';
import type { Task__Input } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import { z } from 'zod';
import { estimateCompletion } from './estimate';
import { TASK_STATUSES } from './status';
import type { TaskRecord, TaskService } from './tasks';

/** The task RPCs of TaskService (CreateTask … GetTaskStatusCounts): thin, validated again here. */
export type TaskHandlers = Pick<
  AsyncHandlers<TaskServiceHandlers>,
  'CreateTask' | 'GetTask' | 'ListTasks' | 'DeleteTask' | 'GetTaskStatusCounts'
>;

const createSchema = z.object({
  index_id: z.string(),
  video: z.enum(['video_blob_key', 'video_url'], { error: 'either video_blob_key or video_url is required' }),
  video_blob_key: z.string().min(1).optional(),
  video_url: z.string().min(1).optional(),
  transcription: z.enum(['transcription_blob_key', 'transcription_url']).optional(),
  transcription_blob_key: z.string().min(1).optional(),
  transcription_url: z.string().min(1).optional(),
  language: z.string().max(16),
  filename: z.string().max(1024),
  idempotency_key: z.string().max(256),
});

const listSchema = z.object({ page: pageRequestSchema, statuses: z.array(z.enum(TASK_STATUSES)) });

const taskId = (raw: string) => knownId('Task', raw);

export function toProtoTask(task: TaskRecord, now: Date): Task__Input {
  const completion = estimateCompletion(task, now);
  return {
    id: task.id,
    index_id: task.indexId,
    video_id: task.videoId,
    status: task.status,
    failure: task.failure && { code: task.failure.code, message: task.failure.message },
    system_metadata: task.system ?? { filename: task.filename },
    // remain_seconds is 0 while it cannot be told yet (the field has no "unknown").
    process: task.status === 'indexing' ? { percentage: task.progress, remain_seconds: completion?.remainSeconds ?? 0 } : null,
    estimated_time: completion ? toTimestamp(completion.estimatedAt) : null,
    // Blob keys: the gateway signs them into URLs. A task that failed while its stream was being
    // made will never finish it.
    hls: task.hls && {
      video_url: task.hls.videoKey ?? '',
      thumbnail_urls: task.hls.thumbnailKeys,
      status: task.status === 'failed' && task.hls.status === 'PROCESSING' ? 'CANCELED' : task.hls.status,
      updated_at: toTimestamp(task.hls.updatedAt),
    },
    user_metadata: toMetadataValues(task.userMetadata),
    created_at: toTimestamp(task.createdAt),
    updated_at: toTimestamp(task.updatedAt),
    status_history: task.history.map((h) => ({ status: h.status, at: toTimestamp(h.at) })),
    extractors_run: task.extractors.ran,
    extractors_skipped: task.extractors.skipped,
  };
}

export function taskHandlers(tasks: TaskService, clock: Clock): TaskHandlers {
  return {
    async CreateTask(request, ctx) {
      const input = parseInput(createSchema, request);
      const task = await tasks.create(requireOrg(ctx), {
        indexId: input.index_id,
        source:
          input.video === 'video_url'
            ? { kind: 'url', url: input.video_url ?? '' }
            : { kind: 'upload', blobKey: input.video_blob_key ?? '' },
        transcription:
          input.transcription === 'transcription_url'
            ? { kind: 'url', url: input.transcription_url ?? '' }
            : input.transcription === 'transcription_blob_key'
              ? { kind: 'upload', blobKey: input.transcription_blob_key ?? '' }
              : null,
        language: input.language || null,
        enableVideoStream: request.enable_video_stream ?? true,
        userMetadata: plainMetadataValues('user_metadata', request.user_metadata, { allowNull: false }),
        filename: input.filename,
        idempotencyKey: input.idempotency_key || null,
      });
      return toProtoTask(task, clock.now());
    },
    async GetTask(request, ctx) {
      return toProtoTask(await tasks.get(requireOrg(ctx), taskId(request.task_id)), clock.now());
    },
    async ListTasks(request, ctx) {
      const input = parseInput(listSchema, request);
      const { sort, paging } = sortAndPaging(input.page);
      const filter = {
        ...fromRecordFilter(request),
        indexId: request.index_id || undefined,
        filename: request.filename || undefined,
        duration: fromNumberRange(request.duration),
        width: fromNumberRange(request.width),
        height: fromNumberRange(request.height),
        statuses: input.statuses.length ? input.statuses : undefined,
      };
      const result = await tasks.list(requireOrg(ctx), filter, sort, paging);
      const now = clock.now();
      return { data: result.data.map((t) => toProtoTask(t, now)), page_info: result.pageInfo };
    },
    async DeleteTask(request, ctx) {
      await tasks.delete(requireOrg(ctx), taskId(request.task_id));
      return {};
    },
    async GetTaskStatusCounts(request, ctx) {
      const counts = await tasks.statusCounts(requireOrg(ctx), request.index_id);
      const { total, ...byStatus } = counts;
      return { index_id: request.index_id, ...byStatus, total_result: total };
    },
  };
}
