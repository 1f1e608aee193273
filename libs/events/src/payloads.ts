/**
 * Payloads of the events that cross service boundaries: one zod schema per event type, the single
 * source of the producer's type (z.infer) and of what every consumer accepts (`payloadOf` parses
 * with it). The producer writes exactly this, every consumer reads exactly this; fields beyond the
 * schema's pass through (a newer producer may add some). The envelope around them is EventEnvelope.
 */
import { type Clock } from '@vus/core';
import { TASK_STATUSES } from '@vus/domain';
import { z } from 'zod';
import { buildEvent, type EventEnvelope } from './bus';
import type { EventType } from './topics';

export { TASK_STATUSES, type TaskStatus } from '@vus/domain';

const taskStatus = z.enum(TASK_STATUSES);

/** `index.created` and `index.deleted`, keyed by the index id. */
export const indexEventSchema = z.looseObject({ index_id: z.string() });
export type IndexEventPayload = z.infer<typeof indexEventSchema>;

/** `task.created`, keyed by the task id: enough for the worker (and webhooks) to find the task. */
export const taskCreatedSchema = z.looseObject({
  task_id: z.string(),
  index_id: z.string(),
  video_id: z.string(),
  status: taskStatus,
  failure: z.object({ code: z.string(), message: z.string() }).nullish(),
});
export type TaskCreatedPayload = z.infer<typeof taskCreatedSchema>;

/** `task.status-changed`, keyed by the task id, one per transition (including the first). */
export const taskStatusChangedSchema = z.looseObject({
  task_id: z.string(),
  index_id: z.string(),
  video_id: z.string(),
  status: taskStatus,
  /** null for the task's first status. */
  previous_status: taskStatus.nullable(),
  /** Only when `status` is failed (absent or null otherwise); `code` is from the error catalogue. */
  failure: z.object({ code: z.string(), message: z.string() }).nullish(),
});
export type TaskStatusChangedPayload = z.infer<typeof taskStatusChangedSchema>;

/**
 * `video.deleted`, keyed by the video id, one per deleted video (also each video of a deleted
 * index). Consumers drop what they hold for it: search-service its segments, task-service its blobs.
 */
export const videoDeletedSchema = z.looseObject({
  index_id: z.string(),
  video_id: z.string(),
  /** The media file and every thumbnail index-service knew of. */
  blob_keys: z.array(z.string()),
  reason: z.enum(['video_deleted', 'index_deleted']),
});
export type VideoDeletedPayload = z.infer<typeof videoDeletedSchema>;

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
export const usageRecordedSchema = z.looseObject({
  kind: z.enum(USAGE_KINDS),
  // zod's number is finite (no NaN, no Infinity).
  quantity: z.number().min(0),
  idempotency_key: z.string().min(1).max(200),
  /** When the usage happened (ISO 8601): it is billed in that month even if consumed later. */
  occurred_at: z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not a date'),
  category: z.string().max(40).optional(),
});
export type UsageRecordedPayload = z.infer<typeof usageRecordedSchema>;

/** Every event type's payload schema: the registry consumers are checked against at boot. */
/**
 * `analyze-task.status-changed`, keyed by the analysis task id: analyze-service writes one when a task
 * ends (ready or failed); task-service's webhooks send it as analyze.task.ready / analyze.task.failed.
 */
export const analyzeTaskStatusChangedSchema = z.looseObject({
  task_id: z.string(),
  status: z.enum(['ready', 'failed']),
  /** The caller's custom_id, null when none was set. */
  custom_id: z.string().nullable(),
  /** The batch the task is an item of, null when created alone. */
  batch_id: z.string().nullable(),
  /** failed: why; ready and cut at max_tokens: the truncation notice. */
  message: z.string().nullable(),
});
export type AnalyzeTaskStatusChangedPayload = z.infer<typeof analyzeTaskStatusChangedSchema>;

export const EVENT_PAYLOADS = {
  'index.created': indexEventSchema,
  'index.deleted': indexEventSchema,
  'video.deleted': videoDeletedSchema,
  'task.created': taskCreatedSchema,
  'task.status-changed': taskStatusChangedSchema,
  'usage.recorded': usageRecordedSchema,
  'analyze-task.status-changed': analyzeTaskStatusChangedSchema,
} as const satisfies Record<EventType, z.ZodType>;

export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

/** Whether some payload schema describes `type` (a consumer of anything else is refused at boot). */
export function hasPayloadSchema(type: string): type is EventType {
  return Object.hasOwn(EVENT_PAYLOADS, type);
}

/**
 * The event's payload read by `type`'s schema, or undefined when it does not fit: the consumer
 * skips it (and says so where it did before), as it did for a failed type guard.
 */
export function payloadOf<T extends EventType>(type: T, event: Pick<EventEnvelope, 'payload'>): EventPayload<T> | undefined {
  const schema: z.ZodType = EVENT_PAYLOADS[type];
  const parsed = schema.safeParse(event.payload);
  return parsed.success ? (parsed.data as EventPayload<T>) : undefined;
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

/** An analysis task ended (analyze-service, in the transaction of its end). */
export function analyzeTaskStatusChanged(
  orgId: string,
  payload: AnalyzeTaskStatusChangedPayload,
  clock?: Clock,
): EventEnvelope<AnalyzeTaskStatusChangedPayload> {
  return buildEvent('analyze-task.status-changed', payload.task_id, orgId, payload, clock);
}
