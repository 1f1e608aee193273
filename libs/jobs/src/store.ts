import { newId } from '@vus/core';
import { currentTraceparent } from '@vus/telemetry';
import type { Database, Queryable } from '@vus/db';
import { join } from 'node:path';
import { nextToClaim, type ClaimCandidate, type ClaimLimits, type JobState } from './rules';

/** Every service that runs background jobs applies these beside its own migrations (before them). */
export const JOBS_MIGRATIONS = {
  dir: join(__dirname, '..', 'migrations'),
  table: 'pgmigrations_jobs',
};

/** A job to queue, in the same transaction as the domain row it is about. */
export interface NewJob {
  kind: string;
  /** The domain row (task, delivery, e-mail); one job per kind and subject. */
  subjectId: string;
  orgId: string;
  /** Not claimed before then. */
  runAt: Date;
  payload?: Record<string, unknown>;
}

export interface Job {
  id: string;
  kind: string;
  subjectId: string;
  orgId: string;
  payload: Record<string, unknown>;
  state: JobState;
  /** Claims so far, the current one included. */
  attempts: number;
  runAt: Date;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  lastError: string | null;
  /** W3C trace context of the request that queued it (null when none): its runs continue that trace. */
  traceparent?: string | null | undefined;
}

export interface QueueStat {
  kind: string;
  state: 'queued' | 'running';
  count: number;
  oldestAgeSeconds: number;
}

/** A job held by a worker. */
export interface ClaimedJob extends Job {
  state: 'running';
  leaseOwner: string;
  leaseExpiresAt: Date;
}

/**
 * A Job's fields, read straight from the columns (the names are the mapping); qualified, because the
 * claim's RETURNING also sees its CTE's `id`.
 */
const JOB_FIELDS = `jobs.id, jobs.kind, jobs.subject_id AS "subjectId", jobs.org_id AS "orgId", jobs.payload, jobs.state, jobs.attempts,
  jobs.run_at AS "runAt", jobs.lease_owner AS "leaseOwner", jobs.lease_expires_at AS "leaseExpiresAt", jobs.last_error AS "lastError",
  jobs.traceparent`;

/** A job as a row (pg's rows are records of anything). */
type JobRow = Job & Record<string, unknown>;

const ERROR_CHARS = 1000;

/** Queues a job (nothing when the subject already has one of this kind); true when queued. */
export async function enqueueJob(q: Queryable, job: NewJob): Promise<boolean> {
  const result = await q.query(
    `INSERT INTO jobs (id, kind, subject_id, org_id, payload, state, run_at, created_at, updated_at, traceparent)
     VALUES ($1, $2, $3, $4, $5, 'queued', $6, $6, $6, $7)
     ON CONFLICT (kind, subject_id) DO NOTHING`,
    [newId(), job.kind, job.subjectId, job.orgId, JSON.stringify(job.payload ?? {}), job.runAt, currentTraceparent() ?? null],
  );
  return result.rowCount === 1;
}

/**
 * Cancels the subject's job if it is not finished. A worker running it finds out at its next
 * heartbeat (the renewal is refused) and aborts the run. True when a job was cancelled.
 */
export async function cancelJob(q: Queryable, kind: string, subjectId: string, at: Date): Promise<boolean> {
  const result = await q.query(
    `UPDATE jobs SET state = 'cancelled', lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
     WHERE kind = $1 AND subject_id = $2 AND state IN ('queued', 'running')`,
    [kind, subjectId, at],
  );
  return result.rowCount === 1;
}

/**
 * SQL that is true while `owner` holds a live lease on the job of `kind` about `subject`: domain
 * writes made under a lease put it in their WHERE clause, so a worker that lost the job (paused,
 * partitioned, cancelled) changes nothing. Arguments are SQL expressions (placeholders, columns).
 */
export function leaseHeldSql(kind: string, subject: string, owner: string, now: string): string {
  return `EXISTS (SELECT 1 FROM jobs j WHERE j.kind = ${kind} AND j.subject_id = ${subject}
            AND j.state = 'running' AND j.lease_owner = ${owner} AND j.lease_expires_at > ${now})`;
}

/** Organizations put after the others in a claim and the per-organization cap (rules.ts ClaimLimits). */
export type ClaimOptions = ClaimLimits;

/** The queue's own statements: claims, heartbeats and the end of each run. */
export interface JobStore {
  /**
   * Takes a due job of one of `kinds` (queued, or running under an expired lease: a takeover),
   * round robin between organizations (rules.ts nextToClaim: the fewest running, then the turn
   * longest ago, then the job due first); leases it to `owner` until `now + leaseMs` and counts
   * the attempt. Concurrent claimers never get the same job.
   */
  claim(owner: string, kinds: readonly string[], now: Date, leaseMs: number, options?: ClaimOptions): Promise<ClaimedJob | undefined>;
  /** Extends the lease; false when `owner` no longer holds it (taken over, cancelled, finished). */
  renew(id: string, owner: string, now: Date, leaseMs: number): Promise<boolean>;
  /** Ends the run: succeeded or failed for good. False when `owner` no longer held it. */
  finish(id: string, owner: string, now: Date, outcome: { state: 'succeeded' } | { state: 'failed'; error: string }): Promise<boolean>;
  /** Queues the job again, not before `runAt` (a retry, or `now` for a run handed back). */
  requeue(id: string, owner: string, now: Date, runAt: Date, error?: string): Promise<boolean>;
  get(kind: string, subjectId: string): Promise<Job | undefined>;
  /** Deletes jobs of `kinds` that ended (succeeded, failed, cancelled) before `before`; returns how many. */
  pruneFinished(kinds: readonly string[], before: Date): Promise<number>;
  /**
   * The unfinished jobs of `kinds` by kind and state (every pair, zeros included): how many, and
   * how long the oldest has waited (queued: since it came due; running: since its last claim or renewal).
   */
  queueStats(kinds: readonly string[], now: Date): Promise<QueueStat[]>;
}

/**
 * A transaction-scoped lock that makes claims one at a time, so the running counts they read are
 * exact and no two claimers pick the same job (a job cancelled meanwhile fails the UPDATE's check).
 */
const CLAIM_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('vus.jobs.claim'))";

export function createJobStore(db: Database): JobStore {
  return {
    async claim(owner, kinds, now, leaseMs, options = {}) {
      return db.withTx(async (tx) => {
        await tx.query(CLAIM_LOCK_SQL);
        const { rows: candidates } = await tx.query<ClaimCandidate & Record<string, unknown>>(
          `WITH RECURSIVE heads AS (
             -- Each organization with unfinished jobs of each kind, walked along jobs_org_due (a
             -- skip scan: one index probe per organization).
             SELECT k.kind, (SELECT j.org_id FROM jobs j WHERE j.kind = k.kind AND j.state IN ('queued', 'running')
                             ORDER BY j.org_id LIMIT 1) AS org_id
             FROM unnest($1::text[]) AS k(kind)
             UNION ALL
             SELECT h.kind, (SELECT j.org_id FROM jobs j WHERE j.kind = h.kind AND j.org_id > h.org_id AND j.state IN ('queued', 'running')
                             ORDER BY j.org_id LIMIT 1)
             FROM heads h WHERE h.org_id IS NOT NULL
           ), running AS (
             SELECT org_id, count(*)::int AS n FROM jobs
             WHERE kind = ANY($1::text[]) AND state = 'running' AND lease_expires_at > $2
             GROUP BY org_id
           )
           -- Each organization's first due job that nobody holds (queued, or its lease expired),
           -- with what the turn order needs: its running jobs and its last claim (jobs_org_claimed).
           SELECT c.id, c.org_id AS "orgId", c.run_at AS "runAt", coalesce(r.n, 0) AS running,
                  (SELECT max(l.claimed_at) FROM jobs l WHERE l.kind = h.kind AND l.org_id = h.org_id) AS "lastClaimedAt"
           FROM heads h
           CROSS JOIN LATERAL (
             SELECT j.id, j.org_id, j.run_at FROM jobs j
             WHERE j.kind = h.kind AND j.org_id = h.org_id AND j.state IN ('queued', 'running') AND j.run_at <= $2
               AND (j.state = 'queued' OR j.lease_expires_at <= $2)
             ORDER BY j.run_at, j.id LIMIT 1
           ) c
           LEFT JOIN running r ON r.org_id = c.org_id
           WHERE h.org_id IS NOT NULL`,
          [kinds, now],
        );
        const next = nextToClaim(
          candidates.map((c) => ({ ...c, runAt: new Date(c.runAt), lastClaimedAt: c.lastClaimedAt && new Date(c.lastClaimedAt) })),
          options,
        );
        if (!next) return undefined;
        const { rows } = await tx.query<JobRow>(
          `UPDATE jobs SET state = 'running', lease_owner = $2, lease_expires_at = $3, attempts = attempts + 1,
             updated_at = $4, claimed_at = $4
           WHERE id = $1 AND (state = 'queued' OR lease_expires_at <= $4)
           RETURNING ${JOB_FIELDS}`,
          [next.id, owner, new Date(now.getTime() + leaseMs), now],
        );
        return rows[0] as ClaimedJob | undefined;
      });
    },

    async renew(id, owner, now, leaseMs) {
      const result = await db.query(
        `UPDATE jobs SET lease_expires_at = $4
         WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_expires_at > $3`,
        [id, owner, now, new Date(now.getTime() + leaseMs)],
      );
      return result.rowCount === 1;
    },

    async finish(id, owner, now, outcome) {
      const result = await db.query(
        `UPDATE jobs SET state = $3, last_error = $4, lease_owner = NULL, lease_expires_at = NULL, updated_at = $5
         WHERE id = $1 AND state = 'running' AND lease_owner = $2`,
        [id, owner, outcome.state, outcome.state === 'failed' ? outcome.error.slice(0, ERROR_CHARS) : null, now],
      );
      return result.rowCount === 1;
    },

    async requeue(id, owner, now, runAt, error) {
      const result = await db.query(
        `UPDATE jobs SET state = 'queued', run_at = $4, last_error = coalesce($5, last_error),
           lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
         WHERE id = $1 AND state = 'running' AND lease_owner = $2`,
        [id, owner, now, runAt, error?.slice(0, ERROR_CHARS) ?? null],
      );
      return result.rowCount === 1;
    },

    async pruneFinished(kinds, before) {
      const result = await db.query(
        `DELETE FROM jobs WHERE kind = ANY($1::text[]) AND state IN ('succeeded', 'failed', 'cancelled') AND updated_at < $2`,
        [kinds, before],
      );
      return result.rowCount ?? 0;
    },

    async queueStats(kinds, now) {
      const { rows } = await db.query<{ kind: string; state: 'queued' | 'running'; n: number; oldest: Date | null }>(
        `SELECT kind, state, count(*)::int AS n,
                min(CASE WHEN state = 'queued' THEN least(run_at, $2) ELSE updated_at END) AS oldest
         FROM jobs WHERE kind = ANY($1::text[]) AND state IN ('queued', 'running') GROUP BY kind, state`,
        [kinds, now],
      );
      return kinds.flatMap((kind) =>
        (['queued', 'running'] as const).map((state): QueueStat => {
          const row = rows.find((r) => r.kind === kind && r.state === state);
          const oldest = row?.oldest ? new Date(row.oldest).getTime() : now.getTime();
          return { kind, state, count: row?.n ?? 0, oldestAgeSeconds: Math.max(0, (now.getTime() - oldest) / 1000) };
        }),
      );
    },

    async get(kind, subjectId) {
      const { rows } = await db.query<JobRow>(`SELECT ${JOB_FIELDS} FROM jobs WHERE kind = $1 AND subject_id = $2`, [kind, subjectId]);
      return rows[0];
    },
  };
}
