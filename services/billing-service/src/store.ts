import type { Database, Queryable } from '@vus/db';
import { enqueueJob } from '@vus/jobs';
import type { RateLimit } from '@vus/limits';
import type { BillingStore, MonthClosing, OutgoingMail, PlanRecord, SpendEntry } from './billing';
import type { ReservationStore } from './budgets';
import type { PlanName } from './tiers';

export type { OutgoingMail } from './billing';

/** The job (libs/jobs) that sends one e-mail of the outbox: queued with it. */
export const MAIL_JOB = 'billing-mail';

interface PlanRow {
  org_id: string;
  plan: PlanName;
  tier: number;
  grace_month: string | null;
  payment_method_ref: string | null;
  billing_email: string | null;
  custom_limits: RateLimit[] | null;
  closed_through: string;
  updated_at: Date;
  [column: string]: unknown;
}

const toPlan = (row: PlanRow): PlanRecord => ({
  orgId: row.org_id,
  plan: row.plan,
  tier: row.tier,
  graceMonth: row.grace_month,
  paymentMethodRef: row.payment_method_ref,
  billingEmail: row.billing_email,
  customLimits: row.custom_limits,
  closedThrough: row.closed_through,
  updatedAt: row.updated_at,
});

/**
 * Billing's SQL. Every function takes the connection so that the caller owns the transaction:
 * createBillingStore runs the domain's work in one, the mailer its own rounds.
 */
export const billingStore = {
  /** The plan row, created as Free on first sight, locked for the rest of the transaction. */
  async lockPlan(q: Queryable, orgId: string, closedThrough: string, now: Date): Promise<PlanRecord> {
    await q.query(
      `INSERT INTO plans (org_id, plan, tier, closed_through, updated_at) VALUES ($1, 'free', 0, $2, $3)
       ON CONFLICT (org_id) DO NOTHING`,
      [orgId, closedThrough, now],
    );
    const { rows } = await q.query<PlanRow>('SELECT * FROM plans WHERE org_id = $1 FOR UPDATE', [orgId]);
    return toPlan(rows[0]!);
  },

  async findPlan(q: Queryable, orgId: string): Promise<PlanRecord | undefined> {
    const { rows } = await q.query<PlanRow>('SELECT * FROM plans WHERE org_id = $1', [orgId]);
    return rows[0] ? toPlan(rows[0]) : undefined;
  },

  async savePlan(q: Queryable, plan: PlanRecord): Promise<void> {
    await q.query(
      `UPDATE plans SET plan = $2, tier = $3, grace_month = $4, payment_method_ref = $5, billing_email = $6,
         custom_limits = $7, closed_through = $8, updated_at = $9 WHERE org_id = $1`,
      [
        plan.orgId,
        plan.plan,
        plan.tier,
        plan.graceMonth,
        plan.paymentMethodRef,
        plan.billingEmail,
        plan.customLimits === null ? null : JSON.stringify(plan.customLimits),
        plan.closedThrough,
        plan.updatedAt,
      ],
    );
  },

  /** False when the key was recorded before (the entry is not added twice). */
  async insertSpend(q: Queryable, entry: SpendEntry): Promise<boolean> {
    const { rowCount } = await q.query(
      `INSERT INTO spend_entries (org_id, idempotency_key, unit_kind, quantity, amount_micros, occurred_at, month, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
      [
        entry.orgId,
        entry.idempotencyKey,
        entry.unitKind,
        entry.quantity,
        entry.amountMicros,
        entry.occurredAt,
        entry.month,
        entry.recordedAt,
      ],
    );
    return rowCount === 1;
  },

  async monthSpend(q: Queryable, orgId: string, month: string): Promise<number> {
    const { rows } = await q.query<{ total: string | null }>(
      'SELECT sum(amount_micros)::text AS total FROM spend_entries WHERE org_id = $1 AND month = $2',
      [orgId, month],
    );
    return Number(rows[0]?.total ?? 0);
  },

  async insertClosing(q: Queryable, c: MonthClosing): Promise<void> {
    await q.query(
      `INSERT INTO month_closings (org_id, month, spend_micros, from_plan, from_tier, to_plan, to_tier, reason, closed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [c.orgId, c.month, c.spendMicros, c.from.plan, c.from.tier, c.to.plan, c.to.tier, c.reason, c.closedAt],
    );
  },

  /** Organizations whose last closed month is before `month`. */
  async orgsToClose(q: Queryable, month: string): Promise<string[]> {
    const { rows } = await q.query<{ org_id: string }>('SELECT org_id FROM plans WHERE closed_through < $1 ORDER BY org_id', [month]);
    return rows.map((r) => r.org_id);
  },

  async enqueueMail(q: Queryable, mail: OutgoingMail): Promise<void> {
    await q.query(
      `INSERT INTO notifications (id, org_id, kind, recipient, subject, body, created_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [mail.id, mail.orgId, mail.kind, mail.recipient, mail.subject, mail.body, mail.createdAt],
    );
    await enqueueJob(q, { kind: MAIL_JOB, subjectId: mail.id, orgId: mail.orgId, runAt: mail.createdAt });
  },

  /** The e-mail a mail job is about, while it is unsent. */
  async unsentMail(q: Queryable, id: string): Promise<OutgoingMail | undefined> {
    const { rows } = await q.query<{
      id: string;
      org_id: string;
      kind: string;
      recipient: string;
      subject: string;
      body: string;
      created_at: Date;
    }>('SELECT id, org_id, kind, recipient, subject, body, created_at FROM notifications WHERE id = $1 AND sent_at IS NULL', [id]);
    const r = rows[0];
    return (
      r && { id: r.id, orgId: r.org_id, kind: r.kind, recipient: r.recipient, subject: r.subject, body: r.body, createdAt: r.created_at }
    );
  },

  async markMailSent(q: Queryable, id: string, now: Date): Promise<void> {
    await q.query('UPDATE notifications SET sent_at = $2, attempts = attempts + 1, last_error = NULL WHERE id = $1', [id, now]);
  },

  /** A failed send: tried again at `retryAt` (by its job), or given up when that is null. */
  async markMailFailed(q: Queryable, id: string, error: string, retryAt: Date | null): Promise<void> {
    await q.query(
      'UPDATE notifications SET attempts = attempts + 1, last_error = $2, next_attempt_at = coalesce($3, next_attempt_at) WHERE id = $1',
      [id, error, retryAt],
    );
  },

  async listMail(q: Queryable, orgId: string): Promise<(OutgoingMail & { sentAt: Date | null })[]> {
    const { rows } = await q.query<{
      id: string;
      org_id: string;
      kind: string;
      recipient: string;
      subject: string;
      body: string;
      created_at: Date;
      sent_at: Date | null;
    }>('SELECT id, org_id, kind, recipient, subject, body, created_at, sent_at FROM notifications WHERE org_id = $1 ORDER BY seq', [orgId]);
    return rows.map((r) => ({
      id: r.id,
      orgId: r.org_id,
      kind: r.kind,
      recipient: r.recipient,
      subject: r.subject,
      body: r.body,
      createdAt: r.created_at,
      sentAt: r.sent_at,
    }));
  },
};

/** The BillingStore the domain declares, on SQL: a locked plan's work runs in one transaction. */
export function createBillingStore(db: Database): BillingStore {
  const sql = billingStore;
  return {
    findPlan: (orgId) => sql.findPlan(db, orgId),
    monthSpend: (orgId, month) => sql.monthSpend(db, orgId, month),
    orgsToClose: (month) => sql.orgsToClose(db, month),
    listMail: (orgId) => sql.listMail(db, orgId),
    withLockedPlan: (orgId, closedThrough, now, work) =>
      db.withTx(async (q) =>
        work(await sql.lockPlan(q, orgId, closedThrough, now), {
          monthSpend: (id, month) => sql.monthSpend(q, id, month),
          savePlan: (plan) => sql.savePlan(q, plan),
          insertSpend: (entry) => sql.insertSpend(q, entry),
          insertClosing: (closing) => sql.insertClosing(q, closing),
          enqueueMail: (mail) => sql.enqueueMail(q, mail),
        }),
      ),
  };
}

/**
 * Reservations of media minutes (migrations/0003). The row is written first and removed when the
 * debit is refused, with no transaction held across the debit (a call to the counters' store; and
 * embedded mode's PGlite has one connection, which the debit's own queries need): a crash between
 * the two leaves a reservation without its debit, counting too little rather than twice.
 */
export function createReservationStore(db: Database): ReservationStore {
  return {
    async reserveOnce(orgId, r, debit) {
      const { rowCount } = await db.query(
        `INSERT INTO usage_reservations (org_id, idempotency_key, category, seconds, reserved_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING`,
        [orgId, r.idempotencyKey, r.category, r.seconds, r.reservedAt],
      );
      if (rowCount !== 1) return false;
      try {
        await debit();
      } catch (error) {
        await db.query('DELETE FROM usage_reservations WHERE org_id = $1 AND idempotency_key = $2', [orgId, r.idempotencyKey]);
        throw error;
      }
      return true;
    },
    async isReserved(orgId, idempotencyKey) {
      const { rows } = await db.query('SELECT 1 FROM usage_reservations WHERE org_id = $1 AND idempotency_key = $2', [
        orgId,
        idempotencyKey,
      ]);
      return rows.length > 0;
    },
  };
}
