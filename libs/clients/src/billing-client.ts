import { callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { BillingServiceClient } from '@vus/grpc/types/billing/v1/BillingService';
import type { Plan } from '@vus/grpc/types/billing/v1/Plan';
import type { ReserveUsageResponse } from '@vus/grpc/types/billing/v1/ReserveUsageResponse';

/** What metering needs of billing-service: an organization's limits, and reserving a video's minutes. */
export function createBillingClient(address: string, timeoutMs = 2_000) {
  const client = createServiceClient<BillingServiceClient>('billing-service', address);
  const ctx = (orgId: string): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + timeoutMs) });
  return {
    getPlan: (orgId: string) => callUnary<Plan>((md, opts, cb) => client.GetPlan({}, md, opts, cb), ctx(orgId)),
    /**
     * Reserves a probed video's seconds against the organization's duration budgets of a category
     * (a libs/limits Category; refused with too_many_requests when longer than the minutes left);
     * idempotent by key.
     */
    reserveMediaSeconds: (orgId: string, reservation: { idempotencyKey: string; category: string; seconds: number }) =>
      callUnary<ReserveUsageResponse>(
        (md, opts, cb) =>
          client.ReserveUsage(
            { idempotency_key: reservation.idempotencyKey, category: reservation.category, seconds: reservation.seconds },
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
