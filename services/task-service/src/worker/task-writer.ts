import type { EventEnvelope } from '@vus/events';
import type { TaskChanges, TaskLeaseStore, TaskUpdate } from '../tasks/leases';
import type { TaskStatus } from '../tasks/status';
import { statusChangedEvent, type TaskRecord } from '../tasks/tasks';
import type { PipelineDeps } from './pipeline-deps';

/** The worker no longer holds the task's lease: stop quietly, another worker carries on. */
export class LeaseLost extends Error {
  constructor(taskId: string) {
    super(`lease on task ${taskId} was lost`);
  }
}

/**
 * A task run's writes to its task: each under the worker's lease (a write the lease no longer
 * covers changes nothing), a status change with its `task.status-changed` event in the same commit.
 */
export class TaskWriter {
  constructor(
    private readonly deps: Pick<PipelineDeps, 'leases' | 'clock' | 'logger' | 'eventsWritten'>,
    private readonly owner: string,
  ) {}

  /** The task as written, or undefined when the lease is gone. */
  async write(
    task: TaskRecord,
    update: Parameters<TaskLeaseStore['update']>[3],
    events: readonly EventEnvelope[] = [],
  ): Promise<TaskRecord | undefined> {
    const clock = this.deps.clock;
    const updated = await this.deps.leases.update(task.id, this.owner, clock.now(), update, (t) => [
      ...(update.status ? [statusChangedEvent(t, update.status.from, clock)] : []),
      ...events,
    ]);
    if (updated && (update.status || events.length > 0)) this.deps.eventsWritten();
    return updated;
  }

  /** The task moved on to `to` (and `nextJob` queued with it); LeaseLost when the lease is gone. */
  async advance(
    task: TaskRecord,
    to: TaskStatus,
    changes: TaskChanges = {},
    events: readonly EventEnvelope[] = [],
    nextJob?: TaskUpdate['nextJob'],
  ): Promise<TaskRecord> {
    const updated = await this.write(task, { status: { from: task.status, to }, changes, ...(nextJob ? { nextJob } : {}) }, events);
    if (!updated) throw new LeaseLost(task.id);
    this.deps.logger.info({ taskId: task.id, from: task.status, to }, 'task status changed');
    return updated;
  }

  async progress(task: TaskRecord, percent: number): Promise<void> {
    if (!(await this.write(task, { changes: { progress: percent } }))) throw new LeaseLost(task.id);
  }
}
