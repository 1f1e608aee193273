import { canTransition, initialStatus, isDeletable, TASK_STATUSES, type TaskStatus } from '../src/tasks/status';

describe('task status machine', () => {
  // Every allowed step; everything else is refused.
  const ALLOWED: [TaskStatus, TaskStatus][] = [
    ['uploading', 'validating'],
    ['uploading', 'failed'],
    ['validating', 'pending'],
    ['validating', 'failed'],
    ['pending', 'queued'],
    ['pending', 'failed'],
    ['queued', 'indexing'],
    ['queued', 'failed'],
    ['indexing', 'ready'],
    ['indexing', 'failed'],
  ];

  it.each(TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as const)))('%s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(ALLOWED.some(([f, t]) => f === from && t === to));
  });

  it('starts an upload at validating and a URL at uploading', () => {
    expect(initialStatus({ kind: 'upload' })).toBe('validating');
    expect(initialStatus({ kind: 'url' })).toBe('uploading');
  });

  it.each(TASK_STATUSES.map((s) => [s, s === 'ready' || s === 'failed'] as const))('%s deletable: %s', (status, deletable) => {
    expect(isDeletable(status)).toBe(deletable);
  });
});
