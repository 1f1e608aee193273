import { ApiError, errors, listPage, newId, type Clock, type PageInfo } from '@vus/core';
import type { Queryable } from '@vus/db';
import type { AnalyzeTaskStatusChangedPayload, EventEnvelope, TaskStatusChangedPayload } from '@vus/events';
import type { AddressGuard } from '@vus/fetch';
import { newSigningSecret } from './signature';
import { checkWebhookUrl } from './webhook-url';

/**
 * Webhook event types a client can register for. `index.task.status_changed` is sent for every
 * transition (ready and failed included); the other two only for those outcomes. The analyze.task
 * pair is sent when an asynchronous analysis task ends (analyze-service's analyze-task.status-changed).
 */
export const WEBHOOK_EVENT_TYPES = [
  'index.task.ready',
  'index.task.failed',
  'index.task.status_changed',
  'analyze.task.ready',
  'analyze.task.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** What an endpoint registered without event types receives. */
export const DEFAULT_WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = ['index.task.ready', 'index.task.failed'];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Endpoints per organization: enough for every real setup, a bound on fan-out per event. */
export const MAX_ENDPOINTS_PER_ORG = 20;

export interface WebhookEndpointRecord {
  id: string;
  orgId: string;
  url: string;
  eventTypes: WebhookEventType[];
  secret: string;
  createdAt: Date;
}

export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  orgId: string;
  eventId: string;
  eventType: WebhookEventType;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  lastResponseStatus: number;
  lastError: string;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface WebhookStore {
  /** Inserts unless the org already has MAX_ENDPOINTS_PER_ORG; false when full. */
  insertEndpoint(endpoint: WebhookEndpointRecord): Promise<boolean>;
  listEndpoints(orgId: string, limit: number, offset: number): Promise<{ rows: WebhookEndpointRecord[]; total: number }>;
  deleteEndpoint(orgId: string, id: string, at: Date): Promise<boolean>;
  endpointExists(orgId: string, id: string): Promise<boolean>;
  listDeliveries(
    orgId: string,
    endpointId: string,
    statuses: DeliveryStatus[],
    limit: number,
    offset: number,
  ): Promise<{ rows: WebhookDeliveryRecord[]; total: number }>;
  /** The org's live endpoints, inside the fan-out transaction. */
  endpointsOf(tx: Queryable, orgId: string): Promise<WebhookEndpointRecord[]>;
  /** Whether the index is a knowledge store's (internal, issue 33): its tasks are the store's, not the user's, and send nothing. */
  isKnowledgeStoreIndex(tx: Queryable, orgId: string, indexId: string): Promise<boolean>;
  /** Inserts deliveries, skipping any already planned for the same endpoint, event and type. */
  insertDeliveries(tx: Queryable, deliveries: WebhookDeliveryRecord[]): Promise<number>;
}

/** The JSON body receivers get; `id` is the delivery id (also in VUS-Webhook-Id). */
export interface WebhookBody {
  id: string;
  type: WebhookEventType;
  created_at: string;
  data: IndexTaskData | AnalyzeTaskData;
}

/** An indexing task's change (index.task.*). */
interface IndexTaskData {
  task_id: string;
  index_id: string;
  video_id: string;
  status: string;
  previous_status: string | null;
  failure: { code: string; message: string } | null;
}

/** An analysis task's end (analyze.task.*): error.message says why it failed, or that a ready answer was cut. */
interface AnalyzeTaskData {
  task_id: string;
  custom_id: string | null;
  batch_id: string | null;
  status: 'ready' | 'failed';
  error: { message: string } | null;
}

/** The webhook event types one status change produces. */
export function webhookEventsFor(status: string): WebhookEventType[] {
  const types: WebhookEventType[] = ['index.task.status_changed'];
  if (status === 'ready') types.push('index.task.ready');
  if (status === 'failed') types.push('index.task.failed');
  return types;
}

/**
 * The deliveries one `task.status-changed` event makes: one per endpoint and registered type.
 * Pure: the ids are new, but a replanned event is absorbed by the store's unique key.
 */
export function planDeliveries(
  event: EventEnvelope<TaskStatusChangedPayload>,
  endpoints: readonly WebhookEndpointRecord[],
  now: Date,
): WebhookDeliveryRecord[] {
  const { payload } = event;
  return deliveriesOf(event, webhookEventsFor(payload.status), endpoints, now, {
    task_id: payload.task_id,
    index_id: payload.index_id,
    video_id: payload.video_id,
    status: payload.status,
    previous_status: payload.previous_status,
    failure: payload.failure ?? null,
  });
}

/** The deliveries of an analysis task's end (`analyze-task.status-changed`): analyze.task.ready or analyze.task.failed. */
export function planAnalyzeTaskDeliveries(
  event: EventEnvelope<AnalyzeTaskStatusChangedPayload>,
  endpoints: readonly WebhookEndpointRecord[],
  now: Date,
): WebhookDeliveryRecord[] {
  const { payload } = event;
  return deliveriesOf(event, [payload.status === 'ready' ? 'analyze.task.ready' : 'analyze.task.failed'], endpoints, now, {
    task_id: payload.task_id,
    custom_id: payload.custom_id,
    batch_id: payload.batch_id,
    status: payload.status,
    error: payload.message === null ? null : { message: payload.message },
  });
}

/** One delivery per endpoint and event type it registered for, each body carrying `data`. */
function deliveriesOf(
  event: Pick<EventEnvelope, 'id' | 'occurred_at'>,
  produced: readonly WebhookEventType[],
  endpoints: readonly WebhookEndpointRecord[],
  now: Date,
  data: WebhookBody['data'],
): WebhookDeliveryRecord[] {
  return endpoints.flatMap((endpoint) =>
    produced
      .filter((type) => endpoint.eventTypes.includes(type))
      .map((type): WebhookDeliveryRecord => {
        const id = newId(now);
        const body: WebhookBody = { id, type, created_at: event.occurred_at, data };
        return {
          id,
          endpointId: endpoint.id,
          orgId: endpoint.orgId,
          eventId: event.id,
          eventType: type,
          body: JSON.stringify(body),
          status: 'pending',
          attempts: 0,
          lastResponseStatus: 0,
          lastError: '',
          nextAttemptAt: now,
          createdAt: now,
          deliveredAt: null,
        };
      }),
  );
}

export function normalizeEventTypes(requested: readonly string[]): WebhookEventType[] {
  if (requested.length === 0) return [...DEFAULT_WEBHOOK_EVENT_TYPES];
  const unknown = requested.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) {
    throw errors.invalid('event_types', `Unknown event type ${unknown.join(', ')}; use ${WEBHOOK_EVENT_TYPES.join(', ')}.`);
  }
  return [...new Set(requested as WebhookEventType[])];
}

export interface WebhookDeps {
  store: WebhookStore;
  guard: AddressGuard;
  clock: Clock;
}

export function createWebhookService({ store, guard, clock }: WebhookDeps) {
  const requireEndpoint = async (orgId: string, id: string) => {
    if (!(await store.endpointExists(orgId, id))) throw errors.notFound('Webhook endpoint', id);
  };
  return {
    /** Registers an endpoint; the returned record is the only time its secret leaves the service. */
    async create(orgId: string, input: { url: string; eventTypes: readonly string[] }): Promise<WebhookEndpointRecord> {
      if (!input.url) throw errors.notProvided('url');
      const url = await checkWebhookUrl(guard, input.url);
      const endpoint: WebhookEndpointRecord = {
        id: newId(clock.now()),
        orgId,
        url: url.toString(),
        eventTypes: normalizeEventTypes(input.eventTypes),
        secret: newSigningSecret(),
        createdAt: clock.now(),
      };
      if (!(await store.insertEndpoint(endpoint))) {
        throw new ApiError('parameter_invalid', `An organization can register at most ${MAX_ENDPOINTS_PER_ORG} webhook endpoints.`, {
          param: 'url',
        });
      }
      return endpoint;
    },

    async list(
      orgId: string,
      paging: { page?: number; pageLimit?: number },
    ): Promise<{ data: WebhookEndpointRecord[]; pageInfo: PageInfo }> {
      return listPage(paging, (limit, offset) => store.listEndpoints(orgId, limit, offset));
    },

    async delete(orgId: string, id: string): Promise<void> {
      if (!(await store.deleteEndpoint(orgId, id, clock.now()))) throw errors.notFound('Webhook endpoint', id);
    },

    async deliveries(
      orgId: string,
      endpointId: string,
      statuses: DeliveryStatus[],
      paging: { page?: number; pageLimit?: number },
    ): Promise<{ data: WebhookDeliveryRecord[]; pageInfo: PageInfo }> {
      return listPage(paging, async (limit, offset) => {
        await requireEndpoint(orgId, endpointId);
        return store.listDeliveries(orgId, endpointId, statuses, limit, offset);
      });
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
