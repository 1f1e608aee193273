import { errors, newId, type Clock, type Logger } from '@vus/core';
import { intervalJob, type BackgroundJob } from '@vus/service';
import { FREE_PLAN_LIMITS, type LimitTable, type RateLimit } from '@vus/limits';
import {
  downgradedToFree,
  enterpriseSet,
  monthEnded,
  monthOf,
  monthsToClose,
  nextMonth,
  nextTierThreshold,
  paymentMethodAdded,
  previousMonth,
  spendReached,
  type Notification,
  type PlanState,
  type Transition,
} from './tiers';

/** An organization's plan as the domain sees it; the store maps rows to this and server.ts maps it to proto. */
export interface PlanRecord extends PlanState {
  orgId: string;
  paymentMethodRef: string | null;
  billingEmail: string | null;
  customLimits: RateLimit[] | null;
  /** The last month whose end was applied to the plan (YYYY-MM). */
  closedThrough: string;
  updatedAt: Date;
}

/** One ledger entry, priced. */
export interface SpendEntry {
  orgId: string;
  idempotencyKey: string;
  unitKind: string;
  quantity: number;
  amountMicros: number;
  occurredAt: Date;
  month: string;
  recordedAt: Date;
}

/** The record of one month's end for one organization. */
export interface MonthClosing {
  orgId: string;
  month: string;
  spendMicros: number;
  from: PlanState;
  to: PlanState;
  reason: string | null;
  closedAt: Date;
}

export interface OutgoingMail {
  id: string;
  orgId: string;
  kind: string;
  recipient: string;
  subject: string;
  body: string;
  createdAt: Date;
}

/** What reads a month's spend: the store, or a transaction on a locked plan. */
export interface SpendReader {
  /** The organization's total for a month (YYYY-MM), in micro-dollars. */
  monthSpend(orgId: string, month: string): Promise<number>;
}

/** What the domain may do while it holds an organization's plan: all of it commits, or none. */
export interface LockedPlanTx extends SpendReader {
  savePlan(plan: PlanRecord): Promise<void>;
  /** False when the key was recorded before (the entry is not added twice). */
  insertSpend(entry: SpendEntry): Promise<boolean>;
  insertClosing(closing: MonthClosing): Promise<void>;
  /** Queues an e-mail for the mailer, sent after the transaction commits. */
  enqueueMail(mail: OutgoingMail): Promise<void>;
}

/** What billing needs from storage: store.ts implements it on SQL, tests on memory. */
export interface BillingStore extends SpendReader {
  findPlan(orgId: string): Promise<PlanRecord | undefined>;
  /**
   * Runs `work` in one transaction on the organization's plan, created as Free (closed through
   * `closedThrough`, updated `now`) on first sight and locked until the work is done.
   */
  withLockedPlan<T>(orgId: string, closedThrough: string, now: Date, work: (plan: PlanRecord, tx: LockedPlanTx) => Promise<T>): Promise<T>;
  /** Organizations whose last closed month is before `month`. */
  orgsToClose(month: string): Promise<string[]>;
  /** The organization's queued e-mails, oldest first. */
  listMail(orgId: string): Promise<(OutgoingMail & { sentAt: Date | null })[]>;
}

/** Price of one unit of each metered kind, in micro-dollars. */
export type PriceList = Readonly<Record<string, number>>;

/** Defaults in the range of public per-minute video and per-token generation prices; configurable. */
export const DEFAULT_PRICES: PriceList = {
  video_second: 700, // $0.042 per minute of video indexed
  output_token: 8, // $8 per million output tokens
  embed_second: 700, // seconds of audio or video embedded: priced as indexed video
  analyze_second: 0, // the video a generation read: counted against DPH/DPD, priced by its output tokens
  request: 0, // requests (embeddings of text and images): counted in the ledger, not priced
};

export interface PlanView extends PlanState {
  orgId: string;
  month: string;
  monthSpend: number;
  nextTierThreshold: number;
  hasPaymentMethod: boolean;
  limits: LimitTable;
  updatedAt: Date;
}

export interface SpendInput {
  idempotencyKey: string;
  unitKind: string;
  quantity: number;
  /** 0: priced from the price list. */
  amountMicros: number;
  occurredAt?: Date | undefined;
}

export interface PlanTransitionView {
  orgId: string;
  from: PlanState;
  to: PlanState;
  reason: 'grace_started' | 'downgraded';
  monthSpend: number;
}

export interface BillingDeps {
  store: BillingStore;
  clock: Clock;
  prices?: PriceList;
  /** Developer tier limits; a tier that is absent uses the Free table (SPEC §8: "the same values"). */
  tierLimits?: Readonly<Record<number, LimitTable>>;
  /** Called after a transaction that queued e-mails, so the mailer sends them promptly. */
  mailQueued?: () => void;
}

const SUBJECTS: Record<Notification['kind'], (n: Notification) => string> = {
  tier_upgraded: (n) => `Your plan moved up to Developer Tier ${n.toTier}`,
  grace_started: (n) => `Your Developer Tier ${n.fromTier} is in its grace month`,
  tier_downgraded: (n) => `Your plan moved down to Developer Tier ${n.toTier}`,
};

function mailBody(n: Notification, month: string): string {
  switch (n.kind) {
    case 'tier_upgraded':
      return `Your monthly spend reached the Developer Tier ${n.toTier} threshold in ${month}. The new tier and its limits apply now.`;
    case 'grace_started':
      return (
        `Your spend in ${previousMonth(month)} ended below the Developer Tier ${n.fromTier} threshold. ${month} is a grace month: ` +
        `if this month also ends below it, your plan moves to Developer Tier 1 at the start of next month.`
      );
    case 'tier_downgraded':
      return `Your spend ended below the Developer Tier ${n.fromTier} threshold for a second month in a row, so your plan is Developer Tier 1 from ${month}.`;
  }
}

const planState = (p: PlanState): PlanState => ({ plan: p.plan, tier: p.tier, graceMonth: p.graceMonth });

function samePlan(a: PlanState, b: PlanState): boolean {
  return a.plan === b.plan && a.tier === b.tier && a.graceMonth === b.graceMonth;
}

export function createBillingService(deps: BillingDeps) {
  const { store, clock } = deps;
  const prices = deps.prices ?? DEFAULT_PRICES;

  const limitsOf = (plan: PlanRecord): LimitTable => {
    if (plan.plan === 'enterprise') return plan.customLimits ?? [];
    if (plan.plan === 'developer') return deps.tierLimits?.[plan.tier] ?? FREE_PLAN_LIMITS;
    return FREE_PLAN_LIMITS;
  };

  async function view(spend: SpendReader, plan: PlanRecord): Promise<PlanView> {
    const month = monthOf(clock.now());
    return {
      orgId: plan.orgId,
      plan: plan.plan,
      tier: plan.tier,
      graceMonth: plan.graceMonth,
      month,
      monthSpend: await spend.monthSpend(plan.orgId, month),
      nextTierThreshold: nextTierThreshold(plan),
      hasPaymentMethod: plan.paymentMethodRef !== null,
      limits: limitsOf(plan),
      updatedAt: plan.updatedAt,
    };
  }

  /**
   * Saves a locked plan once, with its field changes and the transition's state, and queues the
   * transition's e-mails in the same transaction. `updatedAt` moves when the plan changes; pure
   * bookkeeping (a closed month) may keep it by passing it in `changes`.
   */
  type Apply = (plan: PlanRecord, transition: Transition, month: string, changes?: Partial<PlanRecord>) => Promise<PlanRecord>;

  /** Runs `fn` on the organization's locked plan in one transaction; wakes the mailer if it queued mail. */
  async function withPlan<T>(orgId: string, fn: (tx: LockedPlanTx, plan: PlanRecord, apply: Apply) => Promise<T>): Promise<T> {
    const now = clock.now();
    let mailQueued = false;
    const result = await store.withLockedPlan(orgId, previousMonth(monthOf(now)), now, async (locked, tx) => {
      const apply: Apply = async (plan, transition, month, changes = {}) => {
        const stateChanged = !samePlan(plan, transition.state);
        if (!stateChanged && Object.keys(changes).length === 0) return plan;
        // Only the state fields: a transition of an unchanged plan hands back the whole record it was given.
        const next: PlanRecord = {
          ...plan,
          ...changes,
          ...planState(transition.state),
          updatedAt: stateChanged ? clock.now() : (changes.updatedAt ?? clock.now()),
        };
        await tx.savePlan(next);
        for (const n of transition.notifications) {
          // Developer plans always have an address (it comes with the payment method).
          if (!next.billingEmail) continue;
          await tx.enqueueMail({
            id: newId(),
            orgId: next.orgId,
            kind: n.kind,
            recipient: next.billingEmail,
            subject: SUBJECTS[n.kind](n),
            body: mailBody(n, month),
            createdAt: clock.now(),
          });
          mailQueued = true;
        }
        return next;
      };
      return fn(tx, locked, apply);
    });
    if (mailQueued) deps.mailQueued?.();
    return result;
  }

  return {
    async getPlan(orgId: string): Promise<PlanView> {
      const plan = await store.findPlan(orgId);
      if (plan) return view(store, plan);
      const now = clock.now();
      return view(store, {
        orgId,
        plan: 'free',
        tier: 0,
        graceMonth: null,
        paymentMethodRef: null,
        billingEmail: null,
        customLimits: null,
        closedThrough: previousMonth(monthOf(now)),
        updatedAt: now,
      });
    },

    /** The organization's effective limits (its plan's), without creating a plan. */
    async limitsFor(orgId: string): Promise<LimitTable> {
      const plan = await store.findPlan(orgId);
      return plan ? limitsOf(plan) : FREE_PLAN_LIMITS;
    },

    /** Adds a ledger entry once per key; reaching a threshold in the current month upgrades at once. */
    async recordSpend(orgId: string, input: SpendInput): Promise<{ plan: PlanView; duplicate: boolean; upgraded: boolean }> {
      const price = prices[input.unitKind];
      if (input.amountMicros === 0 && price === undefined) {
        throw errors.invalid('unit_kind', `It has no price; use one of ${Object.keys(prices).join(', ')} or give an amount.`);
      }
      const amountMicros = input.amountMicros !== 0 ? input.amountMicros : Math.round(input.quantity * price!);
      const occurredAt = input.occurredAt ?? clock.now();
      const month = monthOf(occurredAt);
      return withPlan(orgId, async (tx, plan, apply) => {
        const inserted = await tx.insertSpend({
          orgId,
          idempotencyKey: input.idempotencyKey,
          unitKind: input.unitKind,
          quantity: input.quantity,
          amountMicros,
          occurredAt,
          month,
          recordedAt: clock.now(),
        });
        let current = plan;
        let upgraded = false;
        // Spend that arrives late for a past month counts in that month's total, but tiers move only on the current month.
        if (inserted && month === monthOf(clock.now())) {
          const transition = spendReached(plan, await tx.monthSpend(orgId, month));
          upgraded = transition.state.tier > plan.tier;
          current = await apply(plan, transition, month);
        }
        return { plan: await view(tx, current), duplicate: !inserted, upgraded };
      });
    },

    async addPaymentMethod(orgId: string, paymentMethodRef: string, billingEmail: string): Promise<PlanView> {
      return withPlan(orgId, async (tx, plan, apply) =>
        view(tx, await apply(plan, paymentMethodAdded(plan), monthOf(clock.now()), { paymentMethodRef, billingEmail })),
      );
    },

    async downgradeToFree(orgId: string): Promise<PlanView> {
      return withPlan(orgId, async (tx, plan, apply) => view(tx, await apply(plan, downgradedToFree(plan), monthOf(clock.now()))));
    },

    async setEnterpriseLimits(orgId: string, limits: RateLimit[]): Promise<PlanView> {
      return withPlan(orgId, async (tx, plan, apply) =>
        view(tx, await apply(plan, enterpriseSet(plan), monthOf(clock.now()), { customLimits: limits })),
      );
    },

    /**
     * Closes every month before the one containing `asOf` that is not closed yet, oldest first,
     * for one organization or all. Re-running it for the same instant changes nothing.
     */
    async runMonthEnd(asOf: Date, orgId?: string): Promise<{ closedMonth: string; transitions: PlanTransitionView[] }> {
      const lastClosable = previousMonth(monthOf(asOf));
      const orgIds = orgId ? [orgId] : await store.orgsToClose(lastClosable);
      const transitions: PlanTransitionView[] = [];
      for (const id of orgIds) {
        await withPlan(id, async (tx, plan, apply) => {
          let current = plan;
          for (const month of monthsToClose(plan.closedThrough, lastClosable)) {
            const spend = await tx.monthSpend(id, month);
            const transition = monthEnded(current, month, spend);
            const reason =
              transition.state.tier < current.tier
                ? 'downgraded'
                : transition.notifications.some((n) => n.kind === 'grace_started')
                  ? 'grace_started'
                  : null;
            // The month's e-mails go out at the start of the next month, which is now.
            const next = await apply(current, transition, nextMonth(month), { closedThrough: month, updatedAt: current.updatedAt });
            await tx.insertClosing({ orgId: id, month, spendMicros: spend, from: current, to: next, reason, closedAt: clock.now() });
            if (reason) transitions.push({ orgId: id, from: planState(current), to: planState(next), reason, monthSpend: spend });
            current = next;
          }
        });
      }
      return { closedMonth: lastClosable, transitions };
    },

    async listMail(orgId: string) {
      return store.listMail(orgId);
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;

/** Month-end as a background job: idempotent, so every replica may run it; it closes whatever month boundary has passed (catching up on start). */
export function monthEndJob(billing: BillingService, clock: Clock, logger: Logger, everyMs = 60_000): BackgroundJob {
  return intervalJob({ name: 'month-end', everyMs, runAtStart: true, logger, run: () => billing.runMonthEnd(clock.now()) });
}
