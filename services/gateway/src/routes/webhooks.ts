import { knownId } from '@vus/core';
import { Router } from 'express';
import { outgoing } from '../http/context';
import { parsePageQuery } from '../http/paging';
import { readQuery } from '../http/query';
import { presentWebhookDelivery, presentWebhookEndpoint } from '../presenters/webhooks';
import { configured, type RouteDeps } from './deps';
import { parseCreateWebhook, parseDeliveryStatuses } from './webhooks.schema';

const webhookIdParam = (raw: string | string[] | undefined) => knownId('Webhook endpoint', raw);

/**
 * Webhook endpoints (an extension of ours, on every version): register (the signing secret is in
 * this answer only), list, delete, and read an endpoint's delivery log.
 */
export function webhookRoutes({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Router {
  const router = Router();
  const task = () => configured(clients.task, 'webhooks');

  router.post('/webhooks', async (req, res) => {
    const created = await task().createWebhookEndpoint(outgoing(res, timeoutMs), parseCreateWebhook(req.body));
    res.status(201).json(presentWebhookEndpoint(created));
  });

  router.get('/webhooks', async (req, res) => {
    const page = parsePageQuery(readQuery(req.originalUrl));
    const result = await task().listWebhookEndpoints(outgoing(res, timeoutMs), page.page, page.pageLimit);
    res.json({ data: result.data.map(presentWebhookEndpoint), page_info: result.page_info });
  });

  router.delete('/webhooks/:webhookId', async (req, res) => {
    await task().deleteWebhookEndpoint(outgoing(res, timeoutMs), webhookIdParam(req.params.webhookId));
    res.status(204).end();
  });

  router.get('/webhooks/:webhookId/deliveries', async (req, res) => {
    const query = readQuery(req.originalUrl);
    const page = parsePageQuery(query);
    const result = await task().listWebhookDeliveries(outgoing(res, timeoutMs), {
      webhook_endpoint_id: webhookIdParam(req.params.webhookId),
      page: { page: page.page, page_limit: page.pageLimit },
      statuses: parseDeliveryStatuses(query),
    });
    res.json({ data: result.data.map(presentWebhookDelivery), page_info: result.page_info });
  });

  return router;
}
