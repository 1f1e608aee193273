import type { TaskRecord } from './tasks';

/**
 * Seconds of indexing left, extrapolated linearly from the time spent so far (pure). Undefined
 * while nothing can be told: no progress yet, or none left (done).
 */
export function remainingSeconds(elapsedSec: number, percent: number): number | undefined {
  if (!(percent > 0) || percent >= 100 || !(elapsedSec >= 0)) return undefined;
  return Math.round((elapsedSec * (100 - percent)) / percent);
}

/** When an indexing task should be done, for v1.2's `estimated_time` and `process.remain_seconds`. */
export interface Completion {
  remainSeconds: number;
  estimatedAt: Date;
}

/**
 * The task's expected completion: only while it is indexing (before, nothing has been measured;
 * after, there is nothing left), timed from when indexing started.
 */
export function estimateCompletion(task: Pick<TaskRecord, 'status' | 'progress' | 'history'>, now: Date): Completion | undefined {
  if (task.status !== 'indexing') return undefined;
  const started = [...task.history].reverse().find((h) => h.status === 'indexing')?.at;
  if (!started) return undefined;
  const remain = remainingSeconds(Math.max(0, (now.getTime() - started.getTime()) / 1000), task.progress);
  return remain === undefined ? undefined : { remainSeconds: remain, estimatedAt: new Date(now.getTime() + remain * 1000) };
}
