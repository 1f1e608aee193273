import type { Database, Queryable } from '@vus/db';
import { enqueueEvents, usageRecorded } from '@vus/events';
import { enqueueJob } from '@vus/jobs';
import type { EmbedTaskRecord, EmbedTaskStore, TaskListQuery, TaskResult } from './tasks';

export const EMBED_TASK_JOB = 'embed-task';

const COLUMNS = `id, org_id AS "orgId", model_name AS "modelName", status, error_message AS "errorMessage", source, options, result,
  created_at AS "createdAt", updated_at AS "updatedAt", expires_at AS "expiresAt"`;

/** The embed tasks table (migrations/0002); a task's job is queued in the same transaction. */
export function createEmbedTaskStore(
  db: Database,
  eventsWritten: () => void = () => undefined,
): EmbedTaskStore & {
  byId(id: string): Promise<EmbedTaskRecord | undefined>;
  finish(id: string, result: TaskResult, at: Date): Promise<void>;
  fail(id: string, message: string, at: Date): Promise<void>;
  purge(before: Date): Promise<number>;
  mediaInUse(): Promise<Set<string>>;
} {
  const one = async (q: Queryable, sql: string, params: unknown[]) => (await q.query(sql, params)).rows[0] as EmbedTaskRecord | undefined;
  return {
    create(task, idempotencyKey) {
      return db.withTx(async (tx) => {
        const inserted = await one(
          tx,
          `INSERT INTO embed_tasks (id, org_id, model_name, status, idempotency_key, source, options, created_at, updated_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
           ON CONFLICT (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
           RETURNING ${COLUMNS}`,
          [
            task.id,
            task.orgId,
            task.modelName,
            task.status,
            idempotencyKey ?? null,
            JSON.stringify(task.source),
            JSON.stringify(task.options),
            task.createdAt,
            task.expiresAt,
          ],
        );
        if (!inserted)
          return (await one(tx, `SELECT ${COLUMNS} FROM embed_tasks WHERE org_id = $1 AND idempotency_key = $2`, [
            task.orgId,
            idempotencyKey,
          ]))!;
        await enqueueJob(tx, { kind: EMBED_TASK_JOB, subjectId: task.id, orgId: task.orgId, runAt: task.createdAt });
        return inserted;
      });
    },
    get: (orgId, id) => one(db, `SELECT ${COLUMNS} FROM embed_tasks WHERE org_id = $1 AND id = $2`, [orgId, id]),
    byId: (id) => one(db, `SELECT ${COLUMNS} FROM embed_tasks WHERE id = $1`, [id]),
    async list(orgId, query: TaskListQuery) {
      const where = ['org_id = $1'];
      const params: unknown[] = [orgId];
      const add = (condition: (at: string) => string, value: unknown) => (params.push(value), where.push(condition(`$${params.length}`)));
      if (query.from) add((at) => `created_at >= ${at}`, query.from);
      if (query.to) add((at) => `created_at <= ${at}`, query.to);
      if (query.statuses.length > 0) add((at) => `status = ANY(${at})`, query.statuses);
      add((at) => `expires_at > ${at}`, new Date());
      const filter = where.join(' AND ');
      const total = Number(
        (await db.query<{ n: string }>(`SELECT count(*) AS n FROM embed_tasks WHERE ${filter}`, params)).rows[0]?.n ?? 0,
      );
      const rows = (
        await db.query(
          `SELECT ${COLUMNS} FROM embed_tasks WHERE ${filter} ORDER BY created_at DESC, id LIMIT ${Number(query.limit)} OFFSET ${Number(query.offset)}`,
          params,
        )
      ).rows as unknown as EmbedTaskRecord[];
      return { rows, total };
    },
    /** Ready, once; the seconds embedded are its usage (Embed - Video), written with it. */
    async finish(id, result, at) {
      const finished = await db.withTx(async (tx) => {
        const { rows } = await tx.query<{ org_id: string }>(
          `UPDATE embed_tasks SET status = 'ready', result = $2, updated_at = $3 WHERE id = $1 AND status = 'processing' RETURNING org_id`,
          [id, JSON.stringify(result), at],
        );
        const orgId = rows[0]?.org_id;
        if (orgId === undefined) return false;
        const usage = {
          kind: 'media_seconds',
          quantity: result.duration,
          idempotencyKey: `embed-task:${id}`,
          occurredAt: at,
          category: 'embed_video',
        } as const;
        await enqueueEvents(tx, [usageRecorded(orgId, usage)]);
        return true;
      });
      if (finished) eventsWritten();
    },
    async fail(id, message, at) {
      await db.query(
        `UPDATE embed_tasks SET status = 'failed', error_message = $2, updated_at = $3 WHERE id = $1 AND status = 'processing'`,
        [id, message.slice(0, 1000), at],
      );
    },
    /** The blob keys of unfinished tasks' media: what the media sweep keeps. */
    async mediaInUse() {
      const { rows } = await db.query<{ key: string }>(
        `SELECT source->>'blobKey' AS key FROM embed_tasks WHERE status = 'processing' AND source ? 'blobKey'`,
        [],
      );
      return new Set(rows.map((row) => row.key));
    },
    async purge(before) {
      return (await db.query(`DELETE FROM embed_tasks WHERE expires_at < $1`, [before])).rowCount ?? 0;
    },
  };
}

export type EmbedTaskTable = ReturnType<typeof createEmbedTaskStore>;
