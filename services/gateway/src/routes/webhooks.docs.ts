import { z } from 'zod';
import { created, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id, pageInfo } from '../openapi/shapes';
import { createWebhook } from './webhooks.schema';

/**
 * The OpenAPI operations of routes/webhooks.ts (Webhooks): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

/** POST /webhooks */
export const registerWebhook: OperationDoc = () => ({
  summary: 'Register a webhook endpoint (this server’s extension)',
  tag: 'Webhooks',
  body: { json: createWebhook, required: true },
  responses: created(
    z.object({
      _id: id,
      url: z.string(),
      event_types: z.array(z.string()),
      created_at: z.string().optional(),
      signing_secret: z.string(),
    }),
  ),
});

/** GET /webhooks */
export const listWebhooks: OperationDoc = (s) => ({
  summary: 'List webhook endpoints',
  tag: 'Webhooks',
  query: { page: paging.page, page_limit: paging.page_limit },
  responses: ok(s.list(z.object({ _id: id, url: z.string(), event_types: z.array(z.string()), created_at: z.string().optional() }))),
});

/** DELETE /webhooks/{webhook_id} */
export const deleteWebhook: OperationDoc = () => ({ summary: 'Delete a webhook endpoint', tag: 'Webhooks', responses: noContent });

/** GET /webhooks/{webhook_id}/deliveries */
export const deliveries: OperationDoc = () => ({
  summary: 'The delivery log of a webhook endpoint',
  tag: 'Webhooks',
  query: { status: { schema: z.array(z.enum(['pending', 'succeeded', 'failed'])).optional() } },
  responses: ok(z.object({ data: z.array(z.record(z.string(), z.unknown())), page_info: pageInfo })),
});
