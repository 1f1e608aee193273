/**
 * store.ts `nearest` through the HNSW index (PGlite has pgvector 0.8). An HNSW scan yields at most
 * hnsw.ef_search graph elements, 40 by default: the search bench at 10,000 videos got 162 of the
 * 200 candidates a search asks for. nearest raises ef_search to its limit and lets the scan go on
 * past it, so it answers as many neighbours as asked, in order, also within a few videos.
 */
import { newId } from '@vus/core';
import { createMemoryDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { searchService } from '../src/main';
import { createSegmentStore, type SegmentStore } from '../src/store';

const DIMENSIONS = 512;
const VECTORS = 400;

/** A distinct unit vector per `n`, the same every run. */
function vectorOf(n: number): number[] {
  const v = Array.from({ length: DIMENSIONS }, (_, d) => Math.sin((n + 1) * (d + 1) * 0.61));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe('nearest on the HNSW index', () => {
  let database: ThrowawayDatabase;
  let store: SegmentStore;
  const orgId = newId();
  const indexId = newId();
  const videoIds = [newId(), newId(), newId(), newId()];

  beforeAll(async () => {
    database = await createMemoryDatabase();
    await migrateService(database.db, searchService);
    store = createSegmentStore(database.db);
    for (const [v, videoId] of videoIds.entries()) {
      const segments = Array.from({ length: VECTORS / videoIds.length }, (_, i) => ({
        start: i,
        end: i + 1,
        modality: 'visual' as const,
        text: '',
        labels: [],
        labelNames: [],
        broaderTerms: [],
        tentative: { labels: [], names: [], broader: [] },
        thumbnailKey: '',
        vector: vectorOf(v * 1000 + i),
        vectorModel: 'clip',
      }));
      await store.replaceVideoSegments(orgId, indexId, videoId, segments);
    }
    // On 400 rows the planner would rather sort them all; on 150k it takes the index. PGlite is one
    // session (the pool's one connection), so these settings hold for the store's statements.
    await database.db.query('SET enable_seqscan = off');
    await database.db.query('SET enable_bitmapscan = off');
    await database.db.query('SET enable_sort = off');
  }, 60_000);

  afterAll(async () => {
    await database.drop();
  });

  const hnswScans = async (): Promise<number> => {
    // Index statistics reach the view when the session flushes them; ask for it now.
    await database.db.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await database.db.query<{ scans: string }>(
      `SELECT idx_scan::text AS scans FROM pg_stat_user_indexes WHERE indexrelname = 'segment_vectors_hnsw_512'`,
    );
    return Number(rows[0]?.scans ?? 0);
  };

  it('answers as many neighbours as asked, nearest first, the query vector itself first', async () => {
    const before = await hnswScans();
    const hits = await store.nearest({ orgId, indexId }, 'clip', vectorOf(2005), 150);
    expect(await hnswScans()).toBeGreaterThan(before);
    expect(hits).toHaveLength(150);
    expect(hits[0]).toMatchObject({ videoId: videoIds[2], start: 5 });
    expect(hits[0]!.similarity).toBeCloseTo(1, 5);
    const similarities = hits.map((h) => h.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
  });

  it('fills the limit within the videos asked for, which the index scan does not filter', async () => {
    const hits = await store.nearest({ orgId, indexId, videoIds: [videoIds[3]!] }, 'clip', vectorOf(1), 60);
    expect(hits).toHaveLength(60);
    expect(new Set(hits.map((h) => h.videoId))).toEqual(new Set([videoIds[3]]));
  });
});
