/**
 * Payloads of the events that cross service boundaries: the producer writes exactly this, every
 * consumer reads exactly this. (The envelope around them is EventEnvelope.)
 */
import { TASK_STATUSES, type TaskStatus } from '@vus/core';

export { TASK_STATUSES, type TaskStatus } from '@vus/core';

/** `task.status-changed`, keyed by the task id, one per transition (including the first). */
export interface TaskStatusChangedPayload {
  task_id: string;
  index_id: string;
  video_id: string;
  status: TaskStatus;
  /** null for the task's first status. */
  previous_status: TaskStatus | null;
  /** Only when `status` is failed (absent or null otherwise); `code` is from the error catalogue. */
  failure?: { code: string; message: string } | null;
  [field: string]: unknown;
}

export function isTaskStatusChanged(payload: Record<string, unknown>): payload is TaskStatusChangedPayload {
  return (
    typeof payload.task_id === 'string' &&
    typeof payload.status === 'string' &&
    (TASK_STATUSES as readonly string[]).includes(payload.status)
  );
}

/**
 * `video.deleted`, keyed by the video id, one per deleted video (also each video of a deleted
 * index). Consumers drop what they hold for it: search-service its segments, task-service its blobs.
 */
export interface VideoDeletedPayload {
  index_id: string;
  video_id: string;
  /** The media file and every thumbnail index-service knew of. */
  blob_keys: string[];
  reason: 'video_deleted' | 'index_deleted';
  [field: string]: unknown;
}

export function isVideoDeleted(payload: Record<string, unknown>): payload is VideoDeletedPayload {
  return (
    typeof payload.index_id === 'string' &&
    typeof payload.video_id === 'string' &&
    Array.isArray(payload.blob_keys) &&
    payload.blob_keys.every((key) => typeof key === 'string')
  );
}
