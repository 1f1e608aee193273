import { jitteredBackoff, Poller } from '../src/poller';

describe('jitteredBackoff', () => {
  it.each([
    [1, 0, 100],
    [1, 1, 200],
    [3, 0.5, 600],
    [10, 1, 1000],
  ])('base 100, cap 1000, %i failures, random %s: %i ms', (failures, random, expected) => {
    expect(jitteredBackoff(100, 1000, failures, () => random)).toBe(expected);
  });
});

describe('Poller', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Moves the clock by `ms`, then lets the rounds due now (and those they schedule at once) run. */
  const advance = async (ms: number) => {
    await jest.advanceTimersByTimeAsync(ms);
    for (let i = 0; i < 10; i++) await jest.advanceTimersByTimeAsync(0);
  };

  // Node runs a 0 ms timer after 1 ms; fake timers do too.
  it('runs again at once after a busy round, after pollMs after an idle one', async () => {
    const results = [2, 1, 0, 0];
    let rounds = 0;
    const poller = new Poller({
      round: async () => (rounds++, results.shift() ?? 0),
      pollMs: 1000,
      maxBackoffMs: 8000,
      onError: () => undefined,
    });
    poller.start();
    await advance(5);
    expect(rounds).toBe(3);
    await advance(990);
    expect(rounds).toBe(3);
    await advance(10);
    expect(rounds).toBe(4);
    await poller.stop();
  });

  it('backs off after failures, ignores wake() while failing, and resumes the pace after a success', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(1); // each wait is its full ceiling: 200, 400, 800 ms
    let fail = 3;
    const errors: number[] = [];
    let rounds = 0;
    const poller = new Poller({
      round: async () => {
        rounds++;
        if (fail-- > 0) throw new Error('down');
        return 0;
      },
      pollMs: 100,
      maxBackoffMs: 10_000,
      onError: (_error, failures) => errors.push(failures),
    });
    // Rounds at about 0, 200 (after 200 ms), 600 (after 400) and 1400 (after 800); times checked between them.
    poller.start();
    await advance(1);
    expect(errors).toEqual([1]);
    poller.wake();
    await advance(99); // t = 100
    expect(rounds).toBe(1);
    await advance(200); // t = 300
    expect(errors).toEqual([1, 2]);
    await advance(200); // t = 500
    expect(rounds).toBe(2);
    await advance(500); // t = 1000
    expect(errors).toEqual([1, 2, 3]);
    await advance(450); // t = 1450: the fourth round succeeded; the next poll is due at about 1500
    expect(rounds).toBe(4);
    // Healthy again: wake() runs a round now.
    poller.wake();
    await advance(2);
    expect(rounds).toBe(5);
    await poller.stop();
    jest.restoreAllMocks();
  });

  it('stop() waits for the round in flight and nothing runs after it', async () => {
    let release!: () => void;
    let rounds = 0;
    const poller = new Poller({
      round: () => {
        rounds++;
        return new Promise<number>((resolve) => (release = () => resolve(1)));
      },
      pollMs: 100,
      maxBackoffMs: 100,
      onError: () => undefined,
    });
    poller.start();
    await advance(0);
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await advance(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await advance(1000);
    expect(rounds).toBe(1);
  });
});
