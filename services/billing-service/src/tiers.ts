/**
 * The account plan state machine of SPEC §3, as pure functions: each takes the state and an
 * event and returns the next state and the e-mails that the move sends. No I/O, no clock.
 */

export type PlanName = 'free' | 'developer' | 'enterprise';

export interface PlanState {
  plan: PlanName;
  /** 1..3 on developer; 0 otherwise. */
  tier: number;
  /** The month (YYYY-MM) that is a grace month because the one before ended below the tier's threshold. */
  graceMonth: string | null;
}

export type NotificationKind = 'tier_upgraded' | 'grace_started' | 'tier_downgraded';

export interface Notification {
  kind: NotificationKind;
  fromTier: number;
  toTier: number;
}

export interface Transition {
  state: PlanState;
  notifications: Notification[];
}

const USD = 1_000_000;

/** Monthly spend (micro-dollars) that reaches each Developer tier above 1 (SPEC §3, §8). */
export const TIER_THRESHOLDS: Readonly<Record<number, number>> = { 2: 200 * USD, 3: 400 * USD };
export const TOP_TIER = 3;

export const FREE: PlanState = { plan: 'free', tier: 0, graceMonth: null };

const unchanged = (state: PlanState): Transition => ({ state, notifications: [] });

/** The highest tier whose threshold a month's spend reaches. */
export function tierForSpend(monthSpend: number): number {
  let tier = 1;
  for (let t = 2; t <= TOP_TIER; t++) if (monthSpend >= (TIER_THRESHOLDS[t] ?? Infinity)) tier = t;
  return tier;
}

/** Spend still to go to the next tier, for display; 0 at the top tier or off the Developer plan. */
export function nextTierThreshold(state: PlanState): number {
  if (state.plan !== 'developer' || state.tier >= TOP_TIER) return 0;
  return TIER_THRESHOLDS[state.tier + 1] ?? 0;
}

/** Free → Developer Tier 1 when a payment method is added; on other plans nothing changes. */
export function paymentMethodAdded(state: PlanState): Transition {
  if (state.plan !== 'free') return unchanged(state);
  return unchanged({ plan: 'developer', tier: 1, graceMonth: null });
}

/** "Plan downgrade to Free": immediate, no grace period. */
export function downgradedToFree(_state: PlanState): Transition {
  return unchanged(FREE);
}

/** "Contact with sales": an operator moves the organization to Enterprise. */
export function enterpriseSet(_state: PlanState): Transition {
  return unchanged({ plan: 'enterprise', tier: 0, graceMonth: null });
}

/**
 * Spend of the current month reached `monthSpend`: an upgrade takes effect at once, with an
 * e-mail, and ends a grace month (the tier is earned anew).
 */
export function spendReached(state: PlanState, monthSpend: number): Transition {
  if (state.plan !== 'developer') return unchanged(state);
  const earned = tierForSpend(monthSpend);
  if (earned <= state.tier) return unchanged(state);
  return {
    state: { plan: 'developer', tier: earned, graceMonth: null },
    notifications: [{ kind: 'tier_upgraded', fromTier: state.tier, toTier: earned }],
  };
}

/**
 * Month `closedMonth` ended with `monthSpend`. Below the tier's threshold for the first time:
 * the next month is a grace month, announced by e-mail at its start. Below again in the grace
 * month: down to Tier 1 at the start of the following month. At or above: any grace ends.
 */
export function monthEnded(state: PlanState, closedMonth: string, monthSpend: number): Transition {
  if (state.plan !== 'developer' || state.tier <= 1) return unchanged(state);
  const threshold = TIER_THRESHOLDS[state.tier] ?? 0;
  if (monthSpend >= threshold) return unchanged({ ...state, graceMonth: null });
  if (state.graceMonth === closedMonth) {
    return {
      state: { plan: 'developer', tier: 1, graceMonth: null },
      notifications: [{ kind: 'tier_downgraded', fromTier: state.tier, toTier: 1 }],
    };
  }
  return {
    state: { ...state, graceMonth: nextMonth(closedMonth) },
    notifications: [{ kind: 'grace_started', fromTier: state.tier, toTier: state.tier }],
  };
}

/** YYYY-MM of an instant, in UTC (SPEC: month boundaries are UTC). */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

export function nextMonth(month: string): string {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return monthOf(new Date(Date.UTC(year, mon, 1)));
}

export function previousMonth(month: string): string {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return monthOf(new Date(Date.UTC(year, mon - 2, 1)));
}

/** The months after `closedThrough` up to and including `last`, oldest first (a missed boundary is caught up). */
export function monthsToClose(closedThrough: string, last: string): string[] {
  const months: string[] = [];
  for (let m = nextMonth(closedThrough); m <= last; m = nextMonth(m)) months.push(m);
  return months;
}
