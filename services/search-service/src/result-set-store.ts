import type { Database } from '@vus/db';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { SearchStore, StoredResultSet } from './search-types';

/** The result sets' store: a search's results kept for paging, and their purge after expiry. */
export interface ResultSetStore extends Pick<SearchStore, 'saveResultSet' | 'loadResultSet'> {
  /** Drops sets that expired before `before` (kept a while after expiry to answer "expired", not "unknown"). */
  purgeResultSets(before: Date): Promise<number>;
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Result-set items as stored: gzip'd JSON, compressed off the event loop (zlib's thread pool). */
async function packItems(items: readonly unknown[]): Promise<Buffer> {
  return gzipAsync(Buffer.from(JSON.stringify(items)), { level: 1 });
}

async function unpackItems(packed: Buffer): Promise<unknown[]> {
  return JSON.parse((await gunzipAsync(packed)).toString('utf8')) as unknown[];
}

export function createResultSetStore(db: Database): ResultSetStore {
  return {
    async saveResultSet(set: StoredResultSet): Promise<void> {
      await db.query(
        `INSERT INTO result_sets (id, org_id, index_id, group_by, page_limit, items, total_results, total_inner_matches, search_pool, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          set.id,
          set.orgId,
          set.indexId,
          set.groupBy,
          set.pageLimit,
          await packItems(set.items),
          set.totalResults,
          set.totalInnerMatches,
          JSON.stringify(set.searchPool),
          set.createdAt,
          set.expiresAt,
        ],
      );
    },

    /** The organization's result set, expired or not (the caller tells the two apart). */
    async loadResultSet(orgId: string, id: string): Promise<StoredResultSet | undefined> {
      const { rows } = await db.query<{
        id: string;
        org_id: string;
        index_id: string;
        group_by: 'clip' | 'video';
        page_limit: number;
        items: Buffer;
        total_results: number;
        total_inner_matches: number;
        search_pool: unknown;
        created_at: Date;
        expires_at: Date;
      }>(`SELECT * FROM result_sets WHERE org_id = $1 AND id = $2`, [orgId, id]);
      const row = rows[0];
      if (!row) return undefined;
      return {
        id: row.id,
        orgId: row.org_id,
        indexId: row.index_id,
        groupBy: row.group_by,
        pageLimit: row.page_limit,
        items: await unpackItems(row.items),
        totalResults: row.total_results,
        totalInnerMatches: row.total_inner_matches,
        searchPool: row.search_pool,
        createdAt: new Date(row.created_at),
        expiresAt: new Date(row.expires_at),
      };
    },

    /** Drops sets that expired before `before` (kept a while after expiry to answer "expired", not "unknown"). */
    async purgeResultSets(before: Date): Promise<number> {
      const result = await db.query('DELETE FROM result_sets WHERE expires_at < $1', [before]);
      return result.rowCount ?? 0;
    },
  };
}
