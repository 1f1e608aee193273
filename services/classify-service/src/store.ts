import type { Queryable } from '@vus/db';
import type { ClassifyStore, StoredPage } from './classify';

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
    async loadPage(orgId, id, page) {
      // The page is cut in SQL: a set of a whole index is a large document, and a page is small.
      const { rows } = await db.query<StoredPage['set'] & Pick<StoredPage, 'total' | 'items'> & Record<string, unknown>>(
        `SELECT id, org_id AS "orgId", page_limit AS "pageLimit", created_at AS "createdAt", expires_at AS "expiresAt",
                jsonb_array_length(items) AS total,
                COALESCE((SELECT jsonb_agg(item ORDER BY n) FROM jsonb_array_elements(items) WITH ORDINALITY AS e(item, n)
                          WHERE n > ($3::int - 1) * page_limit AND n <= $3::int * page_limit), '[]'::jsonb) AS items
           FROM result_sets WHERE org_id = $1 AND id = $2`,
        [orgId, id, page],
      );
      if (!rows[0]) return undefined;
      const { total, items, ...set } = rows[0];
      return { set, total, items };
    },
    async purgeResultSets(before) {
      const { rowCount } = await db.query('DELETE FROM result_sets WHERE expires_at < $1', [before]);
      return rowCount ?? 0;
    },
  };
}
