import type { Queryable } from '@vus/db';
import type { ClassifyStore, StoredClassification } from './classify';

/** Result sets in classify-service's own database, and the purge of old ones. */
export function createResultSetStore(db: Queryable): ClassifyStore & { purgeResultSets(before: Date): Promise<number> } {
  return {
    async saveResultSet(set) {
      await db.query(`INSERT INTO result_sets (id, org_id, page_limit, items, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
        set.id,
        set.orgId,
        set.pageLimit,
        JSON.stringify(set.items),
        set.createdAt,
        set.expiresAt,
      ]);
    },
    async loadResultSet(orgId, id) {
      const { rows } = await db.query<{ id: string; org_id: string; page_limit: number; items: StoredClassification['items']; created_at: Date; expires_at: Date }>(
        'SELECT * FROM result_sets WHERE org_id = $1 AND id = $2',
        [orgId, id],
      );
      const r = rows[0];
      return r && { id: r.id, orgId: r.org_id, pageLimit: r.page_limit, items: r.items, createdAt: new Date(r.created_at), expiresAt: new Date(r.expires_at) };
    },
    async purgeResultSets(before) {
      const { rowCount } = await db.query('DELETE FROM result_sets WHERE expires_at < $1', [before]);
      return rowCount ?? 0;
    },
  };
}
