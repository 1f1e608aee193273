import type { Database } from '@vus/db';
import { promisify } from 'node:util';
import { brotliCompressSync, brotliDecompress, gunzip, constants as zlibConstants } from 'node:zlib';
import { Packr } from 'msgpackr';
import type { SearchStore, StoredResultSet } from './search-types';

/** The result sets' store: a search's results kept for paging, and their purge after expiry. */
export interface ResultSetStore extends Pick<SearchStore, 'saveResultSet' | 'loadResultSet'> {
  /** Drops sets that expired before `before` (kept a while after expiry to answer "expired", not "unknown"). */
  purgeResultSets(before: Date): Promise<number>;
}

const unbrotliAsync = promisify(brotliDecompress);
const gunzipAsync = promisify(gunzip);

/**
 * Result-set items as stored: MessagePack with records (msgpackr: a clip's keys are written once
 * per set, not once per clip) compressed with brotli at quality 1, behind a format byte. Every
 * search with a second page pays this, so it is the cheapest that still compresses. Issue 31, a
 * set of 400 clips: JSON and brotli 2.5 CPU-ms, MessagePack records and brotli 2.0, the same size
 * (17 kB), and the encoding goes into one reused buffer instead of a 200 kB string and its copy per
 * set. Brotli 1 in this thread beat gzip 1 through zlib's thread pool before that (0.26 against 0.8
 * CPU-ms on 200 clips, most of it the hops to the pool and back).
 */
const FORMAT = { brotliJson: 0x02, brotliMessagePack: 0x03 } as const;
const records = new Packr({ useRecords: true });

export function packItems(items: readonly unknown[]): Buffer {
  // pack() answers a view of the packer's own buffer, valid until its next call: compressed at once.
  const encoded = records.pack(items);
  const compressed = brotliCompressSync(encoded, {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: encoded.length },
  });
  return Buffer.concat([Buffer.of(FORMAT.brotliMessagePack), compressed]);
}

/** Reads the forms sets were written in: MessagePack or JSON in brotli behind a format byte, and JSON in gzip (which starts with 1f 8b). */
export async function unpackItems(packed: Buffer): Promise<unknown[]> {
  if (packed[0] === FORMAT.brotliMessagePack) return records.unpack(await unbrotliAsync(packed.subarray(1))) as unknown[];
  const json = packed[0] === FORMAT.brotliJson ? await unbrotliAsync(packed.subarray(1)) : await gunzipAsync(packed);
  return JSON.parse(json.toString('utf8')) as unknown[];
}

/** The most sets one INSERT writes (11 parameters each). */
export const MAX_SETS_PER_INSERT = 64;

/**
 * Group commit: `write` is called with one item at a time while nothing is being written, and
 * with everything that arrived meanwhile (up to `maxBatch`) once the write before ends. Under load
 * a busy search-service then writes its result sets in a few statements instead of one each (each
 * statement's round trip cost the process as much CPU as the set's compression); alone, a set is
 * written at once. Each caller's promise settles with its own batch.
 */
export function groupCommit<T>(write: (batch: T[]) => Promise<void>, maxBatch: number): (item: T) => Promise<void> {
  const waiting: { item: T; settle: (error?: Error) => void }[] = [];
  let writing = false;
  async function drain(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      // Through a promise: a write that throws fails its batch, not the writer.
      const outcome = await Promise.resolve(batch.map((w) => w.item))
        .then(write)
        .then(
          () => undefined,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        );
      for (const w of batch) w.settle(outcome);
    }
    writing = false;
  }
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!writing) void drain();
    });
}

const RESULT_SET_COLUMNS = 11;

export function createResultSetStore(db: Database): ResultSetStore {
  const save = groupCommit<StoredResultSet>(async (sets) => {
    const rows = sets.map((set) => [
      set.id,
      set.orgId,
      set.indexId,
      set.groupBy,
      set.pageLimit,
      packItems(set.items),
      set.totalResults,
      set.totalInnerMatches,
      JSON.stringify(set.searchPool),
      set.createdAt,
      set.expiresAt,
    ]);
    const values = rows.map(
      (_, r) => `(${Array.from({ length: RESULT_SET_COLUMNS }, (_, c) => `$${r * RESULT_SET_COLUMNS + c + 1}`).join(', ')})`,
    );
    await db.query(
      `INSERT INTO result_sets (id, org_id, index_id, group_by, page_limit, items, total_results, total_inner_matches, search_pool, created_at, expires_at)
       VALUES ${values.join(', ')}`,
      rows.flat(),
    );
  }, MAX_SETS_PER_INSERT);

  return {
    saveResultSet: save,

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
