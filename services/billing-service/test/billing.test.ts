import { isApiError, ManualClock, newId } from '@vus/core';
import { FREE_PLAN_LIMITS } from '@vus/limits';
import {
  createBillingService,
  type BillingStore,
  type MonthClosing,
  type OutgoingMail,
  type PlanRecord,
  type SpendEntry,
} from '../src/billing';

const USD = 1_000_000;

/**
 * The BillingStore on memory, as store.ts is on SQL: a locked plan's work sees its own writes and
 * leaves nothing behind when it throws (a rolled-back transaction).
 */
function memoryStore() {
  let plans = new Map<string, PlanRecord>();
  let spend: SpendEntry[] = [];
  let closings: MonthClosing[] = [];
  let mail: (OutgoingMail & { sentAt: Date | null })[] = [];
  const monthSpend = async (orgId: string, month: string) =>
    spend.filter((e) => e.orgId === orgId && e.month === month).reduce((total, e) => total + e.amountMicros, 0);
  const store: BillingStore = {
    findPlan: async (orgId) => plans.get(orgId),
    monthSpend,
    orgsToClose: async (month) =>
      [...plans.values()]
        .filter((p) => p.closedThrough < month)
        .map((p) => p.orgId)
        .sort(),
    listMail: async (orgId) => mail.filter((m) => m.orgId === orgId),
    async withLockedPlan(orgId, closedThrough, now, work) {
      const before = { plans: new Map(plans), spend: [...spend], closings: [...closings], mail: [...mail] };
      if (!plans.has(orgId)) {
        plans.set(orgId, {
          orgId,
          plan: 'free',
          tier: 0,
          graceMonth: null,
          paymentMethodRef: null,
          billingEmail: null,
          customLimits: null,
          closedThrough,
          updatedAt: now,
        });
      }
      try {
        return await work(plans.get(orgId)!, {
          monthSpend,
          savePlan: async (plan) => void plans.set(plan.orgId, plan),
          async insertSpend(entry) {
            if (spend.some((e) => e.orgId === entry.orgId && e.idempotencyKey === entry.idempotencyKey)) return false;
            spend.push(entry);
            return true;
          },
          insertClosing: async (closing) => void closings.push(closing),
          enqueueMail: async (queued) => void mail.push({ ...queued, sentAt: null }),
        });
      } catch (error) {
        ({ plans, spend, closings, mail } = before);
        throw error;
      }
    },
  };
  return { store, closings: () => closings };
}

describe('billing (domain, on a memory store)', () => {
  let clock: ManualClock;
  let memory: ReturnType<typeof memoryStore>;
  let woken: number;
  let org: string;
  const billing = () => createBillingService({ store: memory.store, clock, mailQueued: () => woken++ });
  let seq = 0;
  const spend = (dollars: number, at?: string) =>
    billing().recordSpend(org, {
      idempotencyKey: `k${++seq}`,
      unitKind: 'manual',
      quantity: 0,
      amountMicros: dollars * USD,
      occurredAt: at ? new Date(at) : undefined,
    });
  const subjects = async () => (await billing().listMail(org)).map((m) => m.subject);

  beforeEach(() => {
    clock = new ManualClock('2026-01-10T12:00:00Z');
    memory = memoryStore();
    woken = 0;
    org = newId();
  });

  it('shows an unknown organization on Free without creating its plan', async () => {
    expect(await billing().getPlan(org)).toMatchObject({
      plan: 'free',
      tier: 0,
      month: '2026-01',
      monthSpend: 0,
      hasPaymentMethod: false,
      limits: FREE_PLAN_LIMITS,
    });
    expect(await memory.store.findPlan(org)).toBeUndefined();
  });

  it('moves up a tier when the month reaches its threshold, queues the e-mail and wakes the mailer once', async () => {
    await billing().addPaymentMethod(org, 'pm_1', 'owner@example.com');
    expect(woken).toBe(0); // Free → Tier 1 sends no e-mail
    expect((await spend(150)).upgraded).toBe(false);
    expect(await spend(60)).toMatchObject({ upgraded: true, plan: { tier: 2, monthSpend: 210 * USD, nextTierThreshold: 400 * USD } });
    expect([await subjects(), woken]).toEqual([['Your plan moved up to Developer Tier 2'], 1]);
  });

  it('prices a unit kind from the price list, and counts a key once', async () => {
    await billing().addPaymentMethod(org, 'pm_1', 'owner@example.com');
    const entry = { idempotencyKey: 'task-1', unitKind: 'video_second', quantity: 600, amountMicros: 0 };
    const first = await billing().recordSpend(org, entry);
    const again = await billing().recordSpend(org, entry);
    expect([first.duplicate, again.duplicate, again.plan.monthSpend]).toEqual([false, true, 600 * 700]);
  });

  it('refuses a unit kind it has no price for, recording nothing', async () => {
    const error: unknown = await billing()
      .recordSpend(org, { idempotencyKey: 'x', unitKind: 'carrots', quantity: 1, amountMicros: 0 })
      .catch((e: unknown) => e);
    expect(isApiError(error) && error.code).toBe('parameter_invalid');
    expect(await memory.store.findPlan(org)).toBeUndefined();
  });

  it('counts late spend in its own month, moving no tier', async () => {
    await billing().addPaymentMethod(org, 'pm_1', 'owner@example.com');
    clock.set('2026-02-03T00:00:00Z');
    const late = await spend(300, '2026-01-31T23:00:00Z');
    expect([late.upgraded, late.plan.tier, late.plan.monthSpend, await memory.store.monthSpend(org, '2026-01')]).toEqual([
      false,
      1,
      0,
      300 * USD,
    ]);
  });

  it('closes missed months in order, recording each, and changes nothing when run again', async () => {
    await billing().addPaymentMethod(org, 'pm_1', 'owner@example.com');
    await spend(450); // January: Tier 3
    clock.set('2026-04-02T08:00:00Z');
    const caughtUp = await billing().runMonthEnd(clock.now());
    expect(caughtUp.transitions.map((t) => [t.reason, t.to.tier])).toEqual([
      ['grace_started', 3],
      ['downgraded', 1],
    ]);
    expect(memory.closings().map((c) => [c.month, c.reason])).toEqual([
      ['2026-01', null],
      ['2026-02', 'grace_started'],
      ['2026-03', 'downgraded'],
    ]);
    expect((await billing().runMonthEnd(clock.now())).transitions).toEqual([]);
    expect(memory.closings()).toHaveLength(3);
  });

  it('keeps nothing of a locked plan’s work that failed', async () => {
    await billing().addPaymentMethod(org, 'pm_1', 'owner@example.com');
    const failing: typeof memory.store = {
      ...memory.store,
      withLockedPlan: (orgId, closedThrough, now, work) =>
        memory.store.withLockedPlan(orgId, closedThrough, now, async (plan, tx) =>
          work(plan, { ...tx, enqueueMail: () => Promise.reject(new Error('mail queue down')) }),
        ),
    };
    const service = createBillingService({ store: failing, clock });
    await expect(
      service.recordSpend(org, { idempotencyKey: 'big', unitKind: 'manual', quantity: 0, amountMicros: 250 * USD }),
    ).rejects.toThrow('mail queue down');
    expect(await billing().getPlan(org)).toMatchObject({ tier: 1, monthSpend: 0 });
  });
});
