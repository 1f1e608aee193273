import { fromTimestamp } from '@vus/grpc';
import type { WebhookDelivery } from '@vus/grpc/types/task/v1/WebhookDelivery';
import type { WebhookEndpoint } from '@vus/grpc/types/task/v1/WebhookEndpoint';

const iso = (ts: WebhookEndpoint['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/**
 * A webhook endpoint (our extension: the same on every version, in the `_id` style of the rest).
 * `signing_secret` appears only in the answer to POST /webhooks: it is shown once.
 */
export function presentWebhookEndpoint(endpoint: WebhookEndpoint): Record<string, unknown> {
  return {
    _id: endpoint.id,
    url: endpoint.url,
    event_types: endpoint.event_types,
    created_at: iso(endpoint.created_at),
    ...(endpoint.signing_secret ? { signing_secret: endpoint.signing_secret } : {}),
  };
}

/** One entry of an endpoint's delivery log. */
export function presentWebhookDelivery(delivery: WebhookDelivery): Record<string, unknown> {
  return {
    _id: delivery.id,
    webhook_id: delivery.webhook_endpoint_id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_response_status: delivery.last_response_status || null,
    last_error: delivery.last_error || null,
    next_attempt_at: iso(delivery.next_attempt_at) ?? null,
    created_at: iso(delivery.created_at),
    delivered_at: iso(delivery.delivered_at) ?? null,
  };
}
