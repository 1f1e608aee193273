import type { Logger } from '@vus/core';
import type { EventBus, EventEnvelope, Subscription } from './bus';

export interface InProcessOptions {
  maxAttempts?: number;
  retryDelayMs?: number;
  logger?: Logger;
}

/**
 * The EventBus inside one process (embedded mode and unit tests). Delivery is asynchronous;
 * per group, events of one key are handled one at a time in publish order; a handler that throws
 * or asks to retry is retried, and after `maxAttempts` the event goes to the dead letters.
 */
export class InProcessEventBus implements EventBus {
  private readonly subscriptions: Subscription[] = [];
  private readonly chains = new Map<string, Promise<void>>();
  readonly deadLetters: { group: string; event: EventEnvelope; error: string }[] = [];
  private closed = false;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;

  constructor(private readonly options: InProcessOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryDelayMs = options.retryDelayMs ?? 50;
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (this.closed) throw new Error('event bus is closed');
    for (const event of events) {
      for (const subscription of this.subscriptions) {
        if (!subscription.types.includes(event.type)) continue;
        const chainKey = `${subscription.group}\u0000${event.key}`;
        const previous = this.chains.get(chainKey) ?? Promise.resolve();
        const next = previous.then(() => this.deliver(subscription, event));
        this.chains.set(chainKey, next);
        void next.finally(() => {
          if (this.chains.get(chainKey) === next) this.chains.delete(chainKey);
        });
      }
    }
  }

  async subscribe(subscription: Subscription): Promise<void> {
    this.subscriptions.push(subscription);
  }

  /** Resolves when every delivery so far has finished (tests, clean shutdown). */
  async drain(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.drain();
  }

  private async deliver(subscription: Subscription, event: EventEnvelope): Promise<void> {
    let lastError = 'handler asked for a retry';
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      try {
        if ((await subscription.handler(event)) !== 'retry') return;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        this.options.logger?.warn({ err: error, eventId: event.id, attempt }, 'event handler failed');
      }
      if (attempt < this.maxAttempts) await new Promise((r) => setTimeout(r, this.retryDelayMs * attempt));
    }
    this.deadLetters.push({ group: subscription.group, event, error: lastError });
  }
}
