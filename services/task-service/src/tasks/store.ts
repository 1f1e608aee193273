import { isUniqueViolation, Where, type Database, type Queryable } from '@vus/db';
import { enqueueEvents } from '@vus/events';
import { enqueueJob, leaseHeldSql, type ClaimedJob } from '@vus/jobs';
import { firstJobKind, TASK_JOB_KINDS, type ClaimedTask, type TaskChanges, type TaskLeaseStore } from './leases';
import { TASK_STATUSES, type TaskStatus } from './status';
import type { StatusCounts, TaskFilter, TaskHls, TaskRecord, TaskStore, UserMetadata } from './tasks';

interface TaskRow {
  id: string;
  org_id: string;
  index_id: string;
  video_id: string;
  status: TaskStatus;
  source_kind: 'upload' | 'url' | 'image';
  video_url: string | null;
  media_blob_key: string | null;
  image_blob_key?: string | null;
  transcription_kind: 'upload' | 'url' | null;
  transcription_ref: string | null;
  language: string | null;
  enable_video_stream: boolean;
  user_metadata: UserMetadata;
  filename: string;
  duration: number | null;
  fps: number | null;
  width: number | null;
  height: number | null;
  size: string | null;
  progress: number;
  extractors_run: string[];
  extractors_skipped: { name: string; reason: string }[];
  failure_code: string | null;
  failure_message: string | null;
  idempotency_key: string | null;
  asset_id?: string | null;
  media_reserved: boolean;
  hls: HlsRow | null;
  created_at: Date;
  updated_at: Date;
  history: { status: TaskStatus; at: string }[] | null;
  [column: string]: unknown;
}

/** tasks.hls as stored (jsonb). */
interface HlsRow {
  status: TaskHls['status'];
  video_key: string | null;
  thumbnail_keys: string[];
  updated_at: string;
}

function hlsOf(row: HlsRow | null): TaskHls | null {
  if (!row) return null;
  return { status: row.status, videoKey: row.video_key, thumbnailKeys: row.thumbnail_keys, updatedAt: new Date(row.updated_at) };
}

function hlsRow(hls: TaskHls): HlsRow {
  return { status: hls.status, video_key: hls.videoKey, thumbnail_keys: hls.thumbnailKeys, updated_at: hls.updatedAt.toISOString() };
}

const HISTORY = `(SELECT json_agg(json_build_object('status', h.status, 'at', h.at) ORDER BY h.position)
                  FROM task_status_history h WHERE h.task_id = t.id) AS history`;
const COLUMNS = `t.*, ${HISTORY}`;

function toRecord(row: TaskRow): TaskRecord {
  const source =
    row.source_kind === 'url'
      ? { kind: 'url' as const, url: row.video_url ?? '' }
      : row.source_kind === 'image'
        ? { kind: 'image' as const, blobKey: row.image_blob_key ?? '' }
        : { kind: 'upload' as const, blobKey: row.media_blob_key ?? '' };
  return {
    id: row.id,
    orgId: row.org_id,
    indexId: row.index_id,
    videoId: row.video_id,
    status: row.status,
    source,
    mediaBlobKey: row.media_blob_key,
    transcription:
      row.transcription_kind && row.transcription_ref !== null
        ? row.transcription_kind === 'url'
          ? { kind: 'url', url: row.transcription_ref }
          : { kind: 'upload', blobKey: row.transcription_ref }
        : null,
    language: row.language,
    enableVideoStream: row.enable_video_stream,
    userMetadata: row.user_metadata,
    filename: row.filename,
    system:
      row.duration === null
        ? null
        : {
            filename: row.filename,
            duration: row.duration,
            fps: row.fps ?? 0,
            width: row.width ?? 0,
            height: row.height ?? 0,
            size: Number(row.size ?? 0),
          },
    progress: row.progress,
    hls: hlsOf(row.hls),
    extractors: { ran: row.extractors_run, skipped: row.extractors_skipped },
    failure: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? '' } : null,
    idempotencyKey: row.idempotency_key,
    assetId: row.asset_id ?? null,
    history: (row.history ?? []).map((h) => ({ status: h.status, at: new Date(h.at) })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toClaimed(row: TaskRow, job: ClaimedJob): ClaimedTask {
  return {
    ...toRecord(row),
    leaseOwner: job.leaseOwner,
    leaseExpiresAt: job.leaseExpiresAt,
    attempts: job.attempts,
    mediaReserved: row.media_reserved,
  };
}

/** A task (`t`) into a knowledge store's index: its items', or one whose item went while it ran. */
export const INTO_A_KNOWLEDGE_STORE = 'EXISTS (SELECT 1 FROM knowledge_stores ks WHERE ks.index_id = t.index_id)';

/**
 * The WHERE of a task list: the organization's tasks, narrowed by the filter. A task into a
 * knowledge store's (internal) index is the store's (issue 33): never listed as a task or an indexed asset.
 */
function whereClause(orgId: string, filter: TaskFilter): Where {
  const where = new Where().add((p) => `t.org_id = ${p} AND NOT ${INTO_A_KNOWLEDGE_STORE}`, orgId);
  if (filter.ids?.length) where.add((p) => `t.id = ANY(${p}::text[])`, filter.ids);
  if (filter.indexId) where.add((p) => `t.index_id = ${p}`, filter.indexId);
  if (filter.filename) where.add((p) => `t.filename = ${p}`, filter.filename);
  if (filter.statuses?.length) where.add((p) => `t.status = ANY(${p}::text[])`, filter.statuses);
  if (filter.videoIds?.length) where.add((p) => `t.video_id = ANY(${p}::text[])`, filter.videoIds);
  if (filter.assetsOnly) where.add((p) => `(t.asset_id IS NOT NULL) = ${p}`, true);
  if (filter.assetId) where.add((p) => `t.asset_id = ${p}`, filter.assetId);
  return where
    .bounds('t.duration', filter.duration)
    .bounds('t.width', filter.width)
    .bounds('t.height', filter.height)
    .bounds('t.fps', filter.fps)
    .bounds('t.size', filter.size)
    .bounds('t.created_at', filter.createdAt)
    .bounds('t.updated_at', filter.updatedAt);
}

async function appendHistory(tx: Queryable, taskId: string, status: TaskStatus, at: Date): Promise<void> {
  await tx.query(
    `INSERT INTO task_status_history (task_id, position, status, at)
     SELECT $1, coalesce(max(position), 0) + 1, $2, $3 FROM task_status_history WHERE task_id = $1`,
    [taskId, status, at],
  );
}

async function selectTask(tx: Queryable, id: string): Promise<TaskRow | undefined> {
  const { rows } = await tx.query<TaskRow>(`SELECT ${COLUMNS} FROM tasks t WHERE t.id = $1`, [id]);
  return rows[0];
}

export function createTaskStore(db: Database): TaskStore {
  return {
    async insert(task, events) {
      try {
        return await db.withTx(async (tx) => {
          await tx.query(
            `INSERT INTO tasks (id, org_id, index_id, video_id, status, source_kind, video_url, media_blob_key,
                                transcription_kind, transcription_ref, language, enable_video_stream, user_metadata,
                                filename, idempotency_key, created_at, updated_at, asset_id, image_blob_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
            [
              task.id,
              task.orgId,
              task.indexId,
              task.videoId,
              task.status,
              task.source.kind,
              task.source.kind === 'url' ? task.source.url : null,
              task.mediaBlobKey,
              task.transcription?.kind ?? null,
              task.transcription ? (task.transcription.kind === 'url' ? task.transcription.url : task.transcription.blobKey) : null,
              task.language,
              task.enableVideoStream,
              JSON.stringify(task.userMetadata),
              task.filename,
              task.idempotencyKey,
              task.createdAt,
              task.updatedAt,
              task.assetId ?? null,
              task.source.kind === 'image' ? task.source.blobKey : null,
            ],
          );
          await appendHistory(tx, task.id, task.status, task.createdAt);
          // The worker's first job, committed with the task: no task without one, no job without its task.
          await enqueueJob(tx, { kind: firstJobKind(task.source), subjectId: task.id, orgId: task.orgId, runAt: task.createdAt });
          await enqueueEvents(tx, events);
          return task;
        });
      } catch (error) {
        if (!isUniqueViolation(error, 'tasks_idempotency') || task.idempotencyKey === null) throw error;
        const { rows } = await db.query<TaskRow>(`SELECT ${COLUMNS} FROM tasks t WHERE t.org_id = $1 AND t.idempotency_key = $2`, [
          task.orgId,
          task.idempotencyKey,
        ]);
        if (!rows[0]) throw error;
        return toRecord(rows[0]);
      }
    },

    async get(orgId, id) {
      const { rows } = await db.query<TaskRow>(`SELECT ${COLUMNS} FROM tasks t WHERE t.org_id = $1 AND t.id = $2`, [orgId, id]);
      return rows[0] && toRecord(rows[0]);
    },

    async list(orgId, filter, sort, limit, offset) {
      const where = whereClause(orgId, filter);
      const direction = sort.order === 'asc' ? 'ASC' : 'DESC';
      const order = `t.${sort.by === 'updated_at' ? 'updated_at' : 'created_at'} ${direction}, t.id ${direction}`;
      const page = await db.query<TaskRow>(
        `SELECT ${COLUMNS} FROM tasks t WHERE ${where.sql} ORDER BY ${order}
         LIMIT $${where.params.length + 1} OFFSET $${where.params.length + 2}`,
        [...where.params, limit, offset],
      );
      const count = await db.query<{ total: string }>(`SELECT count(*) AS total FROM tasks t WHERE ${where.sql}`, where.params);
      return { rows: page.rows.map(toRecord), total: Number(count.rows[0]?.total ?? 0) };
    },

    async deleteIn(orgId, id, statuses) {
      return db.withTx(async (tx) => {
        const row = await selectTask(tx, id);
        if (!row || row.org_id !== orgId || !statuses.includes(row.status)) return undefined;
        await tx.query('DELETE FROM tasks WHERE id = $1 AND status = ANY($2::text[])', [id, statuses]);
        await tx.query('DELETE FROM jobs WHERE kind = ANY($1::text[]) AND subject_id = $2', [TASK_JOB_KINDS, id]);
        return toRecord(row);
      });
    },

    async countByStatus(orgId, indexId) {
      const { rows } = await db.query<{ status: TaskStatus; count: number }>(
        'SELECT status, count(*)::int AS count FROM tasks WHERE org_id = $1 AND index_id = $2 GROUP BY status',
        [orgId, indexId],
      );
      const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as StatusCounts;
      for (const row of rows) counts[row.status] = row.count;
      return counts;
    },
  };
}

/** Column assignments for the worker's changes, starting at placeholder `$<first>`. */
function changeAssignments(changes: TaskChanges, first: number): { sql: string[]; params: unknown[] } {
  const sql: string[] = [];
  const params: unknown[] = [];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sql.push(`${column} = $${first + params.length - 1}`);
  };
  if (changes.mediaBlobKey !== undefined) set('media_blob_key', changes.mediaBlobKey);
  if (changes.system) {
    set('duration', changes.system.duration);
    set('fps', changes.system.fps);
    set('width', changes.system.width);
    set('height', changes.system.height);
    set('size', changes.system.size);
  }
  if (changes.progress !== undefined) set('progress', changes.progress);
  if (changes.failure) {
    set('failure_code', changes.failure.code);
    set('failure_message', changes.failure.message);
  }
  if (changes.mediaReserved !== undefined) set('media_reserved', changes.mediaReserved);
  if (changes.hls) set('hls', JSON.stringify(hlsRow(changes.hls)));
  if (changes.extractors) {
    set('extractors_run', changes.extractors.ran);
    set('extractors_skipped', JSON.stringify(changes.extractors.skipped));
  }
  return { sql, params };
}

export function createTaskLeaseStore(db: Database): TaskLeaseStore {
  return {
    async load(job) {
      const row = await selectTask(db, job.subjectId);
      return row && toClaimed(row, job);
    },

    async update(id, owner, now, update, events) {
      return db.withTx(async (tx) => {
        const assignments = changeAssignments(update.changes ?? {}, 5);
        const params: unknown[] = [id, owner, now, update.status?.from ?? null, ...assignments.params];
        const sets = ['updated_at = $3', ...assignments.sql];
        if (update.status) {
          params.push(update.status.to);
          sets.push(`status = $${params.length}`);
        }
        const result = await tx.query(
          `UPDATE tasks SET ${sets.join(', ')}
           WHERE id = $1 AND (${TASK_JOB_KINDS.map((kind) => leaseHeldSql(`'${kind}'`, 'tasks.id', '$2', '$3')).join(' OR ')})
             AND ($4::text IS NULL OR status = $4)`,
          params,
        );
        if (result.rowCount !== 1) return undefined;
        if (update.status) await appendHistory(tx, id, update.status.to, now);
        const row = await selectTask(tx, id);
        if (!row) return undefined;
        const task = toRecord(row);
        if (update.nextJob) await enqueueJob(tx, { kind: update.nextJob, subjectId: id, orgId: task.orgId, runAt: now });
        await enqueueEvents(tx, events(task));
        return task;
      });
    },
  };
}
