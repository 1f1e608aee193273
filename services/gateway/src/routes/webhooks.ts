import { knownId } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { parsePageQuery } from '../http/paging';
import { readQuery } from '../http/query';
import { presentWebhookDelivery, presentWebhookEndpoint } from '../presenters/webhooks';
import { configured, type RouteDeps } from './deps';
import * as docs from './webhooks.docs';
import { parseCreateWebhook, parseDeliveryStatuses } from './webhooks.schema';

const webhookIdParam = (raw: string | string[] | undefined) => knownId('Webhook endpoint', raw);

/**
 * Webhook endpoints (an extension of ours, on every version): register (the signing secret is in
 * this answer only), list, delete, and read an endpoint's delivery log.
 */
export function webhookEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const task = () => configured(clients.task, 'webhooks');
  return [
    {
      method: 'post',
      path: '/webhooks',
      doc: docs.registerWebhook,
      handle: async (req, res) => {
        const created = await task().createWebhookEndpoint(outgoing(res, timeoutMs), parseCreateWebhook(req.body));
        res.status(201).json(presentWebhookEndpoint(created));
      },
    },
    {
      method: 'get',
      path: '/webhooks',
      doc: docs.listWebhooks,
      handle: async (req, res) => {
        const page = parsePageQuery(readQuery(req.originalUrl));
        const result = await task().listWebhookEndpoints(outgoing(res, timeoutMs), page.page, page.pageLimit);
        res.json({ data: result.data.map(presentWebhookEndpoint), page_info: result.page_info });
      },
    },
    {
      method: 'delete',
      path: '/webhooks/:webhookId',
      doc: docs.deleteWebhook,
      handle: async (req, res) => {
        await task().deleteWebhookEndpoint(outgoing(res, timeoutMs), webhookIdParam(req.params.webhookId));
        res.status(204).end();
      },
    },
    {
      method: 'get',
      path: '/webhooks/:webhookId/deliveries',
      doc: docs.deliveries,
      handle: async (req, res) => {
        const query = readQuery(req.originalUrl);
        const page = parsePageQuery(query);
        const result = await task().listWebhookDeliveries(outgoing(res, timeoutMs), {
          webhook_endpoint_id: webhookIdParam(req.params.webhookId),
          page: { page: page.page, page_limit: page.pageLimit },
          statuses: parseDeliveryStatuses(query),
        });
        res.json({ data: result.data.map(presentWebhookDelivery), page_info: result.page_info });
      },
    },
  ];
}
