import type { Clock, Logger } from '@vus/core';
import type { EventBus } from '@vus/events';
import { JobRunner, type ClaimedJob, type JobContext, type JobOutcome, type JobStore, type RetryPolicy } from '@vus/jobs';
import { FETCH_TASK_JOB, INDEX_TASK_JOB, type TaskLeaseStore } from '../tasks/leases';
import { isTerminal } from '../tasks/status';
import type { TaskPipeline } from './pipeline';

export interface WorkerOptions {
  /** Tasks indexed at the same time by this worker (each runs ffmpeg and the models). */
  concurrency: number;
  /** video_url downloads at the same time by this worker: I/O, in slots of their own, never an indexing slot. */
  fetchConcurrency: number;
  /** At most this many downloads of one organization at once across all workers (default: no cap beyond fairness). */
  fetchPerOrgLimit?: number | undefined;
  /** How long a claim lasts without renewal; renewed every third of it while working. */
  leaseMs: number;
  /** How often to look for work without being told (expired leases, retries, missed events). */
  pollMs: number;
  /** Claims of one task before it is failed (each worker death costs one). */
  maxAttempts: number;
  /** At most this many tasks of one organization indexed at once across all workers (default: no cap). */
  perOrgLimit?: number | undefined;
  /** This worker's name in leases; unique per process. */
  owner: string;
}

export const WORKER_GROUP = 'task-service.indexing-worker';

/** After a passing problem (an outage, a timeout): again after about 5 s, 10 s, 20 s … at most 10 min. */
export const INDEX_RETRY: RetryPolicy = { baseMs: 5_000, maxMs: 600_000 };

/**
 * Runs tasks as jobs of the job queue (libs/jobs), in two stages with slots of their own: the fetch
 * stage downloads video_url tasks (I/O: `fetchConcurrency` slots, `fetchPerOrgLimit` per
 * organization), the index stage validates and indexes (CPU: `concurrency` slots). Each takes
 * turns between organizations, each task runs under a lease renewed while it runs. `task.created`
 * on the bus and a poll timer only say when to look, so a task survives any crash: its lease
 * expires and the next worker to look takes it over.
 */
export class IndexingWorker {
  readonly owner: string;
  private readonly fetcher: JobRunner;
  private readonly indexer: JobRunner;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly deps: {
      jobs: JobStore;
      leases: TaskLeaseStore;
      pipeline: TaskPipeline;
      clock: Clock;
      logger: Logger;
      bus?: EventBus | undefined;
    },
    options: WorkerOptions,
  ) {
    this.owner = options.owner;
    const runner = (kind: string, stage: TaskPipeline['run'], concurrency: number, perOrgLimit: number | undefined) =>
      new JobRunner({
        store: deps.jobs,
        kinds: { [kind]: { run: (job, context) => this.run(job, context, stage), retry: INDEX_RETRY, maxAttempts: options.maxAttempts } },
        concurrency,
        leaseMs: options.leaseMs,
        pollMs: options.pollMs,
        perOrgLimit,
        owner: options.owner,
        clock: deps.clock,
        logger: deps.logger,
      });
    const { pipeline } = deps;
    this.fetcher = runner(
      FETCH_TASK_JOB,
      (task, signal) => pipeline.fetch(task, signal),
      options.fetchConcurrency,
      options.fetchPerOrgLimit,
    );
    this.indexer = runner(INDEX_TASK_JOB, (task, signal) => pipeline.run(task, signal), options.concurrency, options.perOrgLimit);
  }

  async start(): Promise<void> {
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
    this.fetcher.start();
    this.indexer.start();
  }

  /** Looks for work now. */
  wake(): void {
    this.fetcher.wake();
    this.indexer.wake();
  }

  /** Tasks being worked on now (ids), downloads included. */
  activeTasks(): string[] {
    return [...this.fetcher.activeSubjects(), ...this.indexingTasks()];
  }

  /** Tasks in an indexing slot now (ids): what WORKER_CONCURRENCY bounds; downloads have slots of their own. */
  indexingTasks(): string[] {
    return this.indexer.activeSubjects();
  }

  /**
   * Stops taking work, aborts what runs (ffmpeg is killed) and gives the leases back so another
   * worker can take the tasks over at once.
   */
  async stop(): Promise<void> {
    await this.unsubscribe?.();
    await Promise.all([this.fetcher.stop(), this.indexer.stop()]);
  }

  private async run(job: ClaimedJob, { signal }: JobContext, stage: TaskPipeline['run']): Promise<JobOutcome> {
    const task = await this.deps.leases.load(job);
    // Deleted, or finished by a run that died before it could end its job.
    if (!task || isTerminal(task.status)) return { kind: 'succeeded' };
    const outcome = await stage(task, signal);
    this.deps.logger.info({ taskId: task.id, job: job.kind, outcome: outcome.kind, status: outcome.task.status }, 'task run finished');
    switch (outcome.kind) {
      case 'fetched':
        // Its index-task job is queued (with the status): the index stage looks now.
        this.indexer.wake();
        return { kind: 'succeeded' };
      case 'ready':
        return { kind: 'succeeded' };
      case 'failed':
        return { kind: 'failed', error: outcome.task.failure?.code ?? 'failed' };
      case 'retry':
        return { kind: 'retry', error: outcome.error };
      case 'lost':
        return { kind: 'lost' };
    }
  }
}
