import { isUniqueViolation, type Database, type Queryable } from '@vus/db';
import { enqueueEvents } from '@vus/events';
import type { EngineOption } from './engines';
import { findEngine } from './engines';
import {
  duplicateIndexName,
  type IndexFilter,
  type IndexRecord,
  type IndexStore,
  type ModelConfig,
  type TimeBounds,
} from './indexes';

interface IndexRow {
  id: string;
  org_id: string;
  name: string;
  models: ModelConfig[];
  addons: string[];
  video_count: number;
  total_duration: number;
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  total?: string;
  [column: string]: unknown;
}

const COLUMNS = 'id, org_id, name, models, addons, video_count, total_duration, created_at, updated_at, expires_at';

function toRecord(row: IndexRow): IndexRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    models: row.models,
    addons: row.addons,
    videoCount: row.video_count,
    totalDuration: row.total_duration,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
  };
}

/** Builds a parameterised WHERE clause; `params` starts with the org id as $1. */
function whereClause(orgId: string, filter: IndexFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [orgId];
  const conditions = ['org_id = $1'];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filter.ids?.length) add((p) => `id = ANY(${p}::text[])`, filter.ids);
  if (filter.name !== undefined) add((p) => `name = ${p}`, filter.name);
  if (filter.options?.length) add((p) => `options @> ${p}::text[]`, filter.options);
  if (filter.family) add((p) => `${p} = ANY(families)`, filter.family);
  if (filter.modelName) add((p) => `${p} = ANY(model_names)`, filter.modelName);
  for (const [column, bounds] of [['created_at', filter.createdAt], ['updated_at', filter.updatedAt]] as const) {
    addTimeBounds(column, bounds, add);
  }
  return { sql: conditions.join(' AND '), params };
}

function addTimeBounds(
  column: string,
  bounds: TimeBounds | undefined,
  add: (condition: (placeholder: string) => string, value: unknown) => void,
): void {
  if (!bounds) return;
  if (bounds.gte) add((p) => `${column} >= ${p}`, bounds.gte);
  if (bounds.lte) add((p) => `${column} <= ${p}`, bounds.lte);
  if (bounds.gt) add((p) => `${column} > ${p}`, bounds.gt);
  if (bounds.lt) add((p) => `${column} < ${p}`, bounds.lt);
}

/** Derived columns that let SQL filter on engines without unpacking the JSON. */
function derived(models: ModelConfig[]): { modelNames: string[]; families: string[]; options: EngineOption[] } {
  return {
    modelNames: models.map((m) => m.name),
    families: [...new Set(models.map((m) => findEngine(m.name)?.family ?? 'unknown'))],
    options: [...new Set(models.flatMap((m) => m.options))],
  };
}

export function createIndexStore(db: Database): IndexStore {
  return {
    async insert(index, events) {
      const { modelNames, families, options } = derived(index.models);
      try {
        await db.withTx(async (tx) => {
          await tx.query(
            `INSERT INTO indexes (id, org_id, name, models, model_names, families, options, addons,
                                  video_count, total_duration, created_at, updated_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
            [
              index.id, index.orgId, index.name, JSON.stringify(index.models), modelNames, families, options,
              index.addons, index.videoCount, index.totalDuration, index.createdAt, index.updatedAt, index.expiresAt,
            ],
          );
          await enqueueEvents(tx, events);
        });
      } catch (error) {
        if (isUniqueViolation(error, 'indexes_org_name')) throw duplicateIndexName(index.name);
        throw error;
      }
    },

    async get(orgId, id) {
      const { rows } = await db.query<IndexRow>(`SELECT ${COLUMNS} FROM indexes WHERE org_id = $1 AND id = $2`, [orgId, id]);
      return rows[0] && toRecord(rows[0]);
    },

    async list(orgId, filter, sort, limit, offset) {
      const where = whereClause(orgId, filter);
      const order = `${sort.by === 'updated_at' ? 'updated_at' : 'created_at'} ${sort.order === 'asc' ? 'ASC' : 'DESC'}, id ${sort.order === 'asc' ? 'ASC' : 'DESC'}`;
      const [page, count] = await Promise.all([
        db.query<IndexRow>(
          `SELECT ${COLUMNS} FROM indexes WHERE ${where.sql} ORDER BY ${order}
           LIMIT $${where.params.length + 1} OFFSET $${where.params.length + 2}`,
          [...where.params, limit, offset],
        ),
        db.query<{ total: string }>(`SELECT count(*) AS total FROM indexes WHERE ${where.sql}`, where.params),
      ]);
      return { rows: page.rows.map(toRecord), total: Number(count.rows[0]?.total ?? 0) };
    },

    async rename(orgId, id, name, at) {
      try {
        const { rows } = await db.query<IndexRow>(
          `UPDATE indexes SET name = $3, updated_at = $4 WHERE org_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
          [orgId, id, name, at],
        );
        return rows[0] && toRecord(rows[0]);
      } catch (error) {
        if (isUniqueViolation(error, 'indexes_org_name')) throw duplicateIndexName(name);
        throw error;
      }
    },

    async delete(orgId, id, events) {
      return db.withTx(async (tx: Queryable) => {
        const result = await tx.query('DELETE FROM indexes WHERE org_id = $1 AND id = $2', [orgId, id]);
        if (result.rowCount !== 1) return false;
        await enqueueEvents(tx, events);
        return true;
      });
    },
  };
}
