import { buildEvent, handlerRetryDelay, InProcessEventBus, type EventEnvelope } from '../src';

const event = (key: string, n: number) => buildEvent('task.status-changed', key, null, { n });

describe('InProcessEventBus', () => {
  it('delivers one key in publish order, even when handlers take varying time', async () => {
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    await bus.subscribe({
      group: 'g',
      types: ['task.status-changed'],
      handler: async (e) => {
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        seen.push(`${e.key}:${(e.payload as { n: number }).n}`);
        return 'done';
      },
    });
    for (let n = 0; n < 20; n++) await bus.publish([event('a', n), event('b', n)]);
    await bus.drain();
    expect(seen.filter((s) => s.startsWith('a:'))).toEqual(Array.from({ length: 20 }, (_, n) => `a:${n}`));
    expect(seen.filter((s) => s.startsWith('b:'))).toEqual(Array.from({ length: 20 }, (_, n) => `b:${n}`));
  });

  it('gives each group its own copy and skips types a group did not ask for', async () => {
    const bus = new InProcessEventBus();
    const got: Record<string, EventEnvelope[]> = { one: [], two: [], other: [] };
    for (const group of ['one', 'two'] as const) {
      await bus.subscribe({ group, types: ['task.status-changed'], handler: async (e) => (got[group]!.push(e), 'done') });
    }
    await bus.subscribe({ group: 'other', types: ['index.deleted'], handler: async (e) => (got.other!.push(e), 'done') });
    await bus.publish([event('k', 1)]);
    await bus.drain();
    expect(got.one).toHaveLength(1);
    expect(got.two).toHaveLength(1);
    expect(got.other).toHaveLength(0);
  });

  it('retries a failing handler, then dead-letters the event with its error', async () => {
    const bus = new InProcessEventBus({ maxAttempts: 3, retryDelayMs: 1 });
    let calls = 0;
    await bus.subscribe({
      group: 'g',
      types: ['task.status-changed'],
      handler: async () => {
        calls++;
        throw new Error('downstream down');
      },
    });
    await bus.publish([event('k', 1)]);
    await bus.drain();
    expect(calls).toBe(3);
    expect(bus.deadLetters).toEqual([expect.objectContaining({ group: 'g', error: 'downstream down' })]);
  });

  it('stops retrying once the handler succeeds', async () => {
    const bus = new InProcessEventBus({ maxAttempts: 5, retryDelayMs: 1 });
    let calls = 0;
    await bus.subscribe({ group: 'g', types: ['task.status-changed'], handler: async () => (++calls < 3 ? 'retry' : 'done') });
    await bus.publish([event('k', 1)]);
    await bus.drain();
    expect(calls).toBe(3);
    expect(bus.deadLetters).toHaveLength(0);
  });
});

describe('handlerRetryDelay (both buses)', () => {
  it.each([
    [1, 200, 400],
    [2, 200, 800],
    [3, 200, 1600],
    [10, 200, 10_000],
  ])('attempt %i from %i ms: at most %i ms, at least half of it', (attempt, base, ceiling) => {
    const spy = jest.spyOn(Math, 'random');
    spy.mockReturnValue(1);
    expect(handlerRetryDelay(base, attempt)).toBe(ceiling);
    spy.mockReturnValue(0);
    expect(handlerRetryDelay(base, attempt)).toBe(ceiling / 2);
    spy.mockRestore();
  });
});
