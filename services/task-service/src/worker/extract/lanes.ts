/**
 * Calls that run one at a time, in the order they were added: one model's work through the frames
 * (frames.ts has a lane per frame model, so a model never waits for another's frame). A call that
 * fails aborts `stop` with its error (the first failure stops the whole pass at once, not when its
 * frame's turn comes); once `stop` is aborted (a failure, or the caller's cancel) the lane starts no
 * call: it is refused with the stop's reason, and only the call already running is left to end.
 */
export class Lane {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly stop: AbortController) {}

  /** `work` once the calls added before it have ended; its result or failure. */
  add<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(async () => {
      this.stop.signal.throwIfAborted();
      try {
        return await work();
      } catch (error) {
        if (!this.stop.signal.aborted) this.stop.abort(error);
        throw error;
      }
    });
    this.tail = result.then(ignore, ignore);
    // Awaited later, in frame order: failing before then is not an unhandled rejection.
    result.catch(ignore);
    return result;
  }

  /** Settles once every call added so far has ended or been refused. */
  settled(): Promise<void> {
    return this.tail.then(ignore);
  }
}

function ignore(): void {}
