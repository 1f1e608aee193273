import { gateDecision, KeyedGate, type KeyLoad } from '../src/keyed-gate';

describe('gateDecision', () => {
  it.each<[KeyLoad, 'run' | 'wait' | 'refuse']>([
    [{ running: 0, waiting: 0 }, 'run'],
    [{ running: 1, waiting: 0 }, 'run'],
    [{ running: 2, waiting: 0 }, 'wait'],
    [{ running: 2, waiting: 2 }, 'wait'],
    [{ running: 2, waiting: 3 }, 'refuse'],
  ])('2 running and 3 waiting at most, holding %j: %s', (load, expected) => {
    expect(gateDecision(load, { running: 2, waiting: 3 })).toBe(expected);
  });

  it.each<[KeyLoad, 'run' | 'refuse']>([
    [{ running: 1, waiting: 0 }, 'run'],
    [{ running: 2, waiting: 0 }, 'refuse'],
  ])('without a queue, holding %j: %s', (load, expected) => {
    expect(gateDecision(load, { running: 2, waiting: 0 })).toBe(expected);
  });
});

/** A piece of work that runs until released, counting how many of its key run at once. */
function blocker() {
  const releases: (() => void)[] = [];
  let running = 0;
  let most = 0;
  let started = 0;
  const work = () =>
    new Promise<string>((resolve) => {
      started++;
      most = Math.max(most, ++running);
      releases.push(() => (running--, resolve('done')));
    });
  return {
    work,
    releaseOne: () => releases.shift()?.(),
    stats: () => ({ running, most, started }),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedGate', () => {
  const refused = (key: string, load: KeyLoad) => new Error(`${key} is full (${load.running} running, ${load.waiting} waiting)`);

  it('runs at most `running` per key, queues `waiting` more in order, refuses the rest', async () => {
    const gate = new KeyedGate({ running: 2, waiting: 1 }, refused);
    const a = blocker();
    const runs = [gate.run('a', a.work), gate.run('a', a.work), gate.run('a', a.work)];
    await expect(gate.run('a', a.work)).rejects.toThrow('a is full (2 running, 1 waiting)');
    await settle();
    expect(a.stats()).toEqual({ running: 2, most: 2, started: 2 });
    expect(gate.loadOf('a')).toEqual({ running: 2, waiting: 1 });
    a.releaseOne();
    await settle();
    expect(a.stats()).toEqual({ running: 2, most: 2, started: 3 });
    a.releaseOne();
    a.releaseOne();
    await expect(Promise.all(runs)).resolves.toEqual(['done', 'done', 'done']);
    expect(gate.loadOf('a')).toEqual({ running: 0, waiting: 0 });
  });

  it("never holds one key's work behind another's", async () => {
    const gate = new KeyedGate({ running: 1, waiting: 0 }, refused);
    const a = blocker();
    const first = gate.run('a', a.work);
    await expect(gate.run('a', async () => 'second')).rejects.toThrow('a is full');
    await expect(gate.run('b', async () => 'b ran')).resolves.toBe('b ran');
    a.releaseOne();
    await expect(first).resolves.toBe('done');
  });

  it('drops waiting work whose caller gave up, and frees the slot of work that failed', async () => {
    const gate = new KeyedGate({ running: 1, waiting: 2 }, refused);
    const a = blocker();
    const first = gate.run('a', a.work);
    const gone = new AbortController();
    const abandoned = gate.run('a', a.work, gone.signal);
    const later = gate.run('a', a.work);
    gone.abort(new Error('caller left'));
    await expect(abandoned).rejects.toThrow('caller left');
    expect(gate.loadOf('a')).toEqual({ running: 1, waiting: 1 });
    a.releaseOne();
    await settle();
    expect(a.stats().started).toBe(2);
    a.releaseOne();
    await Promise.all([first, later]);
    await expect(gate.run('a', async () => Promise.reject(new Error('broke')))).rejects.toThrow('broke');
    expect(gate.loadOf('a')).toEqual({ running: 0, waiting: 0 });
    await expect(gate.run('a', async () => 'free again')).resolves.toBe('free again');
  });

  it('refuses work whose caller already left', async () => {
    const gate = new KeyedGate({ running: 1, waiting: 0 }, refused);
    await expect(gate.run('a', async () => 'ran', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });
});
