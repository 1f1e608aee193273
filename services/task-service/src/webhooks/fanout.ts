import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { handleOnce, payloadOf, type EventHandler } from '@vus/events';
import { planAnalyzeTaskDeliveries, planDeliveries, type WebhookStore } from './webhooks';

/** The consumer group (and handled-ids name) of the fan-out. */
export const WEBHOOK_FANOUT_GROUP = 'task-service.webhooks';

/**
 * Turns each `task.status-changed` and `analyze-task.status-changed` event into delivery rows for the organization's endpoints, in
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
    const analysis = event.type === 'analyze-task.status-changed' ? payloadOf('analyze-task.status-changed', event) : undefined;
    const payload = event.type === 'analyze-task.status-changed' ? undefined : payloadOf('task.status-changed', event);
    if (!event.org_id || (!payload && !analysis)) {
      deps.logger.warn({ eventId: event.id, type: event.type }, 'task event without an organization or a task status; skipped');
      return 'skipped';
    }
    if (payload && (await deps.store.isKnowledgeStoreIndex(tx, event.org_id, payload.index_id))) return 'skipped';
    const endpoints = await deps.store.endpointsOf(tx, event.org_id);
    const now = deps.clock.now();
    const deliveries = analysis
      ? planAnalyzeTaskDeliveries({ ...event, payload: analysis }, endpoints, now)
      : planDeliveries({ ...event, payload: payload! }, endpoints, now);
    await deps.store.insertDeliveries(tx, deliveries);
    return 'done';
  });
  return async (event) => {
    const outcome = await handle(event);
    if (outcome === 'done') deps.planned();
    return outcome;
  };
}
