import {
  downgradedToFree,
  enterpriseSet,
  FREE,
  monthEnded,
  monthOf,
  monthsToClose,
  nextMonth,
  nextTierThreshold,
  paymentMethodAdded,
  previousMonth,
  spendReached,
  tierForSpend,
  type PlanState,
} from '../src/tiers';

const USD = 1_000_000;
const dev = (tier: number, graceMonth: string | null = null): PlanState => ({ plan: 'developer', tier, graceMonth });
const ENTERPRISE: PlanState = { plan: 'enterprise', tier: 0, graceMonth: null };

describe('SPEC §3 plan state machine, row by row', () => {
  it.each([
    // [row, from, event, expected state, expected e-mails]
    ['Free + payment method → Developer Tier 1', FREE, (s: PlanState) => paymentMethodAdded(s), dev(1), []],
    ['Developer + payment method → unchanged', dev(2), (s: PlanState) => paymentMethodAdded(s), dev(2), []],
    ['Enterprise + payment method → unchanged', ENTERPRISE, (s: PlanState) => paymentMethodAdded(s), ENTERPRISE, []],
    ['Tier 1 reaches $200 → Tier 2, e-mail', dev(1), (s: PlanState) => spendReached(s, 200 * USD), dev(2), ['tier_upgraded']],
    ['Tier 1 at $199.99 → stays', dev(1), (s: PlanState) => spendReached(s, 200 * USD - 1), dev(1), []],
    ['Tier 2 reaches $400 → Tier 3, e-mail', dev(2), (s: PlanState) => spendReached(s, 400 * USD), dev(3), ['tier_upgraded']],
    ['Tier 1 jumps to $450 → Tier 3 at once', dev(1), (s: PlanState) => spendReached(s, 450 * USD), dev(3), ['tier_upgraded']],
    ['Tier 3 spends more → stays (top tier)', dev(3), (s: PlanState) => spendReached(s, 900 * USD), dev(3), []],
    ['Upgrade in a grace month ends the grace', dev(2, '2026-03'), (s: PlanState) => spendReached(s, 400 * USD), dev(3), ['tier_upgraded']],
    [
      'Tier 3 in grace reaching only $200 → still in grace',
      dev(3, '2026-03'),
      (s: PlanState) => spendReached(s, 250 * USD),
      dev(3, '2026-03'),
      [],
    ],
    ['Free spend never upgrades', FREE, (s: PlanState) => spendReached(s, 1_000 * USD), FREE, []],
    ['Enterprise spend never changes tier', ENTERPRISE, (s: PlanState) => spendReached(s, 1_000 * USD), ENTERPRISE, []],
    [
      'Tier 2 month ends below $200 (first) → grace month',
      dev(2),
      (s: PlanState) => monthEnded(s, '2026-02', 150 * USD),
      dev(2, '2026-03'),
      ['grace_started'],
    ],
    [
      'Tier 3 month ends below $400 (first) → grace month',
      dev(3),
      (s: PlanState) => monthEnded(s, '2026-12', 399 * USD),
      dev(3, '2027-01'),
      ['grace_started'],
    ],
    [
      'Grace month ends below again → Tier 1',
      dev(2, '2026-03'),
      (s: PlanState) => monthEnded(s, '2026-03', 10 * USD),
      dev(1),
      ['tier_downgraded'],
    ],
    [
      'Tier 3 second month below → Tier 1 (not 2)',
      dev(3, '2026-03'),
      (s: PlanState) => monthEnded(s, '2026-03', 300 * USD),
      dev(1),
      ['tier_downgraded'],
    ],
    [
      'Grace month ends at the threshold → grace over',
      dev(2, '2026-03'),
      (s: PlanState) => monthEnded(s, '2026-03', 200 * USD),
      dev(2),
      [],
    ],
    ['Month ends at/above the threshold → nothing', dev(2), (s: PlanState) => monthEnded(s, '2026-02', 200 * USD), dev(2), []],
    ['Tier 1 month ends low → nothing (no lower tier)', dev(1), (s: PlanState) => monthEnded(s, '2026-02', 0), dev(1), []],
    ['Free month end → nothing', FREE, (s: PlanState) => monthEnded(s, '2026-02', 0), FREE, []],
    ['Enterprise month end → nothing', ENTERPRISE, (s: PlanState) => monthEnded(s, '2026-02', 0), ENTERPRISE, []],
    ['Developer Tier 3 downgrade to Free → Free at once, no grace', dev(3, '2026-03'), (s: PlanState) => downgradedToFree(s), FREE, []],
    ['Developer Tier 1 downgrade to Free → Free', dev(1), (s: PlanState) => downgradedToFree(s), FREE, []],
    ['Any → Enterprise (sales)', dev(2, '2026-03'), (s: PlanState) => enterpriseSet(s), ENTERPRISE, []],
    ['Free → Enterprise (sales)', FREE, (s: PlanState) => enterpriseSet(s), ENTERPRISE, []],
  ])('%s', (_row, from, event, expected, mails) => {
    const { state, notifications } = event(from);
    expect(state).toEqual(expected);
    expect(notifications.map((n) => n.kind)).toEqual(mails);
  });
});

describe('tier thresholds', () => {
  it.each([
    [0, 1],
    [199.999999 * USD, 1],
    [200 * USD, 2],
    [399 * USD, 2],
    [400 * USD, 3],
    [10_000 * USD, 3],
  ])('spend %d micro-dollars earns tier %d', (spend, tier) => {
    expect(tierForSpend(spend)).toBe(tier);
  });

  it.each([
    [dev(1), 200 * USD],
    [dev(2), 400 * USD],
    [dev(3), 0],
    [FREE, 0],
    [ENTERPRISE, 0],
  ])('next threshold of %o is %d', (state, threshold) => {
    expect(nextTierThreshold(state)).toBe(threshold);
  });
});

describe('UTC months', () => {
  it.each([
    ['2026-01-31T23:59:59.999Z', '2026-01'],
    ['2026-02-01T00:00:00.000Z', '2026-02'],
    // 23:30 on 31 Dec in New York is already January in UTC.
    ['2026-12-31T23:30:00-05:00', '2027-01'],
  ])('%s is in %s', (at, month) => {
    expect(monthOf(new Date(at))).toBe(month);
  });

  it('steps across years', () => {
    expect(nextMonth('2026-12')).toBe('2027-01');
    expect(previousMonth('2027-01')).toBe('2026-12');
  });

  it('lists the months to close, oldest first, catching up missed boundaries', () => {
    expect(monthsToClose('2026-10', '2026-10')).toEqual([]);
    expect(monthsToClose('2026-10', '2027-02')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02']);
  });
});
