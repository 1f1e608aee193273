import { Where, type Database, type Queryable, type Row } from '@vus/db';
import type { CollectionRecord, EntityMetadata, EntityRecord, EntitySort, EntityStatus, EntityStore, ReferenceAsset } from './entities';

type CollectionRow = {
  id: string;
  org_id: string;
  name: string;
  description: string;
  created_at: Date;
  updated_at: Date;
};

type EntityRow = CollectionRow & {
  collection_id: string;
  metadata: EntityMetadata;
  status: EntityStatus;
  asset_ids: string[] | null;
};

const toCollection = (row: CollectionRow): CollectionRecord => ({
  id: row.id,
  orgId: row.org_id,
  name: row.name,
  description: row.description,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toEntity = (row: EntityRow): EntityRecord => ({
  ...toCollection(row),
  collectionId: row.collection_id,
  metadata: row.metadata,
  status: row.status,
  assetIds: row.asset_ids ?? [],
});

/** An entity row with its asset ids in the order they were added. */
const ENTITY_SELECT = `SELECT e.*, ARRAY(SELECT asset_id FROM entity_assets a WHERE a.entity_id = e.id ORDER BY position) AS asset_ids
  FROM entities e`;

/** ORDER BY for a list: the column (checked by the type) and direction, names in any case, ids breaking ties. */
const orderBy = (sort: EntitySort, alias = '') => {
  const direction = sort.order === 'asc' ? 'ASC' : 'DESC';
  const column = sort.by === 'name' ? `lower(${alias}name) ${direction}, ${alias}name` : `${alias}${sort.by}`;
  return `ORDER BY ${column} ${direction}, ${alias}id ${direction}`;
};

async function page<R extends Row>(
  db: Queryable,
  select: string,
  from: string,
  where: Where,
  order: string,
  limit: number,
  offset: number,
) {
  const n = where.params.length;
  const rows = await db.query<R>(`${select} WHERE ${where.sql} ${order} LIMIT $${n + 1} OFFSET $${n + 2}`, [
    ...where.params,
    limit,
    offset,
  ]);
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${from} WHERE ${where.sql}`, where.params);
  return { rows: rows.rows, total: count.rows[0]?.total ?? 0 };
}

async function appendAssets(tx: Queryable, entityId: string, assetIds: readonly string[]): Promise<void> {
  if (assetIds.length === 0) return;
  await tx.query(
    `INSERT INTO entity_assets (entity_id, asset_id, position)
     SELECT $1, asset_id, (SELECT coalesce(max(position), 0) FROM entity_assets WHERE entity_id = $1) + ord
     FROM unnest($2::text[]) WITH ORDINALITY AS t(asset_id, ord)
     ON CONFLICT (entity_id, asset_id) DO NOTHING`,
    [entityId, assetIds],
  );
}

/** Entity collections, entities and their assets on SQL. */
export function createEntityStore(db: Database): EntityStore {
  const loadEntity = async (q: Queryable, orgId: string, collectionId: string, id: string) => {
    const { rows } = await q.query<EntityRow>(`${ENTITY_SELECT} WHERE e.org_id = $1 AND e.collection_id = $2 AND e.id = $3`, [
      orgId,
      collectionId,
      id,
    ]);
    return rows[0] && toEntity(rows[0]);
  };

  return {
    async insertCollection(c) {
      await db.query(
        `INSERT INTO entity_collections (id, org_id, name, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [c.id, c.orgId, c.name, c.description, c.createdAt, c.updatedAt],
      );
    },

    async getCollection(orgId, id) {
      const { rows } = await db.query<CollectionRow>('SELECT * FROM entity_collections WHERE org_id = $1 AND id = $2', [orgId, id]);
      return rows[0] && toCollection(rows[0]);
    },

    async listCollections(orgId, filter, sort, limit, offset) {
      const where = new Where().add((p) => `org_id = ${p}`, orgId);
      if (filter.name) where.add((p) => `strpos(lower(name), lower(${p})) > 0`, filter.name);
      const result = await page<CollectionRow>(
        db,
        'SELECT * FROM entity_collections',
        'entity_collections',
        where,
        orderBy(sort),
        limit,
        offset,
      );
      return { rows: result.rows.map(toCollection), total: result.total };
    },

    async updateCollection(orgId, id, changes, now) {
      const { rows } = await db.query<CollectionRow>(
        `UPDATE entity_collections SET name = coalesce($3, name), description = coalesce($4, description), updated_at = $5
         WHERE org_id = $1 AND id = $2 RETURNING *`,
        [orgId, id, changes.name ?? null, changes.description ?? null, now],
      );
      return rows[0] && toCollection(rows[0]);
    },

    async deleteCollection(orgId, id) {
      const result = await db.query('DELETE FROM entity_collections WHERE org_id = $1 AND id = $2', [orgId, id]);
      return (result.rowCount ?? 0) > 0;
    },

    async referenceAssets(orgId, ids): Promise<ReferenceAsset[]> {
      if (ids.length === 0) return [];
      const { rows } = await db.query<{ id: string; status: ReferenceAsset['status']; file_type: ReferenceAsset['assetType'] }>(
        'SELECT id, status, file_type FROM assets WHERE org_id = $1 AND id = ANY($2::text[])',
        [orgId, ids],
      );
      return rows.map((r) => ({ id: r.id, status: r.status, assetType: r.file_type }));
    },

    async insertEntity(e) {
      await db.withTx(async (tx) => {
        await tx.query(
          `INSERT INTO entities (id, org_id, collection_id, name, description, metadata, status, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [e.id, e.orgId, e.collectionId, e.name, e.description, JSON.stringify(e.metadata), e.status, e.createdAt, e.updatedAt],
        );
        await appendAssets(tx, e.id, e.assetIds);
      });
    },

    getEntity: (orgId, collectionId, id) => loadEntity(db, orgId, collectionId, id),

    async listEntities(orgId, collectionId, filter, sort, limit, offset) {
      const where = new Where().add((p) => `e.org_id = ${p}`, orgId).add((p) => `e.collection_id = ${p}`, collectionId);
      if (filter.name) where.add((p) => `strpos(lower(e.name), lower(${p})) > 0`, filter.name);
      if (filter.status) where.add((p) => `e.status = ${p}`, filter.status);
      const result = await page<EntityRow>(db, ENTITY_SELECT, 'entities e', where, orderBy(sort, 'e.'), limit, offset);
      return { rows: result.rows.map(toEntity), total: result.total };
    },

    async listEntitiesByAsset(orgId, assetId, limit, offset) {
      const where = new Where()
        .add((p) => `e.org_id = ${p}`, orgId)
        .add((p) => `e.id IN (SELECT entity_id FROM entity_assets WHERE asset_id = ${p})`, assetId);
      const sort: EntitySort = { by: 'created_at', order: 'desc' };
      const result = await page<EntityRow>(db, ENTITY_SELECT, 'entities e', where, orderBy(sort, 'e.'), limit, offset);
      return { rows: result.rows.map(toEntity), total: result.total };
    },

    async updateEntity(orgId, collectionId, id, changes, now) {
      const updated = await db.query(
        `UPDATE entities SET name = coalesce($4, name), description = coalesce($5, description),
                             metadata = coalesce($6::jsonb, metadata), updated_at = $7
         WHERE org_id = $1 AND collection_id = $2 AND id = $3`,
        [
          orgId,
          collectionId,
          id,
          changes.name ?? null,
          changes.description ?? null,
          changes.metadata === undefined ? null : JSON.stringify(changes.metadata),
          now,
        ],
      );
      return updated.rowCount ? loadEntity(db, orgId, collectionId, id) : undefined;
    },

    async deleteEntity(orgId, collectionId, id) {
      const result = await db.query('DELETE FROM entities WHERE org_id = $1 AND collection_id = $2 AND id = $3', [orgId, collectionId, id]);
      return (result.rowCount ?? 0) > 0;
    },

    async addAssets(orgId, collectionId, id, assetIds, now) {
      return db.withTx(async (tx) => {
        const locked = await tx.query('UPDATE entities SET updated_at = $4 WHERE org_id = $1 AND collection_id = $2 AND id = $3', [
          orgId,
          collectionId,
          id,
          now,
        ]);
        if (!locked.rowCount) return undefined;
        await appendAssets(tx, id, assetIds);
        return loadEntity(tx, orgId, collectionId, id);
      });
    },

    async removeAssets(orgId, collectionId, id, assetIds, now) {
      return db.withTx(async (tx) => {
        // The entity's row is locked first, so two concurrent removals cannot both leave it empty.
        const locked = await tx.query('SELECT 1 FROM entities WHERE org_id = $1 AND collection_id = $2 AND id = $3 FOR UPDATE', [
          orgId,
          collectionId,
          id,
        ]);
        if (!locked.rowCount) return undefined;
        const left = await tx.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM entity_assets WHERE entity_id = $1 AND NOT (asset_id = ANY($2::text[]))',
          [id, assetIds],
        );
        if ((left.rows[0]?.n ?? 0) === 0) return 'would_be_empty' as const;
        await tx.query('DELETE FROM entity_assets WHERE entity_id = $1 AND asset_id = ANY($2::text[])', [id, assetIds]);
        await tx.query('UPDATE entities SET updated_at = $2 WHERE id = $1', [id, now]);
        return loadEntity(tx, orgId, collectionId, id);
      });
    },
  };
}
