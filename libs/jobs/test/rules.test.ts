import { JOB_STATES, nextJobState, orgsKeptOut, retryAt, retryDelayMs, type JobEvent, type JobState } from '../src/rules';

describe('nextJobState', () => {
  const table: [JobState, JobEvent, JobState | null][] = [
    ['queued', 'claim', 'running'],
    ['running', 'claim', null],
    ['running', 'takeover', 'running'],
    ['queued', 'takeover', null],
    ['running', 'succeed', 'succeeded'],
    ['queued', 'succeed', null],
    ['running', 'fail', 'failed'],
    ['running', 'retry', 'queued'],
    ['running', 'hand-back', 'queued'],
    ['queued', 'retry', null],
    ['queued', 'cancel', 'cancelled'],
    ['running', 'cancel', 'cancelled'],
    ['succeeded', 'cancel', null],
    ['failed', 'cancel', null],
    ['cancelled', 'claim', null],
  ];
  it.each(table)('%s --%s--> %s', (state, event, next) => {
    expect(nextJobState(state, event)).toBe(next);
  });

  it.each(['succeeded', 'failed', 'cancelled'] as const)('%s is final: no event moves it', (state) => {
    const events: JobEvent[] = ['claim', 'takeover', 'succeed', 'fail', 'retry', 'hand-back', 'cancel'];
    expect(events.map((e) => nextJobState(state, e))).toEqual(events.map(() => null));
  });

  it('knows every state', () => {
    expect(JOB_STATES).toEqual(['queued', 'running', 'succeeded', 'failed', 'cancelled']);
  });
});

describe('retryDelayMs (the one retry policy)', () => {
  const policy = { baseMs: 1000, maxMs: 10_000 };
  it.each([
    [1, 1, 1000],
    [1, 0, 500],
    [2, 1, 2000],
    [3, 0.5, 3000],
    [4, 1, 8000],
    [5, 1, 10_000],
    [20, 0, 5000],
  ])('after attempt %i (random %d): %i ms', (attempts, random, ms) => {
    expect(retryDelayMs(policy, attempts, () => random)).toBe(ms);
  });
});

describe('retryAt', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const policy = { baseMs: 1000, maxMs: 10_000 };
  it.each([
    [1, 3, 1000],
    [2, 3, 2000],
    [3, 3, null],
    [4, 3, null],
  ])('attempt %i of %i: again after %s ms', (attempts, max, ms) => {
    const at = retryAt(now, attempts, max, policy, () => 1);
    expect(at === null ? null : at.getTime() - now.getTime()).toBe(ms);
  });
});

describe('orgsKeptOut (fairness of a runner’s slots)', () => {
  it.each([
    ['one slot: nothing kept back', [], 1, []],
    ['one slot, in use', ['a'], 1, []],
    ['two free of two', [], 2, []],
    ['last of two: the org running here waits', ['a'], 2, ['a']],
    ['full', ['a', 'b'], 2, []],
    ['last of four, two orgs running', ['a', 'b', 'a'], 4, ['a', 'b']],
    ['two of four free', ['a', 'a'], 4, []],
  ] as [string, string[], number, string[]][])('%s', (_name, running, concurrency, keptOut) => {
    expect(orgsKeptOut(running, concurrency)).toEqual(keptOut);
  });
});
