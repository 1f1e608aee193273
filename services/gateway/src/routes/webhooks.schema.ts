import { parseInput } from '@vus/core';
import type { CreateWebhookEndpointRequest__Input } from '@vus/grpc/types/task/v1/CreateWebhookEndpointRequest';
import { z } from 'zod';
import { looseList } from '../http/coerce';
import { list, type RawQuery } from '../http/query';

/** Our extension (not in the Twelve Labs contract); the same on every version. */
export const createWebhook = z.object({
  url: z.string({ error: 'expected a string' }),
  event_types: looseList(z.string()).optional(),
});

/** POST /webhooks: `url` and optional `event_types` (default: index.task.ready and index.task.failed). */
export function parseCreateWebhook(body: unknown): CreateWebhookEndpointRequest__Input {
  const input = parseInput(createWebhook, body);
  return { url: input.url, event_types: input.event_types ?? [] };
}

const deliveryStatuses = z.array(z.enum(['pending', 'succeeded', 'failed']));

/** GET /webhooks/{id}/deliveries?status=failed&status=pending */
export function parseDeliveryStatuses(query: RawQuery): ('pending' | 'succeeded' | 'failed')[] {
  return parseInput(z.object({ status: deliveryStatuses }), { status: list(query, 'status') ?? [] }).status;
}
