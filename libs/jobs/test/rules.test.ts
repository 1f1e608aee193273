import {
  endOfRun,
  nextToClaim,
  orgsAfterOthers,
  retryAt,
  retryDelayMs,
  type ClaimCandidate,
  type ClaimLimits,
  type JobOutcome,
  type RunEnd,
} from '../src/rules';

describe('endOfRun', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const later = new Date('2026-01-01T00:01:00Z');
  const table: [string, JobOutcome, Date | null, boolean, RunEnd][] = [
    ['succeeded', { kind: 'succeeded' }, later, false, { write: 'finish', state: 'succeeded' }],
    ['failed for good', { kind: 'failed', error: 'broken' }, later, false, { write: 'finish', state: 'failed', error: 'broken' }],
    ['a retry with attempts left', { kind: 'retry', error: 'outage' }, later, false, { write: 'requeue', runAt: later, error: 'outage' }],
    [
      'a retry after the last attempt',
      { kind: 'retry', error: 'outage' },
      null,
      false,
      { write: 'finish', state: 'failed', error: 'outage' },
    ],
    ['a retry while stopping', { kind: 'retry', error: 'outage' }, later, true, { write: 'requeue', runAt: later, error: 'outage' }],
    ['lost (taken over or cancelled)', { kind: 'lost' }, later, false, { write: 'nothing' }],
    ['aborted by a stopping runner: handed back now', { kind: 'lost' }, later, true, { write: 'requeue', runAt: now }],
    ['succeeded while stopping', { kind: 'succeeded' }, null, true, { write: 'finish', state: 'succeeded' }],
  ];
  it.each(table)('%s', (_name, outcome, retryAt, stopping, end) => {
    expect(endOfRun(outcome, retryAt, stopping, now)).toEqual(end);
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

describe('orgsAfterOthers (fairness of a runner’s slots)', () => {
  it.each([
    ['one slot: nobody after anyone', [], 1, []],
    ['one slot, in use', ['a'], 1, []],
    ['two free of two', [], 2, []],
    ['last of two: the org running here goes after the others', ['a'], 2, ['a']],
    ['full', ['a', 'b'], 2, []],
    ['last of four, two orgs running', ['a', 'b', 'a'], 4, ['a', 'b']],
    ['two of four free', ['a', 'a'], 4, []],
  ] as [string, string[], number, string[]][])('%s', (_name, running, concurrency, afterOthers) => {
    expect(orgsAfterOthers(running, concurrency)).toEqual(afterOthers);
  });
});

describe('nextToClaim (round robin between organizations)', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  /** A candidate: `org:id`, due at second `due`, `running` jobs of its org, its org's last claim at second `last` (null: never). */
  const c = (id: string, due: number, running: number, last: number | null): ClaimCandidate => ({
    id,
    orgId: id.split(':')[0]!,
    runAt: at(due),
    running,
    lastClaimedAt: last === null ? null : at(last),
  });
  it.each([
    ['nothing due', [], {}, undefined],
    ['one candidate', [c('a:1', 0, 0, null)], {}, 'a:1'],
    ['never served before served, though due later', [c('a:1', 0, 0, 50), c('b:1', 40, 0, null)], {}, 'b:1'],
    ['the turn longest ago first', [c('a:1', 0, 0, 50), c('b:1', 10, 0, 30), c('c:1', 5, 0, 45)], {}, 'b:1'],
    ['fewer running beats an older turn', [c('a:1', 0, 1, 10), c('b:1', 20, 0, 50)], {}, 'b:1'],
    ['same turn: the job due first', [c('a:1', 9, 0, null), c('b:1', 3, 0, null)], {}, 'b:1'],
    ['same turn and due time: by id', [c('b:1', 3, 0, 7), c('a:1', 3, 0, 7)], {}, 'a:1'],
    [
      'an organization after others waits while another has a job due',
      [c('a:1', 0, 1, null), c('b:1', 5, 1, 60)],
      { afterOthers: ['a'] },
      'b:1',
    ],
    ['after others, though the other runs more elsewhere', [c('a:1', 0, 1, null), c('b:1', 5, 3, 60)], { afterOthers: ['a'] }, 'b:1'],
    ['nobody else due: the organization after others takes the slot', [c('a:1', 0, 1, null)], { afterOthers: ['a'] }, 'a:1'],
    [
      'every organization after others: the claim order decides',
      [c('a:1', 0, 1, 9), c('b:1', 5, 1, 3)],
      { afterOthers: ['a', 'b'] },
      'b:1',
    ],
    [
      'the other at the cap: the organization after others goes',
      [c('a:1', 0, 1, null), c('b:1', 5, 2, 60)],
      { afterOthers: ['a'], perOrgLimit: 2 },
      'a:1',
    ],
    ['after others and at the cap', [c('a:1', 0, 2, null)], { afterOthers: ['a'], perOrgLimit: 2 }, undefined],
    ['at the per-organization cap', [c('a:1', 0, 2, null), c('b:1', 5, 2, 60)], { perOrgLimit: 2 }, undefined],
    ['under the cap', [c('a:1', 0, 2, null), c('b:1', 5, 1, 60)], { perOrgLimit: 2 }, 'b:1'],
  ] as [string, ClaimCandidate[], ClaimLimits, string | undefined][])('%s', (_name, candidates, limits, id) => {
    expect(nextToClaim(candidates, limits)?.id).toBe(id);
  });
});
