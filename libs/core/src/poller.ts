import { withoutCaller } from './caller';

/**
 * A background loop over a unit of work (an outbox relay's batch, a webhook dispatcher's round):
 * one round at a time; the next at once after a round that did something, after `pollMs` after
 * an idle one, and with jittered exponential backoff after failures. `wake()` asks for a round now
 * (ignored while backing off, so a failing dependency is not hammered); `stop()` waits for the
 * round in flight.
 */
export interface PollerOptions {
  /** One round; resolves to how much it did (0: idle). */
  round: () => Promise<number>;
  pollMs: number;
  /** The longest wait after repeated failures (backoff doubles from `pollMs` up to it). */
  maxBackoffMs: number;
  /** Told of each failed round, with how many have failed in a row. */
  onError: (error: unknown, failures: number) => void;
}

export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  wake(): void {
    if (!this.stopped && this.failures === 0) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    // A round is the loop's own work, even when a handler woke it (see withoutCaller).
    this.timer = withoutCaller(() => setTimeout(() => void this.tick(), delayMs));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.running) return;
    const { round, pollMs, maxBackoffMs, onError } = this.options;
    let done = 0;
    this.running = (async () => {
      try {
        done = await round();
        this.failures = 0;
      } catch (error) {
        this.failures++;
        onError(error, this.failures);
      }
    })();
    await this.running;
    this.running = undefined;
    if (this.stopped) return;
    this.schedule(this.failures > 0 ? jitteredBackoff(pollMs, maxBackoffMs, this.failures) : done > 0 ? 0 : pollMs);
  }
}

/** Exponential backoff (base × 2^failures, capped) with jitter over its upper half, so replicas do not retry in step. */
export function jitteredBackoff(baseMs: number, maxMs: number, failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** failures);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
