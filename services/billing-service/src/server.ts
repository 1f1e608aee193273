import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { errors, parseInput, type Logger } from '@vus/core';
import { fromTimestamp, implement, requireOrg, toTimestamp } from '@vus/grpc';
import type { BillingServiceHandlers } from '@vus/grpc/types/billing/v1/BillingService';
import type { Plan__Input } from '@vus/grpc/types/billing/v1/Plan';
import { CATEGORIES, DIMENSIONS } from '@vus/limits';
import { z } from 'zod';
import type { BillingService, PlanView } from './billing';
import type { UsageBudgets } from './budgets';

// proto3 has no required fields and the gateway is not the only caller: validate here too.
const spendSchema = z.object({
  idempotency_key: z.string().min(1).max(200),
  amount_micros: z.number().int().min(0),
  unit_kind: z.string().min(1).max(40),
  quantity: z.number().int().min(0),
});
/** Only categories with duration limits (SPEC §8) have minutes to reserve. */
const reserveSchema = z.object({
  idempotency_key: z.string().min(1).max(200),
  category: z.enum(['index', 'analyze', 'embed_video', 'embed_audio']),
  seconds: z.number().finite().min(0),
});
const paymentSchema = z.object({
  payment_method_ref: z.string().min(1).max(200),
  billing_email: z.email(),
});
const limitSchema = z.object({ category: z.enum(CATEGORIES), dimension: z.enum(DIMENSIONS), limit: z.number().int().min(0) });
const enterpriseSchema = z.object({ org_id: z.string().min(1), limits: z.array(limitSchema) });

export function toProtoPlan(plan: PlanView): Plan__Input {
  return {
    org_id: plan.orgId,
    plan: plan.plan,
    tier: plan.tier,
    grace_state: plan.graceMonth ? 'grace' : 'none',
    grace_since: plan.graceMonth ? toTimestamp(new Date(`${plan.graceMonth}-01T00:00:00Z`)) : null,
    month: plan.month,
    month_spend_micros: plan.monthSpend,
    next_tier_threshold_micros: plan.nextTierThreshold,
    has_payment_method: plan.hasPaymentMethod,
    limits: plan.limits.map((l) => ({ category: l.category, dimension: l.dimension, limit: l.limit })),
    updated_at: toTimestamp(plan.updatedAt),
  };
}

export function billingServiceImplementation(
  billing: BillingService,
  budgets: Pick<UsageBudgets, 'reserve'>,
  logger: Logger,
): UntypedServiceImplementation {
  return implement<BillingServiceHandlers>(
    {
      async GetPlan(_request, ctx) {
        return toProtoPlan(await billing.getPlan(requireOrg(ctx)));
      },
      async RecordSpend(request, ctx) {
        const input = parseInput(spendSchema, request);
        const result = await billing.recordSpend(requireOrg(ctx), {
          idempotencyKey: input.idempotency_key,
          unitKind: input.unit_kind,
          quantity: input.quantity,
          amountMicros: input.amount_micros,
          occurredAt: fromTimestamp(request.occurred_at),
        });
        return { plan: toProtoPlan(result.plan), duplicate: result.duplicate, upgraded: result.upgraded };
      },
      async ReserveUsage(request, ctx) {
        const input = parseInput(reserveSchema, request);
        const { duplicate } = await budgets.reserve(requireOrg(ctx), {
          idempotencyKey: input.idempotency_key,
          category: input.category,
          seconds: input.seconds,
        });
        return { duplicate };
      },
      async AddPaymentMethod(request, ctx) {
        const input = parseInput(paymentSchema, request);
        return toProtoPlan(await billing.addPaymentMethod(requireOrg(ctx), input.payment_method_ref, input.billing_email));
      },
      async DowngradeToFree(_request, ctx) {
        return toProtoPlan(await billing.downgradeToFree(requireOrg(ctx)));
      },
      async SetEnterpriseLimits(request) {
        const input = parseInput(enterpriseSchema, request);
        return toProtoPlan(await billing.setEnterpriseLimits(input.org_id, input.limits));
      },
      async RunMonthEnd(request) {
        const asOf = fromTimestamp(request.as_of);
        if (!asOf) throw errors.notProvided('as_of');
        const result = await billing.runMonthEnd(asOf, request.org_id || undefined);
        return {
          closed_month: result.closedMonth,
          transitions: result.transitions.map((t) => ({
            org_id: t.orgId,
            from_plan: t.from.plan,
            from_tier: t.from.tier,
            to_plan: t.to.plan,
            to_tier: t.to.tier,
            reason: t.reason,
            month_spend_micros: t.monthSpend,
          })),
        };
      },
    },
    logger,
  );
}
