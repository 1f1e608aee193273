import { ManualClock, newResultSetId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { createClassify, type ClassifiedVideo, type ClassifyDirectory } from '../src/classify';
import { classifyService } from '../src/main';
import { createResultSetStore } from '../src/store';

const items: ClassifiedVideo[] = [
  {
    videoId: 'v1',
    classes: [
      {
        name: 'Pets',
        score: 90,
        durationRatio: 0.5,
        detailedScores: { maxScore: 90, avgScore: 80, normalizedScore: 100 },
        clips: [{ videoId: 'v1', indexId: 'i1', start: 1, end: 2, score: 90, option: 'visual', prompt: 'cat', thumbnailKey: 't' }],
      },
    ],
  },
  { videoId: 'v2', classes: [{ name: 'Pets', score: 40, durationRatio: 0.1, detailedScores: undefined, clips: [] }] },
];

/** Result sets in SQL, on both kinds of database the service runs on (PGlite in embedded mode). */
describe.each(DATABASE_KINDS)('classify result sets on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, classifyService);
  });
  afterAll(() => database.drop());

  it('keeps a set as it was saved and reads it a page at a time, for its organization only', async () => {
    const store = createResultSetStore(database.db);
    const set = {
      id: newResultSetId(),
      orgId: 'org1',
      pageLimit: 1,
      items,
      createdAt: new Date('2026-01-10T12:00:00Z'),
      expiresAt: new Date('2026-01-10T13:00:00Z'),
    };
    await store.saveResultSet(set);
    const rest = { id: set.id, orgId: set.orgId, pageLimit: set.pageLimit, createdAt: set.createdAt, expiresAt: set.expiresAt };
    expect(await store.loadPage('org1', set.id, 1)).toEqual({ set: rest, total: 2, items: JSON.parse(JSON.stringify(items.slice(0, 1))) });
    expect(await store.loadPage('org1', set.id, 2)).toEqual({ set: rest, total: 2, items: JSON.parse(JSON.stringify(items.slice(1, 2))) });
    expect(await store.loadPage('org1', set.id, 3)).toEqual({ set: rest, total: 2, items: [] });
    expect(await store.loadPage('org2', set.id, 1)).toBeUndefined();
  });

  it('serves pages from the stored set, and purges sets expired before a time', async () => {
    const store = createResultSetStore(database.db);
    const clock = new ManualClock('2026-02-01T00:00:00Z');
    const directory: ClassifyDirectory = {
      videos: async (_org, ids) => ids.map((id) => ({ id, indexId: 'i1', duration: 10 })),
      indexVideos: async () => [],
      matchClips: async (_org, indexId, prompt, s) =>
        s.videoIds.map((videoId, i) => ({
          videoId,
          indexId,
          start: 0,
          end: 5,
          score: 90 - i * 10,
          option: 'visual' as const,
          prompt,
          thumbnailKey: '',
        })),
    };
    const classify = createClassify({ directory, store, clock, pageTtlMs: 60_000 });
    const params = {
      classes: [{ name: 'A', prompts: ['a'] }],
      options: ['visual' as const],
      conversationOption: 'semantic' as const,
      confidence: 'low' as const,
      thresholds: {},
      showDetailedScore: false,
      includeClips: false,
      pageLimit: 1,
    };
    const first = await classify.classify('org1', ['v1', 'v2'], params);
    const second = await classify.page('org1', first.pageInfo.nextPageToken);
    expect([first.data.map((v) => v.videoId), second.data.map((v) => v.videoId)]).toEqual([['v1'], ['v2']]);
    // The first test's set expired in January; this one at 00:01.
    expect(await store.purgeResultSets(new Date('2026-02-01T00:00:59Z'))).toBe(1);
    expect(await store.purgeResultSets(new Date('2026-02-01T00:02:00Z'))).toBe(1);
    expect(await classify.page('org1', first.pageInfo.nextPageToken).catch((e: { code: string }) => e.code)).toBe(
      'search_page_token_expired',
    );
  });
});
