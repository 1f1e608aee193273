/**
 * Runs async jobs one at a time, in call order. Each provider owns one, so a burst of frames
 * from several workers never holds more than one inference's tensors in memory at once.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.tail.then(job, job);
    // The next job waits for this one whether it succeeds or fails.
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** Memoises an async factory: the first call starts it, later calls share the same promise. */
export function once<T>(factory: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= factory());
}
