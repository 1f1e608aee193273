import { fromTimestamp } from '@vus/grpc';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskStatusCounts } from '@vus/grpc/types/task/v1/TaskStatusCounts';
import type { TaskStatus, VersionAdapter } from '../versions';
import { presentHls, type HlsUrlOf } from './videos';

const iso = (ts: Task['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/** A canonical status under the version's name for it (v1.2 shows `uploading` as validating). */
export function presentStatus(version: VersionAdapter, status: string): string {
  const shown = Object.entries(version.tasks.statuses).find(([, canonical]) => (canonical as readonly string[]).includes(status));
  return shown?.[0] ?? status;
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
 * A task as the version shows it (API-CONTRACT §5.3): its statuses, `video_id` always or once
 * ready, the video's metadata as `metadata` or `system_metadata`, and `process` and
 * `estimated_time` while indexing where the version has them. Every version: `hls` once the
 * video stream is being made (URLs signed by `hlsUrl`). A failed task carries `error` {code,
 * message}: the reason a person can act on (no SDK reads it; they ignore extras).
 */
export function presentTask(version: VersionAdapter, task: Task, options: { hlsUrl?: HlsUrlOf } = {}): Record<string, unknown> {
  const shape = version.tasks;
  const estimatedTime = shape.showsProgress ? iso(task.estimated_time) : undefined;
  return {
    _id: task.id,
    index_id: task.index_id,
    status: presentStatus(version, task.status),
    created_at: iso(task.created_at),
    updated_at: iso(task.updated_at),
    ...(task.hls ? { hls: presentHls(task.hls, options.hlsUrl) } : {}),
    ...(task.failure ? { error: { code: task.failure.code, message: task.failure.message } } : {}),
    ...(shape.videoId === 'always' || task.status === 'ready' ? { video_id: task.video_id } : {}),
    [shape.metadataField]: taskMetadata(task),
    ...(estimatedTime ? { estimated_time: estimatedTime } : {}),
    ...(shape.showsProgress && task.process
      ? { process: { percentage: task.process.percentage, remain_seconds: task.process.remain_seconds } }
      : {}),
  };
}

/** GET /tasks/status: the count of each status the version shows, and the singular `total_result`. */
export function presentStatusCounts(version: VersionAdapter, counts: TaskStatusCounts): Record<string, unknown> {
  const count = (statuses: readonly TaskStatus[]) => statuses.reduce((sum, status) => sum + counts[status], 0);
  return {
    index_id: counts.index_id,
    ...Object.fromEntries(Object.entries(version.tasks.statuses).map(([shown, canonical]) => [shown, count(canonical)])),
    total_result: counts.total_result,
  };
}
