import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { handleOnce, payloadOf, type EventHandler } from '@vus/events';
import { planDeliveries, type WebhookStore } from './webhooks';

/** The consumer group (and handled-ids name) of the fan-out. */
export const WEBHOOK_FANOUT_GROUP = 'task-service.webhooks';

/**
 * Turns each `task.status-changed` event into delivery rows for the organization's endpoints, in
 * one transaction with the handled id: a redelivered event plans nothing twice. Sending is the
 * dispatcher's job, woken through `planned`.
 */
export function webhookFanout(deps: {
  db: Database;
  store: WebhookStore;
  clock: Clock;
  logger: Logger;
  planned: () => void;
}): EventHandler {
  const handle = handleOnce(deps.db, WEBHOOK_FANOUT_GROUP, async (event, tx) => {
    const payload = payloadOf('task.status-changed', event);
    if (!event.org_id || !payload) {
      deps.logger.warn({ eventId: event.id }, 'task.status-changed event without an organization or a task status; skipped');
      return 'skipped';
    }
    const endpoints = await deps.store.endpointsOf(tx, event.org_id);
    const deliveries = planDeliveries({ ...event, payload }, endpoints, deps.clock.now());
    await deps.store.insertDeliveries(tx, deliveries);
    return 'done';
  });
  return async (event) => {
    const outcome = await handle(event);
    if (outcome === 'done') deps.planned();
    return outcome;
  };
}
