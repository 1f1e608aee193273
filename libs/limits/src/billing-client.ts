import { callUnary, createServiceClient, toTimestamp, type OutgoingContext } from '@vus/grpc';
import type { BillingServiceClient } from '@vus/grpc/types/billing/v1/BillingService';
import type { Plan } from '@vus/grpc/types/billing/v1/Plan';
import type { RecordSpendResponse } from '@vus/grpc/types/billing/v1/RecordSpendResponse';
import { isCategory, isDimension, type LimitTable, type RateLimit } from './policy';

/** Plan limits from the wire; pairs this build does not know are dropped rather than guessed. */
export function limitTableOf(plan: Plan): LimitTable {
  return plan.limits.flatMap((l): RateLimit[] =>
    isCategory(l.category) && isDimension(l.dimension) ? [{ category: l.category, dimension: l.dimension, limit: Number(l.limit) }] : [],
  );
}

export interface SpendRecord {
  idempotencyKey: string;
  unitKind: 'video_second' | 'output_token';
  quantity: number;
  occurredAt: Date;
}

/** What metering needs of billing-service: an organization's limits, and recording spend. */
export function createBillingClient(address: string, timeoutMs = 2_000) {
  const client = createServiceClient<BillingServiceClient>('billing-service', address);
  const ctx = (orgId: string): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + timeoutMs) });
  return {
    getPlan: (orgId: string) => callUnary<Plan>((md, opts, cb) => client.GetPlan({}, md, opts, cb), ctx(orgId)),
    recordSpend: (orgId: string, spend: SpendRecord) =>
      callUnary<RecordSpendResponse>(
        (md, opts, cb) =>
          client.RecordSpend(
            {
              idempotency_key: spend.idempotencyKey,
              unit_kind: spend.unitKind,
              quantity: Math.ceil(spend.quantity),
              amount_micros: 0,
              occurred_at: toTimestamp(spend.occurredAt),
            },
            md,
            opts,
            cb,
          ),
        ctx(orgId),
      ),
    /** The raw client, for operator calls (the gateway's admin API). */
    raw: client,
    close: () => client.close(),
  };
}

export type BillingClient = ReturnType<typeof createBillingClient>;
