import { createLogger, isApiError, ManualClock, newId } from '@vus/core';
import { migrateService } from '@vus/service';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { FREE_PLAN_LIMITS } from '@vus/limits';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBillingService, type BillingService } from '../src/billing';
import { createMailTransport, Mailer } from '../src/mailer';
import { billingService } from '../src/main';
import { createBillingStore } from '../src/store';

const USD = 1_000_000;
const logger = createLogger({ service: 'billing-test', level: 'silent' });

describe.each(DATABASE_KINDS)('billing on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let billing: BillingService;
  let mailer: Mailer;
  let mailDir: string;
  let org: string;

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, billingService);
  });
  afterAll(async () => {
    await database.drop();
  });
  beforeEach(() => {
    clock = new ManualClock('2026-01-10T12:00:00Z');
    mailDir = mkdtempSync(join(tmpdir(), 'vus-mail-'));
    mailer = new Mailer({
      db: database.db,
      clock,
      send: createMailTransport({ kind: 'folder', dir: mailDir, from: 'billing@test' }),
      logger,
    });
    billing = createBillingService({ store: createBillingStore(database.db), clock });
    org = newId();
  });
  afterEach(async () => {
    await mailer.stop();
    rmSync(mailDir, { recursive: true, force: true });
  });

  const email = () => `owner-${org}@example.com`;
  let spendSeq = 0;
  const spend = (dollars: number, at?: string) =>
    billing.recordSpend(org, {
      idempotencyKey: `k${++spendSeq}`,
      unitKind: 'manual',
      quantity: 0,
      amountMicros: dollars * USD,
      occurredAt: at ? new Date(at) : undefined,
    });
  const mails = async () => {
    await mailer.sendDue();
    // The database is shared by the suite: keep this test's organization's mails only.
    return readdirSync(mailDir)
      .sort()
      .map((f) => readFileSync(join(mailDir, f), 'utf8'))
      .filter((m) => m.includes(`To: ${email()}`));
  };
  /** Subjects in the order the outbox queued them, once the mailer has written them to the folder. */
  const subjects = async () => {
    const written = await mails();
    const queued = await billing.listMail(org);
    expect(written).toHaveLength(queued.length);
    return queued.map((m) => m.subject);
  };

  it('starts an unknown organization on Free with the SPEC §8 limits', async () => {
    const plan = await billing.getPlan(org);
    expect(plan).toMatchObject({ plan: 'free', tier: 0, graceMonth: null, month: '2026-01', monthSpend: 0, hasPaymentMethod: false });
    expect(plan.limits).toEqual(FREE_PLAN_LIMITS);
  });

  it('moves Free → Tier 1 on a payment method, then up at $200 and $400 at once, with an e-mail each', async () => {
    expect((await billing.addPaymentMethod(org, 'pm_1', email())).tier).toBe(1);
    expect((await spend(150)).upgraded).toBe(false);
    const second = await spend(60);
    expect(second).toMatchObject({
      upgraded: true,
      plan: { plan: 'developer', tier: 2, monthSpend: 210 * USD, nextTierThreshold: 400 * USD },
    });
    expect((await spend(190)).plan.tier).toBe(3);
    expect(await subjects()).toEqual(['Your plan moved up to Developer Tier 2', 'Your plan moved up to Developer Tier 3']);
    expect((await billing.listMail(org)).every((m) => m.sentAt !== null)).toBe(true);
  });

  it('counts a spend key once', async () => {
    await billing.addPaymentMethod(org, 'pm_1', email());
    const entry = { idempotencyKey: 'task-1', unitKind: 'video_second', quantity: 600, amountMicros: 0 };
    const first = await billing.recordSpend(org, entry);
    const again = await billing.recordSpend(org, entry);
    expect(first.duplicate).toBe(false);
    expect(again.duplicate).toBe(true);
    expect(again.plan.monthSpend).toBe(600 * 700);
  });

  it('refuses a unit kind it has no price for', async () => {
    const error: unknown = await billing
      .recordSpend(org, { idempotencyKey: 'x', unitKind: 'carrots', quantity: 1, amountMicros: 0 })
      .catch((e: unknown) => e);
    expect(isApiError(error) && error.code).toBe('parameter_invalid');
  });

  it('gives a grace month, then moves down to Tier 1 after a second month below (UTC boundaries)', async () => {
    await billing.addPaymentMethod(org, 'pm_1', email());
    await spend(250); // January: Tier 2
    clock.set('2026-02-01T00:00:00Z');
    expect((await billing.runMonthEnd(clock.now())).transitions).toEqual([]); // January ended above $200
    await spend(50, '2026-02-15T00:00:00Z');

    clock.set('2026-03-01T00:00:05Z');
    const march = await billing.runMonthEnd(clock.now(), org);
    expect(march.closedMonth).toBe('2026-02');
    expect(march.transitions).toEqual([
      expect.objectContaining({ reason: 'grace_started', monthSpend: 50 * USD, to: { plan: 'developer', tier: 2, graceMonth: '2026-03' } }),
    ]);
    expect((await billing.getPlan(org)).tier).toBe(2); // the grace month keeps the tier

    clock.set('2026-04-01T00:00:01Z');
    const april = await billing.runMonthEnd(clock.now(), org);
    expect(april.transitions).toEqual([
      expect.objectContaining({ reason: 'downgraded', to: { plan: 'developer', tier: 1, graceMonth: null } }),
    ]);
    expect(await subjects()).toEqual([
      'Your plan moved up to Developer Tier 2',
      'Your Developer Tier 2 is in its grace month',
      'Your plan moved down to Developer Tier 1',
    ]);
  });

  it('runs the month-end job idempotently and catches up missed boundaries in order', async () => {
    await billing.addPaymentMethod(org, 'pm_1', email());
    await spend(450); // January: Tier 3
    // The job did not run for February or March: it closes Feb (grace) and Mar (downgrade) in order.
    clock.set('2026-04-02T08:00:00Z');
    const caughtUp = await billing.runMonthEnd(clock.now(), org);
    expect(caughtUp.transitions.map((t) => t.reason)).toEqual(['grace_started', 'downgraded']);
    const rerun = await billing.runMonthEnd(clock.now(), org);
    expect(rerun.transitions).toEqual([]);
    const all = await billing.runMonthEnd(clock.now());
    expect(all.transitions.filter((t) => t.orgId === org)).toEqual([]);
    expect((await billing.getPlan(org)).tier).toBe(1);
    expect(await subjects()).toHaveLength(3);
  });

  it('an upgrade in a grace month ends the grace', async () => {
    await billing.addPaymentMethod(org, 'pm_1', email());
    await spend(200); // Tier 2 in January
    clock.set('2026-03-01T00:00:00Z');
    await billing.runMonthEnd(clock.now(), org); // February: $0 → grace in March
    expect((await billing.getPlan(org)).graceMonth).toBe('2026-03');
    await spend(400);
    expect(await billing.getPlan(org)).toMatchObject({ tier: 3, graceMonth: null });
    clock.set('2026-04-01T00:00:00Z');
    expect((await billing.runMonthEnd(clock.now(), org)).transitions).toEqual([]); // March ended above $400
  });

  it('downgrades to Free at once, with no grace, and back to Tier 1 on a new payment method', async () => {
    await billing.addPaymentMethod(org, 'pm_1', email());
    await spend(500);
    expect(await billing.downgradeToFree(org)).toMatchObject({ plan: 'free', tier: 0, graceMonth: null, limits: FREE_PLAN_LIMITS });
    expect((await billing.addPaymentMethod(org, 'pm_2', email())).tier).toBe(1);
  });

  it('late spend for a closed month counts in that month but moves no tier', async () => {
    await billing.addPaymentMethod(org, 'pm_1', email());
    clock.set('2026-02-03T00:00:00Z');
    const late = await spend(300, '2026-01-31T23:00:00Z');
    expect(late.upgraded).toBe(false);
    expect(late.plan.monthSpend).toBe(0); // the plan view shows February
  });

  it('gives a Developer tier its configured limits, and the Free table when none are configured', async () => {
    const tier2 = [{ category: 'search' as const, dimension: 'RPM' as const, limit: 1_200 }];
    const configured = createBillingService({ store: createBillingStore(database.db), clock, tierLimits: { 2: tier2 } });
    await configured.addPaymentMethod(org, 'pm_1', email());
    expect((await configured.getPlan(org)).limits).toEqual(FREE_PLAN_LIMITS);
    await configured.recordSpend(org, { idempotencyKey: 'big', unitKind: 'manual', quantity: 0, amountMicros: 200 * USD });
    expect((await configured.getPlan(org)).limits).toEqual(tier2);
  });

  it('keeps Enterprise custom limits, untouched by spend and month ends', async () => {
    const limits = [{ category: 'search' as const, dimension: 'RPM' as const, limit: 5_000 }];
    expect(await billing.setEnterpriseLimits(org, limits)).toMatchObject({ plan: 'enterprise', limits });
    await spend(1_000);
    clock.set('2026-03-01T00:00:00Z');
    expect((await billing.runMonthEnd(clock.now(), org)).transitions).toEqual([]);
    expect(await billing.getPlan(org)).toMatchObject({ plan: 'enterprise', limits });
  });
});
