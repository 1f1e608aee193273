import { parseInput } from '@vus/core';
import { callUnary, toTimestamp, type OutgoingContext } from '@vus/grpc';
import type { Plan } from '@vus/grpc/types/billing/v1/Plan';
import type { RecordSpendResponse } from '@vus/grpc/types/billing/v1/RecordSpendResponse';
import type { RunMonthEndResponse } from '@vus/grpc/types/billing/v1/RunMonthEndResponse';
import { CATEGORIES, DIMENSIONS } from '@vus/limits';
import type { Response } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { z } from 'zod';
import { locals } from '../http/context';
import { configured, type RouteDeps } from './deps';

const paymentMethodSchema = z.object({ payment_method_ref: z.string().min(1).max(200), billing_email: z.email() });
const spendSchema = z.object({
  idempotency_key: z.string().min(1).max(200),
  amount_usd: z.number().positive().max(1_000_000),
  occurred_at: z.iso.datetime({ offset: true }).optional(),
});
const enterpriseSchema = z.object({
  limits: z.array(z.object({ category: z.enum(CATEGORIES), dimension: z.enum(DIMENSIONS), limit: z.number().int().min(0) })).max(100),
});
const monthEndSchema = z.object({ as_of: z.iso.datetime({ offset: true }).optional() });

const usd = (micros: number) => micros / 1_000_000;

/** The plan as operators read it: dollars, not micro-dollars. */
function presentPlan(plan: Plan) {
  return {
    org_id: plan.org_id,
    plan: plan.plan,
    tier: plan.tier,
    grace_state: plan.grace_state,
    month: plan.month,
    month_spend_usd: usd(Number(plan.month_spend_micros)),
    next_tier_threshold_usd: usd(Number(plan.next_tier_threshold_micros)),
    has_payment_method: plan.has_payment_method,
    limits: plan.limits.map((l) => ({ category: l.category, dimension: l.dimension, limit: Number(l.limit) })),
  };
}

/**
 * Plans for operators (SPEC §3): payment methods, spend, Enterprise limits, the month-end job.
 * Calls billing-service with the organization as the caller, as the API would.
 */
export function adminBillingEndpoints({ keys, billing, timeoutMs }: Pick<RouteDeps, 'keys' | 'billing' | 'timeoutMs'>): Endpoint[] {
  const client = () => configured(billing, 'billing').raw;
  const ctx = (res: Response, orgId?: string): OutgoingContext => ({
    requestId: locals(res).requestId,
    orgId,
    deadline: new Date(Date.now() + timeoutMs),
  });
  const orgOf = async (raw: unknown) => (await keys.requireOrganization(String(raw))).id;

  return [
    {
      method: 'get',
      path: '/organizations/:orgId/billing',
      handle: async (req, res) => {
        const orgId = await orgOf(req.params.orgId);
        res.json(presentPlan(await callUnary<Plan>((md, o, cb) => client().GetPlan({}, md, o, cb), ctx(res, orgId))));
      },
    },
    {
      method: 'post',
      path: '/organizations/:orgId/billing/payment-method',
      handle: async (req, res) => {
        const orgId = await orgOf(req.params.orgId);
        const input = parseInput(paymentMethodSchema, req.body);
        res.json(presentPlan(await callUnary<Plan>((md, o, cb) => client().AddPaymentMethod(input, md, o, cb), ctx(res, orgId))));
      },
    },
    {
      method: 'post',
      path: '/organizations/:orgId/billing/downgrade',
      handle: async (req, res) => {
        const orgId = await orgOf(req.params.orgId);
        res.json(presentPlan(await callUnary<Plan>((md, o, cb) => client().DowngradeToFree({}, md, o, cb), ctx(res, orgId))));
      },
    },
    {
      method: 'post',
      path: '/organizations/:orgId/billing/spend',
      handle: async (req, res) => {
        const orgId = await orgOf(req.params.orgId);
        const input = parseInput(spendSchema, req.body);
        const request = {
          idempotency_key: input.idempotency_key,
          amount_micros: Math.round(input.amount_usd * 1_000_000),
          unit_kind: 'manual',
          quantity: 0,
          occurred_at: input.occurred_at ? toTimestamp(new Date(input.occurred_at)) : null,
        };
        const result = await callUnary<RecordSpendResponse>((md, o, cb) => client().RecordSpend(request, md, o, cb), ctx(res, orgId));
        res.json({ duplicate: result.duplicate, upgraded: result.upgraded, plan: result.plan ? presentPlan(result.plan) : null });
      },
    },
    {
      method: 'put',
      path: '/organizations/:orgId/billing/enterprise',
      handle: async (req, res) => {
        const orgId = await orgOf(req.params.orgId);
        const input = parseInput(enterpriseSchema, req.body);
        res.json(
          presentPlan(
            await callUnary<Plan>(
              (md, o, cb) => client().SetEnterpriseLimits({ org_id: orgId, limits: input.limits }, md, o, cb),
              ctx(res),
            ),
          ),
        );
      },
    },
    {
      method: 'post',
      path: '/billing/month-end',
      handle: async (req, res) => {
        const input = parseInput(monthEndSchema, req.body);
        const asOf = toTimestamp(input.as_of ? new Date(input.as_of) : new Date());
        const result = await callUnary<RunMonthEndResponse>(
          (md, o, cb) => client().RunMonthEnd({ as_of: asOf, org_id: '' }, md, o, cb),
          ctx(res),
        );
        res.json(result);
      },
    },
  ];
}
