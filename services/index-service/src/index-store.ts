/** The indexes' SQL (IndexStore of indexes.ts): their rows, the engine columns lists filter on, and their deletion with its videos. */
import { isUniqueViolation, Where, type Database, type Queryable } from '@vus/db';
import { enqueueEvents } from '@vus/events';
import { findEngine, type EngineOption } from './engines';
import { duplicateIndexName, type IndexFilter, type IndexRecord, type IndexStore, type ModelConfig } from './indexes';
import type { DeletedVideo } from './video-events';

/** An IndexRecord's fields, read straight from the columns (the names are the mapping). */
const INDEX_FIELDS =
  'id, org_id AS "orgId", name, models, addons, video_count AS "videoCount", total_duration AS "totalDuration", created_at AS "createdAt", updated_at AS "updatedAt", expires_at AS "expiresAt", internal';

/** An index as a row (pg's rows are records of anything). */
type IndexRow = IndexRecord & Record<string, unknown>;

/** The WHERE of an index list: the organization's indexes, narrowed by the filter. */
function whereClause(orgId: string, filter: IndexFilter): Where {
  // Internal indexes (knowledge stores') are never the user's to list.
  const where = new Where().add((p) => `org_id = ${p}`, orgId).add((p) => `internal = ${p}`, false);
  if (filter.ids?.length) where.add((p) => `id = ANY(${p}::text[])`, filter.ids);
  if (filter.name !== undefined) where.add((p) => `name = ${p}`, filter.name);
  if (filter.options?.length) where.add((p) => `options @> ${p}::text[]`, filter.options);
  if (filter.family) where.add((p) => `${p} = ANY(families)`, filter.family);
  if (filter.modelName) where.add((p) => `${p} = ANY(model_names)`, filter.modelName);
  return where.bounds('created_at', filter.createdAt).bounds('updated_at', filter.updatedAt);
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
                                  video_count, total_duration, created_at, updated_at, expires_at, internal)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
            [
              index.id,
              index.orgId,
              index.name,
              JSON.stringify(index.models),
              modelNames,
              families,
              options,
              index.addons,
              index.videoCount,
              index.totalDuration,
              index.createdAt,
              index.updatedAt,
              index.expiresAt,
              index.internal,
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
      const { rows } = await db.query<IndexRow>(`SELECT ${INDEX_FIELDS} FROM indexes WHERE org_id = $1 AND id = $2`, [orgId, id]);
      return rows[0];
    },

    async list(orgId, filter, sort, limit, offset) {
      const where = whereClause(orgId, filter);
      const order = `${sort.by === 'updated_at' ? 'updated_at' : 'created_at'} ${sort.order === 'asc' ? 'ASC' : 'DESC'}, id ${sort.order === 'asc' ? 'ASC' : 'DESC'}`;
      const [page, count] = await Promise.all([
        db.query<IndexRow>(
          `SELECT ${INDEX_FIELDS} FROM indexes WHERE ${where.sql} ORDER BY ${order}
           LIMIT $${where.params.length + 1} OFFSET $${where.params.length + 2}`,
          [...where.params, limit, offset],
        ),
        db.query<{ total: string }>(`SELECT count(*) AS total FROM indexes WHERE ${where.sql}`, where.params),
      ]);
      return { rows: page.rows, total: Number(count.rows[0]?.total ?? 0) };
    },

    async rename(orgId, id, name, at) {
      try {
        const { rows } = await db.query<IndexRow>(
          `UPDATE indexes SET name = $3, updated_at = $4 WHERE org_id = $1 AND id = $2 RETURNING ${INDEX_FIELDS}`,
          [orgId, id, name, at],
        );
        return rows[0];
      } catch (error) {
        if (isUniqueViolation(error, 'indexes_org_name')) throw duplicateIndexName(name);
        throw error;
      }
    },

    async delete(orgId, id, events) {
      return db.withTx(async (tx: Queryable) => {
        // The lock makes a concurrent CreateVideo wait (its FOR NO KEY UPDATE) and then find no index.
        const locked = await tx.query('SELECT id FROM indexes WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
        if (locked.rowCount !== 1) return false;
        const videos = await videosLeavingWithIndex(tx, id);
        // Cascades to the videos and their artifacts.
        await tx.query('DELETE FROM indexes WHERE id = $1', [id]);
        await enqueueEvents(tx, events(videos));
        return true;
      });
    },
  };
}

/** The videos of an index with their blob keys, read before the cascade removes them. */
async function videosLeavingWithIndex(tx: Queryable, indexId: string): Promise<DeletedVideo[]> {
  const { rows } = await tx.query<{ id: string; index_id: string; media_blob_key: string | null; thumbnail_keys: string[] }>(
    `SELECT v.id, v.index_id, v.media_blob_key,
            coalesce(array_agg(t.blob_key ORDER BY t.time_s) FILTER (WHERE t.blob_key IS NOT NULL), '{}') AS thumbnail_keys
     FROM videos v LEFT JOIN video_thumbnails t ON t.video_id = v.id
     WHERE v.index_id = $1 GROUP BY v.id ORDER BY v.id`,
    [indexId],
  );
  return rows.map((r) => ({
    id: r.id,
    indexId: r.index_id,
    blobKeys: [...(r.media_blob_key ? [r.media_blob_key] : []), ...r.thumbnail_keys],
  }));
}
