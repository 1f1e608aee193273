/**
 * The indexing task's status machine (API-CONTRACT §4): pure data and rules.
 *
 *   uploading → validating → pending → queued → indexing → ready
 *        \___________\___________\_______\_________\______→ failed
 *
 * - uploading:  a `video_url` task whose media is being fetched into the blob store.
 * - validating: the media is stored; the worker probes and validates it.
 * - pending:    valid; waiting for an indexing slot.
 * - queued:     taken by a worker, media minutes reserved; the extractors are about to start.
 * - indexing:   extractors running (the task's `process` percentage moves).
 * - ready / failed: terminal.
 */
import { TASK_STATUSES, type TaskStatus } from '@vus/domain';

export { TASK_STATUSES, type TaskStatus } from '@vus/domain';

export const TERMINAL_STATUSES: readonly TaskStatus[] = ['ready', 'failed'];

/** Statuses a worker still has work to do in: the ones a lease is taken on. */
export const ACTIVE_STATUSES: readonly TaskStatus[] = ['uploading', 'validating', 'pending', 'queued', 'indexing'];

const NEXT: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  uploading: ['validating', 'failed'],
  validating: ['pending', 'failed'],
  pending: ['queued', 'failed'],
  queued: ['indexing', 'failed'],
  indexing: ['ready', 'failed'],
  ready: [],
  failed: [],
};

export function isTaskStatus(value: string): value is TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return NEXT[from].includes(to);
}

/** A transition the machine does not allow is a bug in the caller, never user input. */
export function assertTransition(from: TaskStatus, to: TaskStatus): void {
  if (!canTransition(from, to)) throw new Error(`task status cannot go from ${from} to ${to}`);
}

/** Where a task starts: an upload (or an image) is already stored, a URL still has to be fetched. */
export function initialStatus(source: { kind: 'upload' | 'url' | 'image' }): TaskStatus {
  return source.kind === 'url' ? 'uploading' : 'validating';
}

/** DELETE /tasks/{id} is allowed only on a finished task (API-CONTRACT §5.3). */
export function isDeletable(status: TaskStatus): boolean {
  return isTerminal(status);
}
