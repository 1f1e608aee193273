import { jitteredBackoff, Poller, type Clock, type Logger } from '@vus/core';
import type { AddressGuard } from '@vus/fetch';
import { postWebhook } from './sender';
import { SIGNATURE_HEADERS, sign } from './signature';
import type { ClaimedDelivery, DispatchStore } from './store';

export interface DispatcherOptions {
  store: DispatchStore;
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
}

export const DISPATCH_DEFAULTS = {
  timeoutMs: 10_000,
  maxAttempts: 8,
  retryBaseMs: 10_000,
  maxDelayMs: 6 * 3600 * 1000,
  pollMs: 1000,
  concurrency: 8,
};

/** When a failed attempt is tried again; null once `attempts` reaches the maximum. */
export function nextAttemptAt(
  now: Date,
  attempts: number,
  options: { maxAttempts: number; retryBaseMs: number; maxDelayMs: number },
  random: () => number = Math.random,
): Date | null {
  if (attempts >= options.maxAttempts) return null;
  return new Date(now.getTime() + jitteredBackoff(options.retryBaseMs, options.maxDelayMs, attempts - 1, random));
}

/**
 * Sends due webhook deliveries: claims them under a lease, signs each attempt, POSTs it through
 * the SSRF guard, and records the outcome (succeeded, retry later with backoff, or failed after the
 * last attempt or a refused destination). At least once: a dispatcher killed mid-flight leaves its
 * leased deliveries pending, and they are sent again, with the same delivery id, when the lease
 * ends. Replicas share the work through SKIP LOCKED claims.
 */
export class WebhookDispatcher {
  private readonly settings: Required<Omit<DispatcherOptions, 'store' | 'guard' | 'clock' | 'logger'>>;
  private readonly poller: Poller;

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
    // A failing round is the store's (a delivery's own failure is recorded, not thrown): retried
    // at about the poll interval.
    this.poller = new Poller({
      round: () => this.dispatchOnce(),
      pollMs: this.settings.pollMs,
      maxBackoffMs: this.settings.pollMs,
      onError: (error) => options.logger.warn({ err: error }, 'webhook dispatch failed; trying again at the next poll'),
    });
  }

  start(): void {
    this.poller.start();
  }

  /** New deliveries were planned: look now rather than at the next poll. */
  wake(): void {
    this.poller.wake();
  }

  /** Stops claiming; attempts in flight finish and are recorded. */
  async stop(): Promise<void> {
    await this.poller.stop();
  }

  /** Claims and sends one batch; returns how many deliveries were attempted. */
  async dispatchOnce(): Promise<number> {
    const { store, clock } = this.options;
    const now = clock.now();
    const claimed = await store.claimDue(now, new Date(now.getTime() + this.settings.leaseMs), this.settings.concurrency);
    await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    return claimed.length;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
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
      return;
    }
    const retryAt = result.refused ? null : nextAttemptAt(clock.now(), attempts, this.settings);
    logger.warn({ deliveryId: delivery.id, attempts, status: result.status, error: result.error, retryAt }, 'webhook attempt failed');
    await store.recordFailure(delivery.id, result.status, result.error, retryAt);
  }
}
