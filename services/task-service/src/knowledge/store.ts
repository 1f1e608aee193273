import { Where, type Database } from '@vus/db';
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
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toItem = (row: ItemRow): ItemRecord => ({
  id: row.id,
  orgId: row.org_id,
  storeId: row.knowledge_store_id,
  assetId: row.asset_id,
  assetType: row.asset_type,
  status: row.status,
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
/** An item with its asset's media. */
const ITEM_SELECT = `SELECT i.*, a.filename, a.duration, a.width, a.height, a.size, a.mime_type
  FROM knowledge_store_items i JOIN assets a ON a.id = i.asset_id`;

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
      const { rows } = await db.query<{ id: string; status: SourceAsset['status']; file_type: SourceAsset['fileType'] }>(
        'SELECT id, status, file_type FROM assets WHERE org_id = $1 AND id = $2',
        [orgId, id],
      );
      return rows[0] && { id: rows[0].id, status: rows[0].status, fileType: rows[0].file_type };
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

    async listItems(orgId, storeId, statuses, sort, limit, offset) {
      const where = new Where().add((p) => `i.org_id = ${p}`, orgId).add((p) => `i.knowledge_store_id = ${p}`, storeId);
      if (statuses.length > 0) where.add((p) => `i.status = ANY(${p}::text[])`, [...statuses]);
      const n = where.params.length;
      const { rows } = await db.query<ItemRow>(`${ITEM_SELECT} WHERE ${where.sql} ${orderBy(sort, 'i')} LIMIT $${n + 1} OFFSET $${n + 2}`, [
        ...where.params,
        limit,
        offset,
      ]);
      const count = await db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM knowledge_store_items i WHERE ${where.sql}`,
        where.params,
      );
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
