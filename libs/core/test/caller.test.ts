import { currentCaller, earlierDeadline, Poller, withCaller, withoutCaller } from '../src';

describe('caller context', () => {
  it.each([
    ['neither', undefined, undefined, undefined],
    ['only the first', new Date(10), undefined, new Date(10)],
    ['only the second', undefined, new Date(20), new Date(20)],
    ['the earlier of both', new Date(30), new Date(20), new Date(20)],
  ])('earlierDeadline: %s', (_, a, b, expected) => {
    expect(earlierDeadline(a, b)).toEqual(expected);
  });

  it('is seen by what the function starts, and not outside it', async () => {
    const seen = await withCaller(
      { requestId: 'r1' },
      () => new Promise((resolve) => setTimeout(() => resolve(currentCaller()?.requestId), 1)),
    );
    expect(seen).toBe('r1');
    expect(currentCaller()).toBeUndefined();
    expect(withCaller({ requestId: 'r1' }, () => withoutCaller(() => currentCaller()))).toBeUndefined();
  });

  // A background loop woken by a handler must not run its rounds with that handler's deadline:
  // its calls would fail once the request that woke it is over.
  it("does not reach the rounds of a Poller woken on a caller's behalf", async () => {
    const seen: (string | undefined)[] = [];
    let rounds = 0;
    let woken!: () => void;
    const wokenRound = new Promise<void>((resolve) => (woken = resolve));
    const poller = new Poller({
      round: async () => {
        seen.push(currentCaller()?.requestId);
        if (++rounds === 2) woken();
        return 0;
      },
      pollMs: 60_000,
      maxBackoffMs: 60_000,
      onError: () => undefined,
    });
    poller.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    withCaller({ requestId: 'handler', deadline: new Date(Date.now() + 1000) }, () => poller.wake());
    await wokenRound;
    await poller.stop();
    expect(seen).toEqual([undefined, undefined]);
  });
});
