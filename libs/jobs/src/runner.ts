import { Poller, type Clock, type Logger } from '@vus/core';
import { inSpan, markFailed, observeJobQueue } from '@vus/telemetry';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { endOfRun, orgsAfterOthers, retryAt, type JobOutcome, type RetryPolicy } from './rules';
import type { ClaimedJob, JobStore } from './store';

/** What a run hands its handler besides the job. */
export interface JobContext {
  /** Aborted when the lease is lost (taken over, cancelled) or the runner stops. */
  signal: AbortSignal;
  /**
   * When a `retry` outcome would run again (the kind's retry policy, from the first call: say it
   * after the attempt); null when this attempt was the last. The runner requeues at that time.
   */
  retryAt(): Date | null;
}

export interface JobKind {
  run(job: ClaimedJob, context: JobContext): Promise<JobOutcome>;
  retry: RetryPolicy;
  /** Claims of one job before a `retry` outcome fails it instead (each crash of a runner costs one too). */
  maxAttempts: number;
}

export interface JobRunnerOptions {
  store: JobStore;
  /** The kinds this runner takes, by name. */
  kinds: Record<string, JobKind>;
  /** Jobs run at the same time by this runner. */
  concurrency: number;
  /** How long a claim lasts without renewal; renewed every third of it while running. */
  leaseMs: number;
  /** How often to look for work without being woken (expired leases, retries coming due). */
  pollMs: number;
  /** At most this many running jobs per organization across all runners (default: no limit beyond fairness). */
  perOrgLimit?: number | undefined;
  /** This runner's name in leases; unique per process. */
  owner: string;
  /** Ended jobs of its kinds are deleted this long after they ended (checked about hourly; default 7 days). */
  keepFinishedMs?: number | undefined;
  clock: Clock;
  logger: Logger;
}

export function runnerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

const PRUNE_EVERY_MS = 3_600_000;
const KEEP_FINISHED_MS = 7 * 24 * 3_600_000;

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Runs queued jobs with bounded concurrency. The work is found in the database (claims under a
 * lease, renewed by a heartbeat); wake() and a poll timer only say when to look. So a job survives
 * any crash: its lease expires and the next runner to look takes it over. Fair across
 * organizations: a claim prefers the organization with the fewest running jobs, and the last free
 * slot goes to an organization already running here only when no other one has a job due
 * (rules.ts orgsAfterOthers): no slot idles while there is work.
 */
export class JobRunner {
  readonly owner: string;
  private readonly running = new Map<string, Running>();
  private readonly poller: Poller;
  private stopped = false;
  private lastPrune = 0;
  private stopObserving: () => void = () => undefined;

  constructor(private readonly options: JobRunnerOptions) {
    this.owner = options.owner;
    this.poller = new Poller({
      round: () => this.fill(),
      pollMs: options.pollMs,
      maxBackoffMs: Math.max(options.pollMs, 30_000),
      onError: (error, failures) => options.logger.error({ err: error, failures }, 'claiming jobs failed'),
    });
  }

  start(): void {
    this.poller.start();
    // Depth and age of this runner's kinds, read when metrics are collected (the autoscaler's input).
    const kinds = Object.keys(this.options.kinds);
    this.stopObserving = observeJobQueue(() => this.options.store.queueStats(kinds, this.options.clock.now()));
  }

  /** Looks for work now. */
  wake(): void {
    this.poller.wake();
  }

  /**
   * Runs what is due now, here, and waits for it (with or without start()): claims, lets the runs
   * end, and claims again until nothing is due. Returns how many runs it started.
   */
  async runDue(): Promise<number> {
    let started = 0;
    for (;;) {
      const claimed = await this.fill();
      started += claimed;
      await Promise.all([...this.running.values()].map((r) => r.done));
      if (claimed === 0 || this.stopped) return started;
    }
  }

  /** Subjects of the jobs running here now. */
  activeSubjects(): string[] {
    return [...this.running.values()].map((r) => r.job.subjectId);
  }

  /** Stops claiming, aborts what runs and hands those jobs back, so another runner takes them at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopObserving();
    await this.poller.stop();
    for (const run of this.running.values()) run.controller.abort();
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Claims until the slots are full or nothing is due; returns how many it claimed. */
  private async fill(): Promise<number> {
    const { store, clock, concurrency, leaseMs, perOrgLimit } = this.options;
    const kinds = Object.keys(this.options.kinds);
    await this.pruneNowAndThen(kinds);
    let claimed = 0;
    while (!this.stopped && this.running.size < concurrency) {
      const afterOthers = orgsAfterOthers(
        [...this.running.values()].map((r) => r.job.orgId),
        concurrency,
      );
      const job = await store.claim(this.owner, kinds, clock.now(), leaseMs, { afterOthers, perOrgLimit });
      if (!job) break;
      claimed++;
      this.begin(job);
    }
    return claimed;
  }

  /** The queue keeps ended jobs a while (what happened, for a look), not forever. */
  private async pruneNowAndThen(kinds: string[]): Promise<void> {
    const now = this.options.clock.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const removed = await this.options.store.pruneFinished(kinds, new Date(now - (this.options.keepFinishedMs ?? KEEP_FINISHED_MS)));
    if (removed > 0) this.options.logger.info({ kinds, removed }, 'removed ended jobs');
  }

  private begin(job: ClaimedJob): void {
    const { store, clock, logger, leaseMs } = this.options;
    const kind = this.options.kinds[job.kind];
    const controller = new AbortController();
    const heartbeat = setInterval(
      () => {
        store.renew(job.id, this.owner, clock.now(), leaseMs).then(
          (held) => {
            if (!held) controller.abort();
          },
          (error: unknown) => logger.warn({ err: error, jobId: job.id, kind: job.kind }, 'renewing a lease failed'),
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    let nextRun: Date | null | undefined;
    const nextRunAt = () =>
      nextRun === undefined ? (nextRun = kind ? retryAt(clock.now(), job.attempts, kind.maxAttempts, kind.retry) : null) : nextRun;
    const done = (async () => {
      const outcome: JobOutcome = kind
        ? await this.runInSpan(job, kind, { signal: controller.signal, retryAt: nextRunAt }).catch((error: unknown) => {
            logger.error({ err: error, jobId: job.id, kind: job.kind }, 'a job run crashed');
            return { kind: 'retry', error: error instanceof Error ? error.message : String(error) } as const;
          })
        : { kind: 'failed', error: `no handler for jobs of kind ${job.kind}` };
      clearInterval(heartbeat);
      await this.record(job, outcome, outcome.kind === 'retry' ? nextRunAt() : null);
    })()
      .catch((error: unknown) =>
        logger.error({ err: error, jobId: job.id, kind: job.kind }, 'recording a job run failed; its lease will expire'),
      )
      .finally(() => {
        clearInterval(heartbeat);
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { job, controller, done });
  }

  /** One run, as a span in the trace of the request that queued the job (an upload, a delivery's event). */
  private runInSpan(job: ClaimedJob, kind: JobKind, context: JobContext): Promise<JobOutcome> {
    const attributes = {
      'vus.job.kind': job.kind,
      'vus.job.id': job.id,
      'vus.job.subject_id': job.subjectId,
      'vus.job.attempt': job.attempts,
    };
    return inSpan(`job ${job.kind}`, { attributes, parent: job.traceparent ?? null }, async (span) => {
      const outcome = await kind.run(job, context);
      span.setAttribute('vus.job.outcome', outcome.kind);
      if (outcome.kind === 'failed' || outcome.kind === 'retry') markFailed(span, new Error(outcome.error));
      return outcome;
    });
  }

  private async record(job: ClaimedJob, outcome: JobOutcome, nextRun: Date | null): Promise<void> {
    const { store, clock, logger } = this.options;
    const now = clock.now();
    const end = endOfRun(outcome, nextRun, this.stopped, now);
    if (end.write === 'finish') await store.finish(job.id, this.owner, now, end);
    else if (end.write === 'requeue') await store.requeue(job.id, this.owner, now, end.runAt, end.error);
    logger.info(
      { jobId: job.id, kind: job.kind, subjectId: job.subjectId, attempts: job.attempts, outcome: outcome.kind },
      'job run finished',
    );
  }
}
