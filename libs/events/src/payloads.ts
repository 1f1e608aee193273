/**
 * Payloads of the events that cross service boundaries: the producer writes exactly this, every
 * consumer reads exactly this. (The envelope around them is EventEnvelope.)
 */
import { TASK_STATUSES, type Clock, type TaskStatus } from '@vus/core';
import { buildEvent, type EventEnvelope } from './bus';

export { TASK_STATUSES, type TaskStatus } from '@vus/core';

/** `task.status-changed`, keyed by the task id, one per transition (including the first). */
export interface TaskStatusChangedPayload {
  task_id: string;
  index_id: string;
  video_id: string;
  status: TaskStatus;
  /** null for the task's first status. */
  previous_status: TaskStatus | null;
  /** Only when `status` is failed (absent or null otherwise); `code` is from the error catalogue. */
  failure?: { code: string; message: string } | null;
  [field: string]: unknown;
}

export function isTaskStatusChanged(payload: Record<string, unknown>): payload is TaskStatusChangedPayload {
  return (
    typeof payload.task_id === 'string' &&
    typeof payload.status === 'string' &&
    (TASK_STATUSES as readonly string[]).includes(payload.status)
  );
}

/**
 * `video.deleted`, keyed by the video id, one per deleted video (also each video of a deleted
 * index). Consumers drop what they hold for it: search-service its segments, task-service its blobs.
 */
export interface VideoDeletedPayload {
  index_id: string;
  video_id: string;
  /** The media file and every thumbnail index-service knew of. */
  blob_keys: string[];
  reason: 'video_deleted' | 'index_deleted';
  [field: string]: unknown;
}

export function isVideoDeleted(payload: Record<string, unknown>): payload is VideoDeletedPayload {
  return (
    typeof payload.index_id === 'string' &&
    typeof payload.video_id === 'string' &&
    Array.isArray(payload.blob_keys) &&
    payload.blob_keys.every((key) => typeof key === 'string')
  );
}

/** What a usage event measures; billing-service prices each kind (per category where it differs). */
export const USAGE_KINDS = ['media_seconds', 'output_tokens', 'requests'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

/**
 * `usage.recorded`, keyed by the organization id, one per metered amount (seconds of a probed
 * video, output tokens of a generation, an embedding served). The producer's `idempotency_key`
 * names the metered thing, so the same usage written twice (a retried task) is counted once by the
 * ledger. `category` is the rate-limit category (SPEC §8: `index`, `analyze`, `embed_audio` …) whose
 * minutes or tokens budgets the usage is debited from; without one it is spend only.
 */
export interface UsageRecordedPayload {
  kind: UsageKind;
  quantity: number;
  idempotency_key: string;
  /** When the usage happened (ISO 8601): it is billed in that month even if consumed later. */
  occurred_at: string;
  category?: string;
  [field: string]: unknown;
}

export function isUsageRecorded(payload: Record<string, unknown>): payload is UsageRecordedPayload {
  return (
    typeof payload.kind === 'string' &&
    (USAGE_KINDS as readonly string[]).includes(payload.kind) &&
    typeof payload.quantity === 'number' &&
    Number.isFinite(payload.quantity) &&
    payload.quantity >= 0 &&
    typeof payload.idempotency_key === 'string' &&
    payload.idempotency_key.length > 0 &&
    payload.idempotency_key.length <= 200 &&
    typeof payload.occurred_at === 'string' &&
    !Number.isNaN(Date.parse(payload.occurred_at)) &&
    (payload.category === undefined || (typeof payload.category === 'string' && payload.category.length <= 40))
  );
}

/** One metered amount, as its producer knows it. */
export interface MeteredUsage {
  kind: UsageKind;
  quantity: number;
  idempotencyKey: string;
  occurredAt: Date;
  /** The rate-limit category whose budgets it is debited from (a libs/limits Category). */
  category?: string | undefined;
}

/** The `usage.recorded` event of one metered amount of an organization, for its producer's outbox. */
export function usageRecorded(orgId: string, usage: MeteredUsage, clock?: Clock): EventEnvelope<UsageRecordedPayload> {
  const payload: UsageRecordedPayload = {
    kind: usage.kind,
    quantity: usage.quantity,
    idempotency_key: usage.idempotencyKey,
    occurred_at: usage.occurredAt.toISOString(),
    ...(usage.category ? { category: usage.category } : {}),
  };
  return buildEvent('usage.recorded', orgId, orgId, payload, clock);
}
