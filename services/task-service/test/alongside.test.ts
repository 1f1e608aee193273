import { alongside } from '../src/worker/alongside';

/** A run that ends with `outcome` after `ms`, or rejects as soon as its signal aborts; records how it ended. */
function run(outcome: 'ok' | 'fail', ms: number, log: string[], name: string) {
  return (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        log.push(`${name} ${outcome}`);
        if (outcome === 'ok') resolve(name);
        else reject(new Error(`${name} failed`));
      }, ms);
      signal.addEventListener('abort', () => {
        if (settled) return;
        clearTimeout(timer);
        log.push(`${name} aborted`);
        reject(new Error(`${name} aborted`));
      });
    });
}

describe('alongside', () => {
  it.each([
    ['both succeed', ['ok', 1], ['ok', 5], undefined, ['main ok', 'side ok']],
    ['main fails first: side aborted, main’s error', ['fail', 1], ['ok', 1000], 'main failed', ['main fail', 'side aborted']],
    ['side fails first: main aborted, side’s error', ['ok', 1000], ['fail', 1], 'side failed', ['side fail', 'main aborted']],
  ] as const)('%s', async (_, main, side, error, expectedLog) => {
    const log: string[] = [];
    const both = alongside(new AbortController().signal, run(main[0], main[1], log, 'main'), run(side[0], side[1], log, 'side'));
    if (error) await expect(both).rejects.toThrow(error);
    else await expect(both).resolves.toEqual(['main', 'side']);
    // Nothing is left running when it settles.
    expect(log).toEqual(expectedLog);
  });

  it('the caller’s abort reaches both', async () => {
    const log: string[] = [];
    const caller = new AbortController();
    const both = alongside(caller.signal, run('ok', 1000, log, 'main'), run('ok', 1000, log, 'side'));
    caller.abort();
    await expect(both).rejects.toThrow('aborted');
    expect(log.sort()).toEqual(['main aborted', 'side aborted']);
  });
});
