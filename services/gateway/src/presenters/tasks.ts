import { fromTimestamp } from '@vus/grpc';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskStatusCounts } from '@vus/grpc/types/task/v1/TaskStatusCounts';
import type { ApiVersion } from '../versions';
import { presentHls, type HlsUrlOf } from './videos';

const iso = (ts: Task['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/** v1.2 knows neither `uploading` nor `queued`: each shows as its nearest status. */
const V12_STATUS: Record<string, string> = { uploading: 'validating', queued: 'pending' };

export function presentStatus(version: ApiVersion, status: string): string {
  return version === 'v1.3' ? status : (V12_STATUS[status] ?? status);
}

/** filename, duration, width, height: what the task shows of the video (py 0.2 requires the object). */
function taskMetadata(task: Task): Record<string, unknown> {
  const system = task.system_metadata;
  const validated = (system?.duration ?? 0) > 0;
  return {
    filename: system?.filename ?? '',
    ...(validated ? { duration: system!.duration, width: system!.width, height: system!.height } : {}),
  };
}

/**
 * A task as each version shows it (API-CONTRACT §5.3). v1.2: `metadata`, `video_id` once ready,
 * `process` and `estimated_time` while indexing. v1.3: `system_metadata` and always `video_id`.
 * Both: `hls` once the video stream is being made (URLs signed by `hlsUrl`). A failed task carries
 * `error` {code, message}: the reason a person can act on (no SDK reads it; they ignore extras).
 */
export function presentTask(version: ApiVersion, task: Task, options: { hlsUrl?: HlsUrlOf } = {}): Record<string, unknown> {
  const common = {
    _id: task.id,
    index_id: task.index_id,
    status: presentStatus(version, task.status),
    created_at: iso(task.created_at),
    updated_at: iso(task.updated_at),
    ...(task.hls ? { hls: presentHls(task.hls, options.hlsUrl) } : {}),
    ...(task.failure ? { error: { code: task.failure.code, message: task.failure.message } } : {}),
  };
  if (version === 'v1.3') return { ...common, video_id: task.video_id, system_metadata: taskMetadata(task) };
  const estimatedTime = iso(task.estimated_time);
  return {
    ...common,
    ...(task.status === 'ready' ? { video_id: task.video_id } : {}),
    metadata: taskMetadata(task),
    ...(estimatedTime ? { estimated_time: estimatedTime } : {}),
    ...(task.process ? { process: { percentage: task.process.percentage, remain_seconds: task.process.remain_seconds } } : {}),
  };
}

/** GET /tasks/status (v1.2): counts under v1.2's statuses, with the singular `total_result`. */
export function presentStatusCounts(counts: TaskStatusCounts): Record<string, unknown> {
  return {
    index_id: counts.index_id,
    ready: counts.ready,
    validating: counts.uploading + counts.validating,
    pending: counts.pending + counts.queued,
    indexing: counts.indexing,
    failed: counts.failed,
    total_result: counts.total_result,
  };
}
