import { parseInput, knownId } from '@vus/core';
import { optionalTimestamp, requireOrg, toTimestamp, type AsyncHandlers } from '@vus/grpc';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import type { WebhookDelivery__Input } from '@vus/grpc/types/task/v1/WebhookDelivery';
import type { WebhookEndpoint__Input } from '@vus/grpc/types/task/v1/WebhookEndpoint';
import { z } from 'zod';
import { DELIVERY_STATUSES, type WebhookDeliveryRecord, type WebhookEndpointRecord, type WebhookService } from './webhooks';

/** The webhook RPCs of TaskService: thin, validated again here. */
export type WebhookHandlers = Pick<
  AsyncHandlers<TaskServiceHandlers>,
  'CreateWebhookEndpoint' | 'ListWebhookEndpoints' | 'DeleteWebhookEndpoint' | 'ListWebhookDeliveries'
>;

// proto3 has no required fields and the gateway is not the only caller: validate here too.
const pageSchema = z.object({ page: z.number().int().min(0), page_limit: z.number().int().min(0) }).nullable();
const createWebhookSchema = z.object({ url: z.string(), event_types: z.array(z.string()) });
const listDeliveriesSchema = z.object({ webhook_endpoint_id: z.string(), page: pageSchema, statuses: z.array(z.enum(DELIVERY_STATUSES)) });

const endpointId = (raw: string) => knownId('Webhook endpoint', raw);

export function toProtoEndpoint(endpoint: WebhookEndpointRecord, withSecret = false): WebhookEndpoint__Input {
  return {
    id: endpoint.id,
    url: endpoint.url,
    event_types: endpoint.eventTypes,
    signing_secret: withSecret ? endpoint.secret : '',
    created_at: toTimestamp(endpoint.createdAt),
  };
}

export function toProtoDelivery(delivery: WebhookDeliveryRecord): WebhookDelivery__Input {
  return {
    id: delivery.id,
    webhook_endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_response_status: delivery.lastResponseStatus,
    last_error: delivery.lastError,
    next_attempt_at: optionalTimestamp(delivery.status === 'pending' ? delivery.nextAttemptAt : null),
    created_at: toTimestamp(delivery.createdAt),
    delivered_at: optionalTimestamp(delivery.deliveredAt),
  };
}

export function webhookHandlers(webhooks: WebhookService): WebhookHandlers {
  return {
    async CreateWebhookEndpoint(request, ctx) {
      const input = parseInput(createWebhookSchema, request);
      const created = await webhooks.create(requireOrg(ctx), { url: input.url, eventTypes: input.event_types });
      return toProtoEndpoint(created, true);
    },
    async ListWebhookEndpoints(request, ctx) {
      const page = parseInput(z.object({ page: pageSchema }), request).page;
      const result = await webhooks.list(requireOrg(ctx), { page: page?.page, pageLimit: page?.page_limit });
      return { data: result.data.map((e) => toProtoEndpoint(e)), page_info: result.pageInfo };
    },
    async DeleteWebhookEndpoint(request, ctx) {
      await webhooks.delete(requireOrg(ctx), endpointId(request.webhook_endpoint_id));
      return {};
    },
    async ListWebhookDeliveries(request, ctx) {
      const input = parseInput(listDeliveriesSchema, request);
      const result = await webhooks.deliveries(requireOrg(ctx), endpointId(input.webhook_endpoint_id), input.statuses, {
        page: input.page?.page,
        pageLimit: input.page?.page_limit,
      });
      return { data: result.data.map(toProtoDelivery), page_info: result.pageInfo };
    },
  };
}
