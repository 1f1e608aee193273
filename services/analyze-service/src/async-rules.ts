/**
 * Asynchronous analysis (/analyze/tasks, /analyze/batches) as pure rules: the statuses a task and
 * a batch pass, what a batch's status is given its items, the limits a request meets. No I/O, no clock.
 */
import { ApiError, errors } from '@vus/core';

export const ANALYSIS_MODES = ['general', 'time_based_metadata'] as const;
export type AnalysisMode = (typeof ANALYSIS_MODES)[number];

/**
 * A task's statuses (twelvelabs-js 1.3.4 AnalyzeTaskStatus, plus BatchItemStatus's `canceled` for
 * an item of a canceled or expired batch):
 *
 *   queued ──claim──→ processing ──→ ready | failed
 *      └── batch canceled or expired ──→ canceled
 *
 * `pending` is in the reference's list; this server never needs it (a task is queued until a
 * worker takes it), so no task reports it.
 */
export const TASK_STATUSES = ['queued', 'pending', 'processing', 'ready', 'failed', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** What may follow each status; anything else is a bug or a lost race, and is not written. */
const NEXT: Record<TaskStatus, readonly TaskStatus[]> = {
  queued: ['processing', 'canceled', 'failed'],
  pending: ['processing', 'canceled', 'failed'],
  // A run handed back (its worker stopped, its lease expired) is queued again.
  processing: ['ready', 'failed', 'queued'],
  ready: [],
  failed: [],
  canceled: [],
};

export function canMove(from: TaskStatus, to: TaskStatus): boolean {
  return NEXT[from].includes(to);
}

export const isEnded = (status: TaskStatus): boolean => NEXT[status].length === 0;

/** A task may be deleted unless a worker is analyzing it (the reference: "not currently being processed"). */
export function checkDeletable(taskId: string, status: TaskStatus): void {
  if (status === 'processing')
    throw new ApiError(
      'parameter_invalid',
      `The analysis task ${taskId} is being processed; delete it once its status is ready or failed.`,
      { param: 'task_id' },
    );
}

export const BATCH_STATUSES = ['pending', 'processing', 'canceling', 'canceled', 'completed', 'expired'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export interface ItemCounts {
  queued: number;
  processing: number;
  ready: number;
  failed: number;
  canceled: number;
}

export const noItems = (): ItemCounts => ({ queued: 0, processing: 0, ready: 0, failed: 0, canceled: 0 });

/** Items by status; a `pending` task counts as queued (the batch object has no pending items). */
export function countItems(statuses: readonly TaskStatus[]): ItemCounts {
  const counts = noItems();
  for (const s of statuses) counts[s === 'pending' ? 'queued' : s] += 1;
  return counts;
}

/** What was asked of the batch besides its items: a cancel, and whether its 24 hours are over. */
export interface BatchFacts {
  cancelRequested: boolean;
  /** Past expires_at when the items were last looked at (unfinished items are then canceled). */
  expired: boolean;
}

/**
 * A batch's status from its items (the reference's batch statuses): pending until an item is
 * taken, processing while any is unfinished; once none is, completed — or canceled when a cancel
 * was asked, expired when its time ran out first. A cancel asked while items still run is
 * `canceling`. A batch never fails: `completed` says only that every item ended.
 */
export function batchStatus(counts: ItemCounts, facts: BatchFacts): BatchStatus {
  const unfinished = counts.queued + counts.processing;
  if (unfinished > 0) {
    if (facts.cancelRequested) return 'canceling';
    return counts.processing + counts.ready + counts.failed + counts.canceled > 0 ? 'processing' : 'pending';
  }
  if (facts.expired) return 'expired';
  if (facts.cancelRequested) return 'canceled';
  return 'completed';
}

/** Cancel: only a pending or processing batch (the reference); cancelling a canceling one again changes nothing. */
export function checkCancelable(batchId: string, status: BatchStatus): void {
  if (status === 'pending' || status === 'processing' || status === 'canceling') return;
  throw errors.invalid('batch_id', `The batch ${batchId} is ${status}; only a pending or processing batch can be canceled.`);
}

/** Delete: only an ended batch (completed, canceled, expired). */
export function checkBatchDeletable(batchId: string, status: BatchStatus): void {
  if (status === 'completed' || status === 'canceled' || status === 'expired') return;
  throw errors.invalid(
    'batch_id',
    `The batch ${batchId} is ${status}; only a completed, canceled or expired batch can be deleted. Cancel it first.`,
  );
}

/** The reference's limits of a batch, and this server's bound on a batch's open work. */
export const BATCH_LIMITS = {
  /** Requests in one batch ("Up to 1,000 requests per batch"): more is refused, not truncated. */
  items: 1_000,
  /** Batches of one organization not yet ended ("Up to 5 active batches per account"). */
  activeBatches: 5,
  /** A batch expires 24 hours after creation; unfinished items are then canceled. */
  lifetimeMs: 24 * 3_600_000,
} as const;

/** The range of max_tokens per mode (the reference's table), and the default when unset. */
export const MAX_TOKENS_RANGE: Record<AnalysisMode, { min: number; max: number; default: number }> = {
  general: { min: 512, max: 98_304, default: 4_096 },
  time_based_metadata: { min: 2_048, max: 98_304, default: 32_768 },
};

export function maxTokensOf(mode: AnalysisMode, asked: number | undefined): number {
  const range = MAX_TOKENS_RANGE[mode];
  if (asked === undefined || asked === 0) return range.default;
  if (!Number.isInteger(asked) || asked < range.min || asked > range.max)
    throw errors.invalid('max_tokens', `With analysis_mode ${mode} it must be an integer from ${range.min} to ${range.max}.`);
  return asked;
}

const CUSTOM_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** custom_id: 1–64 letters, digits, hyphens and underscores (the reference); '' is none. */
export function checkCustomId(customId: string, param = 'custom_id'): void {
  if (customId !== '' && !CUSTOM_ID.test(customId))
    throw errors.invalid(param, 'It must be 1 to 64 characters: letters, digits, hyphens (-) and underscores (_).');
}

/** custom_id values must be unique within a batch (the reference: 400 otherwise). */
export function checkUniqueCustomIds(customIds: readonly string[]): void {
  const seen = new Set<string>();
  customIds.forEach((id, i) => {
    if (id === '') return;
    if (seen.has(id)) throw errors.invalid(`requests[${i}].custom_id`, `${id} is used by an earlier request of this batch.`);
    seen.add(id);
  });
}

/** The truncation notice a ready task carries when its answer was cut at max_tokens (AnalyzeTaskError). */
export const TRUNCATED_MESSAGE =
  'output truncated: the generation reached the configured max_tokens. The partial output is returned; raise max_tokens for a complete answer.';
