import type { TaskStatus } from '../tasks/status';
import type { ItemStatus } from './knowledge-stores';

/**
 * A knowledge-store item's status is its indexing task's (issue 33), in the item's words
 * (twelvelabs-js 1.3.4 KnowledgeStoreItemStatus, whose reference says an item is created `queued`
 * and, like an analysis task, is `pending` once queued and waiting to start): the task has its
 * media checked and waits for a slot (queued), waits on the job queue for a worker (pending), runs
 * the extractors (processing), then is searchable (ready) or failed.
 */
export const ITEM_STATUS_OF_TASK: Readonly<Record<TaskStatus, ItemStatus>> = Object.freeze({
  uploading: 'queued',
  validating: 'queued',
  pending: 'queued',
  queued: 'pending',
  indexing: 'processing',
  ready: 'ready',
  failed: 'failed',
});

/** The item's status: its task's when it has one, else the one stored on the item. Pure. */
export function itemStatusOf(taskStatus: TaskStatus | null, stored: ItemStatus): ItemStatus {
  return taskStatus === null ? stored : ITEM_STATUS_OF_TASK[taskStatus];
}

/**
 * The same mapping as a SQL expression over the task's status column and the item's own, so lists
 * filter and count on the status they show. Built from ITEM_STATUS_OF_TASK (the literals are its
 * own keys and values, never input).
 */
export function itemStatusSql(taskStatusColumn: string, storedColumn: string): string {
  const cases = Object.entries(ITEM_STATUS_OF_TASK).map(([task, item]) => `WHEN '${task}' THEN '${item}'`);
  return `coalesce(CASE ${taskStatusColumn} ${cases.join(' ')} END, ${storedColumn})`;
}
