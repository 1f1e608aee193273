import type { Logger } from '@vus/core';
import type { EventBus } from '@vus/events';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { retryDelayMs, type ClaimedTask, type TaskLeaseStore } from '../tasks/leases';
import { ACTIVE_STATUSES } from '../tasks/status';
import type { TaskPipeline } from './pipeline';

export interface WorkerOptions {
  /** Tasks indexed at the same time by this worker (each runs ffmpeg and the models). */
  concurrency: number;
  /** How long a claim lasts without renewal; renewed every third of it while working. */
  leaseMs: number;
  /** How often to look for work without being told (expired leases, missed events). */
  pollMs: number;
  /** This worker's name in leases; unique per process. */
  owner?: string;
}

export const WORKER_GROUP = 'task-service.indexing-worker';

export function workerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Runs indexing tasks with bounded concurrency. Work is found in the database (claims with a
 * lease, see tasks/leases.ts); `task.created` on the bus and a poll timer only say when to look.
 * So a task survives any crash: its lease expires and the next worker to look takes it over.
 */
export class IndexingWorker {
  readonly owner: string;
  private readonly running = new Map<string, Running>();
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private filling: Promise<void> | undefined;
  private wokenWhileFilling = false;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly deps: { leases: TaskLeaseStore; pipeline: TaskPipeline; clock: { now(): Date }; logger: Logger; bus?: EventBus | undefined },
    private readonly options: WorkerOptions & { owner: string },
  ) {
    this.owner = options.owner;
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (this.deps.bus) {
      const handle: unknown = await this.deps.bus.subscribe({
        group: WORKER_GROUP,
        types: ['task.created'],
        handler: async () => {
          this.wake();
          return 'done';
        },
      });
      // Newer buses hand back a membership to leave; older ones have none.
      const membership = handle as { stop?: () => Promise<void> } | undefined;
      if (membership?.stop) this.unsubscribe = () => membership.stop!();
    }
    this.schedule();
    this.wake();
  }

  /** Looks for work now. */
  wake(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.wokenWhileFilling = true;
      return;
    }
    this.filling = this.fill()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'claiming tasks failed'))
      .finally(() => {
        this.filling = undefined;
        if (this.wokenWhileFilling) {
          this.wokenWhileFilling = false;
          this.wake();
        }
      });
  }

  /** Tasks being worked on now (ids). */
  activeTasks(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Stops taking work, aborts what runs (ffmpeg is killed) and gives the leases back so another
   * worker can take the tasks over at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.unsubscribe?.();
    await this.filling;
    for (const run of this.running.values()) run.controller.abort();
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.wake();
      this.schedule();
    }, this.options.pollMs);
    this.timer.unref();
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.running.size < this.options.concurrency) {
      const task = await this.deps.leases.claim(this.owner, ACTIVE_STATUSES, this.deps.clock.now(), this.options.leaseMs);
      if (!task) return;
      this.begin(task);
    }
  }

  private begin(task: ClaimedTask): void {
    const controller = new AbortController();
    const { leases, clock, logger, pipeline } = this.deps;
    const heartbeat = setInterval(() => {
      leases.renew(task.id, this.owner, clock.now(), this.options.leaseMs).then(
        (held) => {
          if (!held) controller.abort();
        },
        (error: unknown) => logger.warn({ err: error, taskId: task.id }, 'renewing a lease failed'),
      );
    }, Math.max(100, Math.floor(this.options.leaseMs / 3)));
    const done = pipeline
      .run(task, controller.signal)
      .then(async (outcome) => {
        if (outcome.kind === 'retry') await leases.release(task.id, this.owner, new Date(clock.now().getTime() + retryDelayMs(task.attempts)));
        // Stopped mid-task: hand it back now rather than when the lease runs out.
        if (outcome.kind === 'lost' && this.stopped) await leases.release(task.id, this.owner, clock.now());
        logger.info({ taskId: task.id, outcome: outcome.kind, status: outcome.task.status }, 'task run finished');
      })
      .catch((error: unknown) => logger.error({ err: error, taskId: task.id }, 'task run crashed; its lease will expire'))
      .finally(() => {
        clearInterval(heartbeat);
        this.running.delete(task.id);
        this.wake();
      });
    this.running.set(task.id, { controller, done });
  }
}
