/**
 * Runs `main` and `side` at once, each on a signal that also ends when the other fails: a failure
 * of either aborts the other, which is awaited before the failure is thrown, so that nothing keeps
 * running in a work folder about to be removed. Resolves with both results.
 *
 * The indexing stages use it to keep both cores busy on one video: speech recognition (its own
 * processes) and the HLS stream (ffmpeg) run while the frame pass runs in this process.
 */
export async function alongside<A, B>(
  signal: AbortSignal,
  main: (signal: AbortSignal) => Promise<A>,
  side: (signal: AbortSignal) => Promise<B>,
): Promise<[A, B]> {
  const failed = new AbortController();
  const both = AbortSignal.any([signal, failed.signal]);
  let firstFailure: { reason: unknown } | undefined;
  const watch = <T>(run: Promise<T>) =>
    run.catch((reason: unknown) => {
      // The first failure is the one thrown; the other run's is usually the abort it caused.
      firstFailure ??= { reason };
      failed.abort();
      throw reason;
    });
  const [mainRun, sideRun] = [watch(main(both)), watch(side(both))];
  const [mainResult, sideResult] = await Promise.allSettled([mainRun, sideRun]);
  if (firstFailure) throw firstFailure.reason;
  return [(mainResult as PromiseFulfilledResult<A>).value, (sideResult as PromiseFulfilledResult<B>).value];
}
