/**
 * Analysis tasks and batches in analyze-service's database, with their jobs (libs/jobs, kind
 * analyze-task) queued in the same transactions. Every read and write of the API's side is scoped
 * to the organization; the run's writes hold the job's lease (leaseHeldSql), so a worker that lost
 * its job changes nothing.
 */
import { errors } from '@vus/core';
import type { Database, Queryable } from '@vus/db';
import { analyzeTaskStatusChanged, enqueueEvents } from '@vus/events';
import { enqueueJob, leaseHeldSql } from '@vus/jobs';
import { BATCH_LIMITS, batchStatus, countItems, noItems, type BatchStatus, type ItemCounts, type TaskStatus } from './async-rules';
import type { TaskSpec } from './async-spec';

export const ANALYZE_TASK_JOB = 'analyze-task';

export interface TaskRecord {
  id: string;
  orgId: string;
  batchId: string | null;
  position: number;
  spec: TaskSpec;
  status: TaskStatus;
  generationId: string | null;
  data: string | null;
  finishReason: 'stop' | 'length' | null;
  outputTokens: number | null;
  message: string | null;
  videoDuration: number | null;
  createdAt: Date;
  completedAt: Date | null;
}

export interface BatchRecord {
  id: string;
  orgId: string;
  modelName: string;
  analysisMode: TaskSpec['analysisMode'];
  status: BatchStatus;
  totalItems: number;
  counts: ItemCounts;
  createdAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

export interface TaskFilter {
  status?: string | undefined;
  videoId?: string | undefined;
  analysisMode?: string | undefined;
}

type TaskRow = {
  id: string;
  org_id: string;
  batch_id: string | null;
  position: number;
  spec: TaskSpec;
  status: TaskStatus;
  generation_id: string | null;
  data: string | null;
  finish_reason: 'stop' | 'length' | null;
  output_tokens: number | null;
  message: string | null;
  video_duration: number | null;
  created_at: Date;
  completed_at: Date | null;
};

const toTask = (r: TaskRow): TaskRecord => ({
  id: r.id,
  orgId: r.org_id,
  batchId: r.batch_id,
  position: r.position,
  spec: r.spec,
  status: r.status,
  generationId: r.generation_id,
  data: r.data,
  finishReason: r.finish_reason,
  outputTokens: r.output_tokens,
  message: r.message,
  videoDuration: r.video_duration,
  createdAt: new Date(r.created_at),
  completedAt: r.completed_at ? new Date(r.completed_at) : null,
});

type BatchRow = {
  id: string;
  org_id: string;
  model_name: string;
  analysis_mode: TaskSpec['analysisMode'];
  status: BatchStatus;
  total_items: number;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
};

const toBatch = (r: BatchRow, counts: ItemCounts): BatchRecord => ({
  id: r.id,
  orgId: r.org_id,
  modelName: r.model_name,
  analysisMode: r.analysis_mode,
  status: r.status,
  totalItems: r.total_items,
  counts,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
  endedAt: r.ended_at ? new Date(r.ended_at) : null,
});

/** Rows a results stream reads at a time: a 1,000-item batch is never held whole. */
const RESULTS_CHUNK = 100;

async function insertTask(q: Queryable, t: TaskRecord): Promise<void> {
  await q.query(
    `INSERT INTO analyze_tasks (id, org_id, batch_id, position, custom_id, video_id, analysis_mode, spec, status, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      t.id,
      t.orgId,
      t.batchId,
      t.position,
      t.spec.customId,
      t.spec.videoId,
      t.spec.analysisMode,
      JSON.stringify(t.spec),
      t.status,
      t.createdAt,
    ],
  );
  await enqueueJob(q, { kind: ANALYZE_TASK_JOB, subjectId: t.id, orgId: t.orgId, runAt: t.createdAt });
}

async function countsOf(q: Queryable, batchIds: readonly string[]): Promise<Map<string, ItemCounts>> {
  const { rows } = await q.query<{ batch_id: string; status: TaskStatus; n: number }>(
    `SELECT batch_id, status, count(*)::int AS n FROM analyze_tasks WHERE batch_id = ANY($1) GROUP BY batch_id, status`,
    [batchIds],
  );
  const counts = new Map(batchIds.map((id) => [id, noItems()]));
  for (const r of rows) {
    const c = counts.get(r.batch_id)!;
    const one = countItems([r.status]);
    for (const k of Object.keys(c) as (keyof ItemCounts)[]) c[k] += one[k] * r.n;
  }
  return counts;
}

/**
 * Writes the batch's status from its tasks (and when it ended, the first time it does). Called in
 * the transaction of every change to one of its tasks, under the batch row's lock.
 */
async function refreshBatch(q: Queryable, batchId: string, now: Date): Promise<void> {
  const { rows } = await q.query<{ cancel_requested: boolean; expired: boolean }>(
    'SELECT cancel_requested, expired FROM analyze_batches WHERE id = $1 FOR UPDATE',
    [batchId],
  );
  const batch = rows[0];
  if (!batch) return;
  const counts = (await countsOf(q, [batchId])).get(batchId)!;
  const status = batchStatus(counts, { cancelRequested: batch.cancel_requested, expired: batch.expired });
  const ended = status === 'completed' || status === 'canceled' || status === 'expired';
  await q.query(`UPDATE analyze_batches SET status = $2, ended_at = CASE WHEN $3 THEN coalesce(ended_at, $4) ELSE NULL END WHERE id = $1`, [
    batchId,
    status,
    ended,
    now,
  ]);
}

/** A list's WHERE clause: the organization, then each filter added with its value as the next placeholder (`?`). */
function orgFilter(orgId: string) {
  const where = ['org_id = $1'];
  const values: unknown[] = [orgId];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    where.push(sql.replace('?', `$${values.length}`));
  };
  return { add, values, where };
}

/** Cancels the jobs of tasks that will not run (a batch canceled or expired). */
async function cancelJobs(q: Queryable, taskIds: readonly string[], now: Date): Promise<void> {
  if (taskIds.length === 0) return;
  await q.query(
    `UPDATE jobs SET state = 'cancelled', lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
     WHERE kind = $1 AND subject_id = ANY($2) AND state IN ('queued', 'running')`,
    [ANALYZE_TASK_JOB, taskIds, now],
  );
}

/** Cancels a batch's items not yet started and their jobs, then recounts the batch (canceled or expired). */
async function cancelQueuedItems(q: Queryable, batchId: string, now: Date): Promise<void> {
  const canceled = await q.query<{ id: string }>(
    `UPDATE analyze_tasks SET status = 'canceled', completed_at = $2 WHERE batch_id = $1 AND status IN ('queued', 'pending') RETURNING id`,
    [batchId, now],
  );
  await cancelJobs(
    q,
    canceled.rows.map((r) => r.id),
    now,
  );
  await refreshBatch(q, batchId, now);
}

/** `eventsWritten` wakes the outbox relay: a task's end is an analyze-task.status-changed event (webhooks). */
export function createAnalyzeTaskStore(db: Database, eventsWritten: () => void = () => undefined) {
  const batchById = async (q: Queryable, orgId: string, id: string): Promise<BatchRecord | undefined> => {
    const { rows } = await q.query<BatchRow>('SELECT * FROM analyze_batches WHERE org_id = $1 AND id = $2', [orgId, id]);
    if (!rows[0]) return undefined;
    return toBatch(rows[0], (await countsOf(q, [id])).get(id)!);
  };
  /** The organization's batch, locked for the transaction and passed to `check`; undefined when there is none. */
  const lockedBatch = async (tx: Queryable, orgId: string, id: string, check: (batch: BatchRecord) => void) => {
    const { rows } = await tx.query('SELECT id FROM analyze_batches WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
    if (!rows[0]) return undefined;
    const batch = (await batchById(tx, orgId, id))!;
    check(batch);
    return batch;
  };

  return {
    async createTask(task: TaskRecord): Promise<void> {
      await db.withTx((tx) => insertTask(tx, task));
    },

    /**
     * The batch and its tasks, refused past BATCH_LIMITS.activeBatches batches not yet ended (the
     * organization's lock serialises two creations, so both cannot pass the count).
     */
    async createBatch(batch: Omit<BatchRecord, 'counts' | 'endedAt' | 'status'>, tasks: readonly TaskRecord[]): Promise<void> {
      await db.withTx(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('analyze-batches/' || $1))`, [batch.orgId]);
        const { rows } = await tx.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM analyze_batches WHERE org_id = $1 AND ended_at IS NULL',
          [batch.orgId],
        );
        if ((rows[0]?.n ?? 0) >= BATCH_LIMITS.activeBatches)
          throw errors.invalid(
            'requests',
            `This organization has ${BATCH_LIMITS.activeBatches} batches that have not ended, the most it may have; wait for one to end or cancel one.`,
          );
        await tx.query(
          `INSERT INTO analyze_batches (id, org_id, model_name, analysis_mode, total_items, status, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7)`,
          [batch.id, batch.orgId, batch.modelName, batch.analysisMode, batch.totalItems, batch.createdAt, batch.expiresAt],
        );
        for (const task of tasks) await insertTask(tx, task);
      });
    },

    async task(orgId: string, id: string): Promise<TaskRecord | undefined> {
      const { rows } = await db.query<TaskRow>('SELECT * FROM analyze_tasks WHERE org_id = $1 AND id = $2', [orgId, id]);
      return rows[0] && toTask(rows[0]);
    },

    /** Newest first (the reference's order). */
    async listTasks(orgId: string, filter: TaskFilter, limit: number, offset: number): Promise<{ rows: TaskRecord[]; total: number }> {
      const { add, values, where } = orgFilter(orgId);
      if (filter.status) add('status = ?', filter.status);
      if (filter.videoId) add('video_id = ?', filter.videoId);
      if (filter.analysisMode) add('analysis_mode = ?', filter.analysisMode);
      const cond = where.join(' AND ');
      const [{ rows }, total] = await Promise.all([
        db.query<TaskRow>(
          `SELECT * FROM analyze_tasks WHERE ${cond} ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
          [...values, limit, offset],
        ),
        db.query<{ n: number }>(`SELECT count(*)::int AS n FROM analyze_tasks WHERE ${cond}`, values),
      ]);
      return { rows: rows.map(toTask), total: total.rows[0]?.n ?? 0 };
    },

    /** Deletes the task unless `check` refuses its status (read under the row's lock); false when there is none. */
    async deleteTask(orgId: string, id: string, check: (task: TaskRecord) => void, now: Date): Promise<boolean> {
      return db.withTx(async (tx) => {
        const { rows } = await tx.query<TaskRow>('SELECT * FROM analyze_tasks WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
        if (!rows[0]) return false;
        const task = toTask(rows[0]);
        check(task);
        await cancelJobs(tx, [id], now);
        await tx.query('DELETE FROM analyze_tasks WHERE id = $1', [id]);
        if (task.batchId) await refreshBatch(tx, task.batchId, now);
        return true;
      });
    },

    batch: (orgId: string, id: string) => batchById(db, orgId, id),

    async listBatches(
      orgId: string,
      filter: { statuses: readonly string[]; modes: readonly string[] },
      limit: number,
      offset: number,
    ): Promise<{ rows: BatchRecord[]; total: number }> {
      const { add, values, where } = orgFilter(orgId);
      if (filter.statuses.length > 0) add('status = ANY(?)', filter.statuses);
      if (filter.modes.length > 0) add('analysis_mode = ANY(?)', filter.modes);
      const cond = where.join(' AND ');
      const [{ rows }, total] = await Promise.all([
        db.query<BatchRow>(
          `SELECT * FROM analyze_batches WHERE ${cond} ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
          [...values, limit, offset],
        ),
        db.query<{ n: number }>(`SELECT count(*)::int AS n FROM analyze_batches WHERE ${cond}`, values),
      ]);
      const counts = await countsOf(
        db,
        rows.map((r) => r.id),
      );
      return { rows: rows.map((r) => toBatch(r, counts.get(r.id)!)), total: total.rows[0]?.n ?? 0 };
    },

    /** Asks the batch to stop: its queued items are canceled now, processing ones finish. Undefined when there is none. */
    async cancelBatch(orgId: string, id: string, check: (batch: BatchRecord) => void, now: Date): Promise<BatchRecord | undefined> {
      return db.withTx(async (tx) => {
        if (!(await lockedBatch(tx, orgId, id, check))) return undefined;
        await tx.query('UPDATE analyze_batches SET cancel_requested = true WHERE id = $1', [id]);
        await cancelQueuedItems(tx, id, now);
        return batchById(tx, orgId, id);
      });
    },

    /** Deletes an ended batch and its tasks; false when there is none. */
    async deleteBatch(orgId: string, id: string, check: (batch: BatchRecord) => void): Promise<boolean> {
      return db.withTx(async (tx) => {
        if (!(await lockedBatch(tx, orgId, id, check))) return false;
        await tx.query('DELETE FROM analyze_batches WHERE id = $1', [id]);
        return true;
      });
    },

    /** The batch's tasks in request order, read RESULTS_CHUNK at a time. */
    async *batchTasks(orgId: string, batchId: string): AsyncIterable<TaskRecord> {
      for (let after = -1; ;) {
        const { rows } = await db.query<TaskRow>(
          'SELECT * FROM analyze_tasks WHERE org_id = $1 AND batch_id = $2 AND position > $3 ORDER BY position LIMIT $4',
          [orgId, batchId, after, RESULTS_CHUNK],
        );
        for (const r of rows) yield toTask(r);
        if (rows.length < RESULTS_CHUNK) return;
        after = rows[rows.length - 1]!.position;
      }
    },

    /**
     * Batches past expires_at that have not ended: their queued items are canceled and the batch
     * is marked expired (it ends once the items being processed end). Returns how many expired.
     */
    async expireBatches(now: Date): Promise<number> {
      const { rows } = await db.query<{ id: string }>(
        'SELECT id FROM analyze_batches WHERE ended_at IS NULL AND expires_at <= $1 AND NOT expired ORDER BY expires_at LIMIT 100',
        [now],
      );
      for (const { id } of rows)
        await db.withTx(async (tx) => {
          await tx.query('UPDATE analyze_batches SET expired = true WHERE id = $1', [id]);
          await cancelQueuedItems(tx, id, now);
        });
      return rows.length;
    },

    // The run's side: each write holds the job's lease.

    /** The task for its run; undefined when it was deleted. */
    async taskForRun(id: string): Promise<TaskRecord | undefined> {
      const { rows } = await db.query<TaskRow>('SELECT * FROM analyze_tasks WHERE id = $1', [id]);
      return rows[0] && toTask(rows[0]);
    },

    /** queued → processing (or processing again, taken over); false when the lease or the status says no. */
    async startRun(id: string, owner: string, now: Date): Promise<boolean> {
      return db.withTx(async (tx) => {
        const result = await tx.query<{ batch_id: string | null }>(
          `UPDATE analyze_tasks SET status = 'processing' WHERE id = $1 AND status IN ('queued', 'pending', 'processing')
             AND ${leaseHeldSql('$2', '$1', '$3', '$4')} RETURNING batch_id`,
          [id, ANALYZE_TASK_JOB, owner, now],
        );
        const batchId = result.rows[0]?.batch_id;
        if (batchId) await refreshBatch(tx, batchId, now);
        return result.rowCount === 1;
      });
    },

    /** processing → ready or failed, with what the run produced, and its analyze-task.status-changed event. */
    async endRun(
      id: string,
      owner: string,
      now: Date,
      end:
        | {
            status: 'ready';
            generationId: string;
            data: string;
            finishReason: 'stop' | 'length';
            outputTokens: number;
            message: string | null;
            videoDuration: number;
          }
        | { status: 'failed'; message: string; videoDuration?: number | undefined },
    ): Promise<boolean> {
      return db
        .withTx(async (tx) => {
          const ready = end.status === 'ready' ? end : undefined;
          const result = await tx.query<{ batch_id: string | null; org_id: string; custom_id: string }>(
            `UPDATE analyze_tasks SET status = $5, generation_id = $6, data = $7, finish_reason = $8, output_tokens = $9, message = $10,
             video_duration = coalesce($11, video_duration), completed_at = $4
           WHERE id = $1 AND status = 'processing' AND ${leaseHeldSql('$2', '$1', '$3', '$4')} RETURNING batch_id, org_id, custom_id`,
            [
              id,
              ANALYZE_TASK_JOB,
              owner,
              now,
              end.status,
              ready?.generationId ?? null,
              ready?.data ?? null,
              ready?.finishReason ?? null,
              ready?.outputTokens ?? null,
              end.message,
              end.videoDuration ?? null,
            ],
          );
          const row = result.rows[0];
          if (!row) return false;
          if (row.batch_id) await refreshBatch(tx, row.batch_id, now);
          const event = { task_id: id, status: end.status, custom_id: row.custom_id || null, batch_id: row.batch_id, message: end.message };
          await enqueueEvents(tx, [analyzeTaskStatusChanged(row.org_id, event)]);
          return true;
        })
        .then((ended) => (ended && eventsWritten(), ended));
    },
  };
}

export type AnalyzeTaskStore = ReturnType<typeof createAnalyzeTaskStore>;
