import { isUniqueViolation, type Database, type Queryable } from '@vus/db';
import type { CollectionRecord, CollectionSort, KnowledgeCollectionStore } from './collections';
import type { StoreMetadata } from './knowledge-stores';

type CollectionRow = {
  id: string;
  org_id: string;
  knowledge_store_id: string;
  name: string;
  description: string;
  metadata: StoreMetadata;
  member_count: number;
  created_at: Date;
  updated_at: Date;
};

const NAME_CONSTRAINT = 'knowledge_store_item_collections_name';

const toCollection = (row: CollectionRow): CollectionRecord => ({
  id: row.id,
  orgId: row.org_id,
  storeId: row.knowledge_store_id,
  name: row.name,
  description: row.description,
  metadata: row.metadata,
  memberCount: row.member_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A collection with its number of members. */
const COLLECTION_SELECT = `SELECT c.*,
    (SELECT count(*)::int FROM knowledge_store_item_collection_members m WHERE m.collection_id = c.id) AS member_count
  FROM knowledge_store_item_collections c`;

/** ORDER BY for a list of collections: the column (checked by the type) and direction, ids breaking ties. */
const orderBy = (sort: CollectionSort) => {
  const direction = sort.order === 'asc' ? 'ASC' : 'DESC';
  return `ORDER BY c.${sort.by} ${direction}, c.id ${direction}`;
};

/** Locks the collection's row for the rest of the transaction; false if it is not the organization's in this store. */
async function lockCollection(tx: Queryable, orgId: string, storeId: string, id: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    'SELECT 1 FROM knowledge_store_item_collections WHERE org_id = $1 AND knowledge_store_id = $2 AND id = $3 FOR UPDATE',
    [orgId, storeId, id],
  );
  return (rowCount ?? 0) > 0;
}

/** Item collections and their memberships on SQL. */
export function createKnowledgeCollectionStore(db: Database): KnowledgeCollectionStore {
  const getCollection = async (orgId: string, storeId: string, id: string) => {
    const { rows } = await db.query<CollectionRow>(`${COLLECTION_SELECT} WHERE c.org_id = $1 AND c.knowledge_store_id = $2 AND c.id = $3`, [
      orgId,
      storeId,
      id,
    ]);
    return rows[0] && toCollection(rows[0]);
  };

  return {
    async storeExists(orgId, storeId) {
      const { rowCount } = await db.query('SELECT 1 FROM knowledge_stores WHERE org_id = $1 AND id = $2', [orgId, storeId]);
      return (rowCount ?? 0) > 0;
    },

    async insertCollection(c) {
      try {
        await db.query(
          `INSERT INTO knowledge_store_item_collections (id, org_id, knowledge_store_id, name, description, metadata, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [c.id, c.orgId, c.storeId, c.name, c.description, JSON.stringify(c.metadata), c.createdAt, c.updatedAt],
        );
      } catch (error) {
        if (isUniqueViolation(error, NAME_CONSTRAINT)) return 'name_taken';
        throw error;
      }
      return { ...c, memberCount: 0 };
    },

    getCollection,

    async listCollections(orgId, storeId, sort, limit, offset) {
      const { rows } = await db.query<CollectionRow>(
        `${COLLECTION_SELECT} WHERE c.org_id = $1 AND c.knowledge_store_id = $2 ${orderBy(sort)} LIMIT $3 OFFSET $4`,
        [orgId, storeId, limit, offset],
      );
      const count = await db.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM knowledge_store_item_collections WHERE org_id = $1 AND knowledge_store_id = $2',
        [orgId, storeId],
      );
      return { rows: rows.map(toCollection), total: count.rows[0]?.total ?? 0 };
    },

    async updateCollection(orgId, storeId, id, changes, now) {
      try {
        const { rowCount } = await db.query(
          `UPDATE knowledge_store_item_collections SET name = coalesce($4, name), description = coalesce($5, description),
             metadata = coalesce($6::jsonb, metadata), updated_at = $7
           WHERE org_id = $1 AND knowledge_store_id = $2 AND id = $3`,
          [
            orgId,
            storeId,
            id,
            changes.name ?? null,
            changes.description ?? null,
            changes.metadata ? JSON.stringify(changes.metadata) : null,
            now,
          ],
        );
        return rowCount ? getCollection(orgId, storeId, id) : undefined;
      } catch (error) {
        if (isUniqueViolation(error, NAME_CONSTRAINT)) return 'name_taken';
        throw error;
      }
    },

    async deleteCollection(orgId, storeId, id) {
      const { rowCount } = await db.query(
        'DELETE FROM knowledge_store_item_collections WHERE org_id = $1 AND knowledge_store_id = $2 AND id = $3',
        [orgId, storeId, id],
      );
      return (rowCount ?? 0) > 0;
    },

    async memberIds(orgId, storeId, id, limit, offset) {
      // The collection's own org and store are checked in the join, so a page never crosses them.
      const scope = `FROM knowledge_store_item_collection_members m
        JOIN knowledge_store_item_collections c ON c.id = m.collection_id
        WHERE c.org_id = $1 AND c.knowledge_store_id = $2 AND c.id = $3`;
      const { rows } = await db.query<{ item_id: string }>(`SELECT m.item_id ${scope} ORDER BY m.position LIMIT $4 OFFSET $5`, [
        orgId,
        storeId,
        id,
        limit,
        offset,
      ]);
      const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total ${scope}`, [orgId, storeId, id]);
      return { rows: rows.map((r) => r.item_id), total: count.rows[0]?.total ?? 0 };
    },

    addMembers(orgId, storeId, id, itemIds, now) {
      return db.withTx(async (tx) => {
        if (!(await lockCollection(tx, orgId, storeId, id))) return 'absent' as const;
        // The items are share-locked, as a foreign key would: none can be deleted before the insert.
        const { rows } = await tx.query<{ id: string }>(
          `SELECT id FROM knowledge_store_items WHERE org_id = $1 AND knowledge_store_id = $2 AND id = ANY($3::text[]) FOR KEY SHARE`,
          [orgId, storeId, [...itemIds]],
        );
        const items = new Set(rows.map((r) => r.id));
        const notItems = itemIds.filter((itemId) => !items.has(itemId));
        if (notItems.length > 0) return { notItems };
        const inserted = await tx.query(
          `INSERT INTO knowledge_store_item_collection_members (collection_id, item_id, added_at)
           SELECT $1, u.item_id, $3 FROM unnest($2::text[]) WITH ORDINALITY AS u(item_id, n) ORDER BY u.n
           ON CONFLICT (collection_id, item_id) DO NOTHING`,
          [id, [...itemIds], now],
        );
        if (inserted.rowCount) await tx.query('UPDATE knowledge_store_item_collections SET updated_at = $2 WHERE id = $1', [id, now]);
        return { notItems: [] };
      });
    },

    removeMembers(orgId, storeId, id, itemIds, now) {
      return db.withTx(async (tx) => {
        if (!(await lockCollection(tx, orgId, storeId, id))) return false;
        const removed = await tx.query(
          'DELETE FROM knowledge_store_item_collection_members WHERE collection_id = $1 AND item_id = ANY($2::text[])',
          [id, [...itemIds]],
        );
        if (removed.rowCount) await tx.query('UPDATE knowledge_store_item_collections SET updated_at = $2 WHERE id = $1', [id, now]);
        return true;
      });
    },
  };
}
