import type { Database } from '@vus/db';
import { markHandled, payloadOf, wasHandled, type UsageKind } from '@vus/events';
import type { Logger } from '@vus/core';
import type { Consumer } from '@vus/service';
import type { BillingService } from './billing';
import type { UsageBudgets } from './budgets';

/** The consumer group (and handled-events name) of billing-service's metering. */
export const USAGE_CONSUMER = 'billing-service.usage';

/**
 * The ledger's priced unit of a usage: media seconds are priced by what read them (an indexed
 * video, an embedding, a generation's video), output tokens and requests alike everywhere.
 */
export function unitKindOf(kind: UsageKind, category: string | undefined): string {
  if (kind === 'output_tokens') return 'output_token';
  if (kind === 'requests') return 'request';
  if (category === 'analyze') return 'analyze_second';
  if (category?.startsWith('embed_')) return 'embed_second';
  return 'video_second';
}

/**
 * `usage.recorded` becomes a ledger entry (and may move the organization's tier), once per event,
 * and is debited from the organization's minutes or tokens budgets when the ledger took it for the
 * first time. The ledger write is its own transaction, and the handled mark is written after it
 * (not around it: embedded mode's PGlite has one connection, so a transaction inside another would
 * wait for itself): a redelivery after a crash between the two finds the ledger entry by its
 * idempotency key and counts nothing twice.
 */
export function usageMetering(
  db: Database,
  billing: Pick<BillingService, 'recordSpend'>,
  budgets: Pick<UsageBudgets, 'debitRecorded'>,
  logger: Logger,
): Consumer {
  return {
    group: USAGE_CONSUMER,
    types: ['usage.recorded'],
    handler: async (event) => {
      const usage = payloadOf('usage.recorded', event);
      if (!event.org_id || !usage || (await wasHandled(db, USAGE_CONSUMER, event.id))) return 'skipped';
      const { duplicate } = await billing.recordSpend(event.org_id, {
        idempotencyKey: usage.idempotency_key,
        unitKind: unitKindOf(usage.kind, usage.category),
        quantity: Math.ceil(usage.quantity),
        amountMicros: 0,
        occurredAt: new Date(usage.occurred_at),
      });
      if (!duplicate) {
        // The spend is in: a counter that cannot be debited now (Redis down) must not undo it.
        await budgets
          .debitRecorded(event.org_id, {
            idempotencyKey: usage.idempotency_key,
            kind: usage.kind,
            quantity: usage.quantity,
            category: usage.category,
          })
          .catch((error: unknown) => logger.warn({ err: error, eventId: event.id }, 'usage recorded but not debited from its budgets'));
      }
      await markHandled(db, USAGE_CONSUMER, event.id);
      return 'done';
    },
  };
}
