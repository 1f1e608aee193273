import { estimateCompletion, remainingSeconds } from '../src/tasks/estimate';
import type { TaskStatus } from '../src/tasks/status';

describe('remainingSeconds', () => {
  it.each<[string, number, number, number | undefined]>([
    ['half done after 30 s: 30 s more', 30, 50, 30],
    ['a quarter done after 10 s: 30 s more', 10, 25, 30],
    ['90 % after 90 s: 10 s more', 90, 90, 10],
    ['rounded to whole seconds', 10, 30, 23],
    ['a sliver of progress at once: a long but finite wait', 1, 0.5, 199],
    ['no progress yet: unknown', 120, 0, undefined],
    ['done: nothing left to estimate', 60, 100, undefined],
    ['progress past 100: nothing left', 60, 101, undefined],
    ['no time elapsed yet: nothing left at this pace', 0, 10, 0],
    ['a clock that went backwards: unknown', -5, 50, undefined],
    ['not a number: unknown', Number.NaN, 50, undefined],
  ])('%s', (_name, elapsedSec, percent, expected) => {
    expect(remainingSeconds(elapsedSec, percent)).toBe(expected);
  });
});

describe('estimateCompletion', () => {
  const at = (iso: string) => new Date(`2024-05-01T00:${iso}Z`);
  const history = (...steps: [TaskStatus, string][]) => steps.map(([status, time]) => ({ status, at: at(time) }));
  const indexingSince = (time: string) => history(['validating', '00:00'], ['pending', '00:05'], ['queued', '00:06'], ['indexing', time]);

  it.each<
    [
      string,
      { status: TaskStatus; progress: number; history: ReturnType<typeof history> },
      string,
      { remainSeconds: number; estimatedAt: string } | undefined,
    ]
  >([
    [
      '40 % after 20 s of indexing: done 30 s from now',
      { status: 'indexing', progress: 40, history: indexingSince('00:10') },
      '00:30',
      { remainSeconds: 30, estimatedAt: '2024-05-01T00:01:00.000Z' },
    ],
    [
      'timed from indexing, not from creation',
      { status: 'indexing', progress: 50, history: indexingSince('01:00') },
      '01:10',
      { remainSeconds: 10, estimatedAt: '2024-05-01T00:01:20.000Z' },
    ],
    ['indexing but no progress yet', { status: 'indexing', progress: 0, history: indexingSince('00:10') }, '00:30', undefined],
    [
      'pending: not started',
      { status: 'pending', progress: 0, history: history(['validating', '00:00'], ['pending', '00:05']) },
      '00:30',
      undefined,
    ],
    ['queued: not started', { status: 'queued', progress: 0, history: history(['queued', '00:05']) }, '00:30', undefined],
    [
      'ready: over',
      { status: 'ready', progress: 100, history: [...indexingSince('00:10'), ...history(['ready', '00:40'])] },
      '00:50',
      undefined,
    ],
    [
      'failed while indexing: over',
      { status: 'failed', progress: 60, history: [...indexingSince('00:10'), ...history(['failed', '00:40'])] },
      '00:50',
      undefined,
    ],
    [
      'indexing without a recorded start',
      { status: 'indexing', progress: 50, history: history(['validating', '00:00']) },
      '00:30',
      undefined,
    ],
  ])('%s', (_name, task, now, expected) => {
    const estimate = estimateCompletion(task, at(now));
    expect(estimate && { remainSeconds: estimate.remainSeconds, estimatedAt: estimate.estimatedAt.toISOString() }).toEqual(expected);
  });
});
