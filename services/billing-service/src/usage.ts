import type { Database } from '@vus/db';
import { handleOnce, isUsageRecorded, type UsageKind } from '@vus/events';
import type { Consumer } from '@vus/service';
import type { BillingService } from './billing';

/** The consumer group (and handled-events name) of billing-service's metering. */
export const USAGE_CONSUMER = 'billing-service.usage';

/** The ledger's priced unit for each usage kind. */
const UNIT_KIND_OF: Readonly<Record<UsageKind, string>> = { media_seconds: 'video_second', output_tokens: 'output_token' };

/**
 * `usage.recorded` becomes a ledger entry (and may move the organization's tier), once per event.
 * The ledger write is its own transaction, not the handled mark's: a redelivery after a crash
 * between the two finds the ledger entry by its idempotency key and counts nothing twice.
 */
export function usageMetering(db: Database, billing: Pick<BillingService, 'recordSpend'>): Consumer {
  return {
    group: USAGE_CONSUMER,
    types: ['usage.recorded'],
    handler: handleOnce(db, USAGE_CONSUMER, async (event) => {
      if (!event.org_id || !isUsageRecorded(event.payload)) return 'skipped';
      const usage = event.payload;
      await billing.recordSpend(event.org_id, {
        idempotencyKey: usage.idempotency_key,
        unitKind: UNIT_KIND_OF[usage.kind],
        quantity: Math.ceil(usage.quantity),
        amountMicros: 0,
        occurredAt: new Date(usage.occurred_at),
      });
      return 'done';
    }),
  };
}
