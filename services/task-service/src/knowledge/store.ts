import { Where, type Database } from '@vus/db';
import type { TaskStatus } from '../tasks/status';
import { itemStatusOf, itemStatusSql } from './item-status';
import type {
  EnrichmentConfig,
  ItemAssetType,
  ItemRecord,
  ItemStatus,
  KnowledgeStoreRecord,
  KnowledgeStoreStore,
  ListSort,
  SourceAsset,
  StoreMetadata,
} from './knowledge-stores';

type StoreRow = {
  id: string;
  org_id: string;
  name: string;
  description: string;
  enrichment_config: EnrichmentConfig | null;
  metadata: StoreMetadata;
  item_count: number;
  index_id: string | null;
  created_at: Date;
  updated_at: Date;
};

type ItemRow = {
  id: string;
  org_id: string;
  knowledge_store_id: string;
  asset_id: string;
  asset_type: ItemAssetType;
  status: ItemStatus;
  task_id: string | null;
  task_status: TaskStatus | null;
  task_index_id: string | null;
  task_video_id: string | null;
  metadata: StoreMetadata;
  created_at: Date;
  updated_at: Date;
  filename: string;
  duration: number | null;
  width: number | null;
  height: number | null;
  size: string | number | null;
  mime_type: string | null;
};

const toStore = (row: StoreRow): KnowledgeStoreRecord => ({
  id: row.id,
  orgId: row.org_id,
  name: row.name,
  description: row.description,
  enrichment: row.enrichment_config,
  metadata: row.metadata,
  itemCount: row.item_count,
  indexId: row.index_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toItem = (row: ItemRow): ItemRecord => ({
  id: row.id,
  orgId: row.org_id,
  storeId: row.knowledge_store_id,
  assetId: row.asset_id,
  assetType: row.asset_type,
  status: itemStatusOf(row.task_status, row.status),
  task:
    row.task_id && row.task_index_id && row.task_video_id
      ? { id: row.task_id, indexId: row.task_index_id, videoId: row.task_video_id }
      : null,
  metadata: row.metadata,
  media: {
    filename: row.filename,
    duration: row.duration,
    width: row.width,
    height: row.height,
    size: row.size === null ? null : Number(row.size),
    mimeType: row.mime_type,
  },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A store with its number of items. */
const STORE_SELECT = `SELECT s.*, (SELECT count(*)::int FROM knowledge_store_items i WHERE i.knowledge_store_id = s.id) AS item_count
  FROM knowledge_stores s`;
/** The status an item shows (its task's, item-status.ts), for filters. */
const ITEM_STATUS = itemStatusSql('t.status', 'i.status');
/** The items with their assets and their indexing tasks. */
const ITEM_FROM = 'FROM knowledge_store_items i JOIN assets a ON a.id = i.asset_id LEFT JOIN tasks t ON t.id = i.task_id';
/** An item with its asset's media and its task; its updated_at moves with the task's. */
const ITEM_SELECT = `SELECT i.id, i.org_id, i.knowledge_store_id, i.asset_id, i.asset_type, i.status, i.metadata, i.created_at,
    greatest(i.updated_at, t.updated_at) AS updated_at, i.task_id, t.status AS task_status, t.index_id AS task_index_id,
    t.video_id AS task_video_id, a.filename, a.duration, a.width, a.height, a.size, a.mime_type
  ${ITEM_FROM}`;

/** ORDER BY for a list: the column (checked by the type) and direction, ids breaking ties. */
const orderBy = (sort: ListSort, alias: string) => {
  const direction = sort.order === 'asc' ? 'ASC' : 'DESC';
  return `ORDER BY ${alias}.${sort.by} ${direction}, ${alias}.id ${direction}`;
};

/** Knowledge stores and their items on SQL. */
export function createKnowledgeStoreStore(db: Database): KnowledgeStoreStore {
  const getItem = async (orgId: string, storeId: string, id: string) => {
    const { rows } = await db.query<ItemRow>(`${ITEM_SELECT} WHERE i.org_id = $1 AND i.knowledge_store_id = $2 AND i.id = $3`, [
      orgId,
      storeId,
      id,
    ]);
    return rows[0] && toItem(rows[0]);
  };

  const getStore = async (orgId: string, id: string) => {
    const { rows } = await db.query<StoreRow>(`${STORE_SELECT} WHERE s.org_id = $1 AND s.id = $2`, [orgId, id]);
    return rows[0] && toStore(rows[0]);
  };

  return {
    async insertStore(s) {
      await db.query(
        `INSERT INTO knowledge_stores (id, org_id, name, description, enrichment_config, metadata, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          s.id,
          s.orgId,
          s.name,
          s.description,
          s.enrichment && JSON.stringify(s.enrichment),
          JSON.stringify(s.metadata),
          s.createdAt,
          s.updatedAt,
        ],
      );
    },

    getStore,

    async listStores(orgId, sort, limit, offset) {
      const { rows } = await db.query<StoreRow>(`${STORE_SELECT} WHERE s.org_id = $1 ${orderBy(sort, 's')} LIMIT $2 OFFSET $3`, [
        orgId,
        limit,
        offset,
      ]);
      const count = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM knowledge_stores WHERE org_id = $1', [orgId]);
      return { rows: rows.map(toStore), total: count.rows[0]?.total ?? 0 };
    },

    async updateStore(orgId, id, changes, now) {
      const { rowCount } = await db.query(
        `UPDATE knowledge_stores SET name = coalesce($3, name), description = coalesce($4, description),
           metadata = coalesce($5::jsonb, metadata), updated_at = $6
         WHERE org_id = $1 AND id = $2`,
        [orgId, id, changes.name ?? null, changes.description ?? null, changes.metadata ? JSON.stringify(changes.metadata) : null, now],
      );
      return rowCount ? getStore(orgId, id) : undefined;
    },

    async deleteStore(orgId, id) {
      const { rowCount } = await db.query('DELETE FROM knowledge_stores WHERE org_id = $1 AND id = $2', [orgId, id]);
      return (rowCount ?? 0) > 0;
    },

    async sourceAsset(orgId, id) {
      const { rows } = await db.query<{
        id: string;
        status: SourceAsset['status'];
        file_type: SourceAsset['fileType'];
        filename: string;
        blob_key: string | null;
      }>('SELECT id, status, file_type, filename, blob_key FROM assets WHERE org_id = $1 AND id = $2', [orgId, id]);
      const row = rows[0];
      return row && { id: row.id, status: row.status, fileType: row.file_type, filename: row.filename, blobKey: row.blob_key };
    },

    async insertItem(item) {
      const { rowCount } = await db.query(
        `INSERT INTO knowledge_store_items (id, org_id, knowledge_store_id, asset_id, asset_type, status, metadata, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (knowledge_store_id, asset_id) DO NOTHING`,
        [
          item.id,
          item.orgId,
          item.storeId,
          item.assetId,
          item.assetType,
          item.status,
          JSON.stringify(item.metadata),
          item.createdAt,
          item.updatedAt,
        ],
      );
      if (!rowCount) return 'duplicate';
      const stored = await getItem(item.orgId, item.storeId, item.id);
      if (!stored) throw new Error(`knowledge store item ${item.id} vanished after insert`);
      return stored;
    },

    getItem,

    async setIndex(orgId, storeId, indexId) {
      // One statement: a concurrent first item waits on the row and then keeps the index recorded first.
      const { rows } = await db.query<{ index_id: string }>(
        'UPDATE knowledge_stores SET index_id = coalesce(index_id, $3) WHERE org_id = $1 AND id = $2 RETURNING index_id',
        [orgId, storeId, indexId],
      );
      return rows[0]?.index_id;
    },

    async linkTask(itemId, taskId) {
      await db.query('UPDATE knowledge_store_items SET task_id = $2 WHERE id = $1', [itemId, taskId]);
    },

    async indexTaskIds(orgId, indexId) {
      const { rows } = await db.query<{ id: string }>('SELECT id FROM tasks WHERE org_id = $1 AND index_id = $2', [orgId, indexId]);
      return rows.map((r) => r.id);
    },

    async assetItemTaskIds(orgId, assetId) {
      const { rows } = await db.query<{ task_id: string }>(
        'SELECT task_id FROM knowledge_store_items WHERE org_id = $1 AND asset_id = $2 AND task_id IS NOT NULL',
        [orgId, assetId],
      );
      return rows.map((r) => r.task_id);
    },

    async absentIds(orgId, storeId, ids, collectionIds) {
      const absent = async (table: string, wanted: readonly string[]) => {
        if (wanted.length === 0) return [];
        const { rows } = await db.query<{ id: string }>(
          `SELECT u.id FROM unnest($3::text[]) WITH ORDINALITY AS u(id, n)
           WHERE NOT EXISTS (SELECT 1 FROM ${table} x WHERE x.org_id = $1 AND x.knowledge_store_id = $2 AND x.id = u.id)
           ORDER BY u.n`,
          [orgId, storeId, [...wanted]],
        );
        return rows.map((r) => r.id);
      };
      return {
        items: await absent('knowledge_store_items', ids),
        collections: await absent('knowledge_store_item_collections', collectionIds),
      };
    },

    async resolveItems(orgId, storeId, selection, limit) {
      const where = new Where().add((p) => `i.org_id = ${p}`, orgId).add((p) => `i.knowledge_store_id = ${p}`, storeId);
      if (selection.itemIds.length > 0 || selection.collectionIds.length > 0) {
        // The named items, and the members of the named collections (the collections are the store's: checked before).
        where.add(
          (items) => `(i.id = ANY(${items}::text[]) OR EXISTS (SELECT 1 FROM knowledge_store_item_collection_members m
             WHERE m.item_id = i.id AND m.collection_id = ANY(${where.param([...selection.collectionIds])}::text[])))`,
          [...selection.itemIds],
        );
      }
      if (selection.assetType) where.add((p) => `i.asset_type = ${p}`, selection.assetType);
      const { rows } = await db.query<ItemRow>(
        `${ITEM_SELECT} WHERE ${where.sql} ORDER BY i.created_at, i.id LIMIT ${where.param(limit)}`,
        where.params,
      );
      return rows.map(toItem);
    },

    async listItems(orgId, storeId, statuses, sort, limit, offset) {
      const where = new Where().add((p) => `i.org_id = ${p}`, orgId).add((p) => `i.knowledge_store_id = ${p}`, storeId);
      if (statuses.length > 0) where.add((p) => `${ITEM_STATUS} = ANY(${p}::text[])`, [...statuses]);
      const n = where.params.length;
      const { rows } = await db.query<ItemRow>(`${ITEM_SELECT} WHERE ${where.sql} ${orderBy(sort, 'i')} LIMIT $${n + 1} OFFSET $${n + 2}`, [
        ...where.params,
        limit,
        offset,
      ]);
      const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total ${ITEM_FROM} WHERE ${where.sql}`, where.params);
      return { rows: rows.map(toItem), total: count.rows[0]?.total ?? 0 };
    },

    async deleteItem(orgId, storeId, id) {
      const { rowCount } = await db.query('DELETE FROM knowledge_store_items WHERE org_id = $1 AND knowledge_store_id = $2 AND id = $3', [
        orgId,
        storeId,
        id,
      ]);
      return (rowCount ?? 0) > 0;
    },
  };
}
