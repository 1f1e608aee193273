import type { Queryable } from '@vus/db';
import type { ClassifiedVideo, ClassifyStore } from './classify';

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
      const { rows } = await db.query<{
        id: string;
        org_id: string;
        page_limit: number;
        total: number;
        items: ClassifiedVideo[];
        created_at: Date;
        expires_at: Date;
      }>(
        `SELECT id, org_id, page_limit, created_at, expires_at, jsonb_array_length(items) AS total,
                COALESCE((SELECT jsonb_agg(item ORDER BY n) FROM jsonb_array_elements(items) WITH ORDINALITY AS e(item, n)
                          WHERE n > ($3::int - 1) * page_limit AND n <= $3::int * page_limit), '[]'::jsonb) AS items
           FROM result_sets WHERE org_id = $1 AND id = $2`,
        [orgId, id, page],
      );
      const r = rows[0];
      return (
        r && {
          set: { id: r.id, orgId: r.org_id, pageLimit: r.page_limit, createdAt: new Date(r.created_at), expiresAt: new Date(r.expires_at) },
          total: Number(r.total),
          items: r.items,
        }
      );
    },
    async purgeResultSets(before) {
      const { rowCount } = await db.query('DELETE FROM result_sets WHERE expires_at < $1', [before]);
      return rowCount ?? 0;
    },
  };
}
