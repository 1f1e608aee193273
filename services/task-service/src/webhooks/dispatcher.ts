import type { Clock, Logger } from '@vus/core';
import type { AddressGuard } from '@vus/fetch';
import { JobRunner, runnerName, type ClaimedJob, type JobContext, type JobOutcome, type JobStore, type RetryPolicy } from '@vus/jobs';
import { postWebhook } from './sender';
import { SIGNATURE_HEADERS, sign } from './signature';
import { WEBHOOK_DELIVERY_JOB, type ClaimedDelivery, type DispatchStore } from './store';

export interface DispatcherOptions {
  store: DispatchStore;
  jobs: JobStore;
  guard: AddressGuard;
  clock: Clock;
  logger: Logger;
  /** One attempt (all redirects included) may take this long. */
  timeoutMs?: number;
  /** Attempts before a delivery is failed for good. */
  maxAttempts?: number;
  /** Delay before the first retry; it doubles per attempt, with jitter, up to maxDelayMs. */
  retryBaseMs?: number;
  maxDelayMs?: number;
  /** How long a claimed delivery stays with this dispatcher; must outlast an attempt. */
  leaseMs?: number;
  pollMs?: number;
  /** Deliveries sent side by side. */
  concurrency?: number;
  /** This dispatcher's name in leases; unique per process. */
  owner?: string;
}

export const DISPATCH_DEFAULTS = {
  timeoutMs: 10_000,
  maxAttempts: 8,
  retryBaseMs: 10_000,
  maxDelayMs: 6 * 3600 * 1000,
  pollMs: 1000,
  concurrency: 8,
};

/** The retry policy of deliveries (libs/jobs): from retryBaseMs, doubling per attempt, with jitter, up to maxDelayMs. */
export function webhookRetry(options: { retryBaseMs: number; maxDelayMs: number }): RetryPolicy {
  return { baseMs: options.retryBaseMs, maxMs: options.maxDelayMs };
}

/**
 * Sends webhook deliveries, each a job of the job queue (libs/jobs, queued with the delivery): signs
 * each attempt, POSTs it through the SSRF guard, and records the outcome on the delivery (succeeded,
 * retry later with the queue's backoff, or failed after the last attempt or a refused destination).
 * At least once: a dispatcher killed mid-flight leaves its deliveries' jobs leased, and they are
 * sent again, with the same delivery id, when the lease ends. Replicas share the work through the
 * queue's claims, fairly across organizations.
 */
export class WebhookDispatcher {
  private readonly settings: Required<Omit<DispatcherOptions, 'store' | 'jobs' | 'guard' | 'clock' | 'logger' | 'owner'>>;
  private readonly runner: JobRunner;

  constructor(private readonly options: DispatcherOptions) {
    const timeoutMs = options.timeoutMs ?? DISPATCH_DEFAULTS.timeoutMs;
    this.settings = {
      timeoutMs,
      maxAttempts: options.maxAttempts ?? DISPATCH_DEFAULTS.maxAttempts,
      retryBaseMs: options.retryBaseMs ?? DISPATCH_DEFAULTS.retryBaseMs,
      maxDelayMs: options.maxDelayMs ?? DISPATCH_DEFAULTS.maxDelayMs,
      pollMs: options.pollMs ?? DISPATCH_DEFAULTS.pollMs,
      concurrency: options.concurrency ?? DISPATCH_DEFAULTS.concurrency,
      leaseMs: options.leaseMs ?? timeoutMs + 30_000,
    };
    this.runner = new JobRunner({
      store: options.jobs,
      kinds: {
        [WEBHOOK_DELIVERY_JOB]: {
          run: (job, context) => this.deliver(job, context),
          retry: webhookRetry(this.settings),
          maxAttempts: this.settings.maxAttempts,
        },
      },
      concurrency: this.settings.concurrency,
      leaseMs: this.settings.leaseMs,
      pollMs: this.settings.pollMs,
      owner: options.owner ?? runnerName(),
      clock: options.clock,
      logger: options.logger,
    });
  }

  start(): void {
    this.runner.start();
  }

  /** New deliveries were planned: look now rather than at the next poll. */
  wake(): void {
    this.runner.wake();
  }

  /** Stops claiming; attempts in flight finish and are recorded. */
  async stop(): Promise<void> {
    await this.runner.stop();
  }

  private async deliver(job: ClaimedJob, context: JobContext): Promise<JobOutcome> {
    const delivery = await this.options.store.load(job.subjectId);
    // Sent already, or failed for good (its endpoint was deleted): nothing to do.
    if (!delivery) return { kind: 'succeeded' };
    return this.attempt(delivery, context);
  }

  private async attempt(delivery: ClaimedDelivery, context: JobContext): Promise<JobOutcome> {
    const { store, guard, clock, logger } = this.options;
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const headers = {
      'user-agent': 'vus-webhooks/1',
      [SIGNATURE_HEADERS.id]: delivery.id,
      [SIGNATURE_HEADERS.timestamp]: String(timestamp),
      [SIGNATURE_HEADERS.signature]: sign(delivery.secret, timestamp, delivery.body),
      [SIGNATURE_HEADERS.event]: delivery.eventType,
    };
    const result = await postWebhook(guard, delivery.url, delivery.body, headers, this.settings.timeoutMs);
    const attempts = delivery.attempts + 1;
    if (!result.error) {
      await store.recordSuccess(delivery.id, result.status, clock.now());
      return { kind: 'succeeded' };
    }
    const retryAt = result.refused ? null : context.retryAt();
    logger.warn({ deliveryId: delivery.id, attempts, status: result.status, error: result.error, retryAt }, 'webhook attempt failed');
    await store.recordFailure(delivery.id, result.status, result.error, retryAt);
    return retryAt ? { kind: 'retry', error: result.error } : { kind: 'failed', error: result.error };
  }
}
