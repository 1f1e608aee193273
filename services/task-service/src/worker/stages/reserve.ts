import { usageRecorded, type EventEnvelope } from '@vus/events';
import type { TaskRecord } from '../../tasks/tasks';
import type { PipelineDeps } from '../pipeline-deps';
import type { TaskWriter } from '../task-writer';

/** The key of a task's media minutes: its reservation and its usage event. */
export function mediaUsageKey(taskId: string): string {
  return `task:${taskId}`;
}

/**
 * pending → queued: reserves the media minutes (a video longer than the minutes left fails the
 * task) once per task: a task taken over after `queued` (`alreadyReserved`) was already charged.
 * The reservation is idempotent by the task's key, so a worker taking over from one that died
 * after reserving reserves nothing twice. The usage event commits with the reservation's mark:
 * the spend is reported exactly when it is charged.
 */
export async function reserve(
  deps: Pick<PipelineDeps, 'meter' | 'clock'>,
  writer: TaskWriter,
  task: TaskRecord,
  alreadyReserved: boolean,
): Promise<TaskRecord> {
  if (!alreadyReserved) await reserveMinutes(deps, task);
  return writer.advance(task, 'queued', { mediaReserved: true }, alreadyReserved ? [] : [usageOf(deps, task)]);
}

async function reserveMinutes(deps: Pick<PipelineDeps, 'meter'>, task: TaskRecord): Promise<void> {
  if (!task.system) throw new Error(`task ${task.id} is pending without system metadata`);
  await deps.meter?.reserveMediaSeconds(task.orgId, 'index', task.system.duration, mediaUsageKey(task.id));
}

/** The task's `usage.recorded`: its probed seconds, spend in billing-service (by the reservation's key). */
function usageOf(deps: Pick<PipelineDeps, 'clock'>, task: TaskRecord): EventEnvelope {
  const seconds = task.system?.duration ?? 0;
  const usage = {
    kind: 'media_seconds',
    quantity: seconds,
    idempotencyKey: mediaUsageKey(task.id),
    occurredAt: deps.clock.now(),
    category: 'index',
  } as const;
  return usageRecorded(task.orgId, usage, deps.clock);
}
