/**
 * A concurrency gate per key (an organization, say): at most `running` pieces of work of one key
 * run at once, at most `waiting` more wait for a slot in arrival order, and any beyond those are
 * refused at once. One key's work never waits behind another key's. Work that waits can be given up
 * (its caller left): it leaves the queue and never runs.
 */
export interface KeyedGateLimits {
  /** Pieces of work of one key that run at once (≥ 1). */
  running: number;
  /** Pieces of work of one key that may wait for a slot (0: refuse as soon as every slot is taken). */
  waiting: number;
}

/** What one key holds now. */
export interface KeyLoad {
  running: number;
  waiting: number;
}

export type GateDecision = 'run' | 'wait' | 'refuse';

/** What happens to a piece of work that arrives when its key holds `load`. */
export function gateDecision(load: KeyLoad, limits: KeyedGateLimits): GateDecision {
  if (load.running < limits.running && load.waiting === 0) return 'run';
  if (load.waiting < limits.waiting) return 'wait';
  return 'refuse';
}

interface KeyState {
  running: number;
  queue: (() => void)[];
}

export class KeyedGate {
  private readonly keys = new Map<string, KeyState>();

  /** `refuse` makes the error a refused piece of work rejects with (the caller's words: what is full, what to do). */
  constructor(
    private readonly limits: KeyedGateLimits,
    private readonly refuse: (key: string, load: KeyLoad) => Error,
  ) {
    if (!(limits.running >= 1) || !(limits.waiting >= 0)) throw new RangeError('a gate runs at least one piece of work per key');
  }

  /** What `key` holds now (for tests and metrics). */
  loadOf(key: string): KeyLoad {
    const state = this.keys.get(key);
    return { running: state?.running ?? 0, waiting: state?.queue.length ?? 0 };
  }

  /**
   * Runs `work` once a slot of `key` is free. Rejects with the gate's refusal when the key's queue
   * is full, and with `signal`'s reason when it is aborted before the work started.
   */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    const load = this.loadOf(key);
    const decision = gateDecision(load, this.limits);
    if (decision === 'refuse') throw this.refuse(key, load);
    const state = this.stateOf(key);
    if (decision === 'wait') await this.waitForSlot(key, state, signal);
    else state.running++;
    try {
      return await work();
    } finally {
      this.release(key, state);
    }
  }

  private stateOf(key: string): KeyState {
    let state = this.keys.get(key);
    if (!state) {
      state = { running: 0, queue: [] };
      this.keys.set(key, state);
    }
    return state;
  }

  /** Resolves once the slot a finished piece of work left is handed over (`running` is already counted). */
  private waitForSlot(key: string, state: KeyState, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = state.queue.indexOf(admit);
        if (at >= 0) state.queue.splice(at, 1);
        this.forgetIfIdle(key, state);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('The caller gave up waiting.'));
      };
      const admit = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      state.queue.push(admit);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A finished piece of work hands its slot to the first waiting one, or gives it back. */
  private release(key: string, state: KeyState): void {
    const next = state.queue.shift();
    if (next) return next();
    state.running--;
    this.forgetIfIdle(key, state);
  }

  private forgetIfIdle(key: string, state: KeyState): void {
    if (state.running === 0 && state.queue.length === 0 && this.keys.get(key) === state) this.keys.delete(key);
  }
}
