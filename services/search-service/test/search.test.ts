import { ApiError, createLogger, ManualClock } from '@vus/core';
import type { SearchOption } from '../src/clips';
import { createIngest, type NewSegment, type SegmentWriter } from '../src/ingest';
import { queryWords, type TermGroup } from '../src/lexical';
import { neighboursWaitMs, NEIGHBOURS_READY_WAIT_MS } from '../src/query-groups';
import { createSearch } from '../src/search';
import type { IndexDirectory, IndexInfo, SearchParams, SearchStore, StoredResultSet } from '../src/search-types';

describe('neighboursWaitMs', () => {
  const now = 1_000_000;
  it.each([
    ['no deadline: the whole wait', undefined, NEIGHBOURS_READY_WAIT_MS],
    ['a far deadline: the whole wait', now + 60_000, NEIGHBOURS_READY_WAIT_MS],
    ['the gateway’s 30 s: 15 s, 15 s left for the search', now + 30_000, 15_000],
    ["a gRPC client's 10 s default: half of it, the other half the search's", now + 10_000, 5_000],
    ['a deadline passed: no wait', now - 5_000, 0],
  ])('%s', (_name, deadline, expected) => {
    expect(neighboursWaitMs(now, deadline === undefined ? undefined : new Date(deadline))).toBe(expected);
  });
});

/** Search's domain on a memory store, as store.ts is on SQL (the SQL itself: search.int.test.ts). */
interface StoredSegment {
  id: string;
  orgId: string;
  indexId: string;
  videoId: string;
  segment: NewSegment;
}

/** A memory store: a segment matches an alternative when it holds all of the alternative's words. */
function memoryStore() {
  const segments: StoredSegment[] = [];
  const sets = new Map<string, StoredResultSet>();
  const reads: string[] = [];
  const inScope = (s: StoredSegment, scope: { orgId: string; indexId: string; videoIds?: readonly string[] | undefined }) =>
    s.orgId === scope.orgId && s.indexId === scope.indexId && (!scope.videoIds || scope.videoIds.includes(s.videoId));
  const hit = (s: StoredSegment) => ({
    id: s.id,
    videoId: s.videoId,
    modality: s.segment.modality,
    start: s.segment.start,
    end: s.segment.end,
    text: s.segment.text,
    thumbnailKey: s.segment.thumbnailKey,
  });
  const store: SearchStore & SegmentWriter = {
    async lexical(scope, modalities, plan, limit) {
      reads.push('lexical');
      return segments
        .filter((s) => inScope(s, scope) && modalities.includes(s.segment.modality))
        .map((s) => {
          const own = new Set(queryWords([s.segment.text, ...s.segment.labels, ...s.segment.labelNames].join(' ')));
          const kinds = plan.alternatives.map((a) => (a.query.split(' <-> ').every((w) => own.has(w)) ? 'd' : '-')).join('');
          return { ...hit(s), kinds };
        })
        .filter((h) => h.kinds.includes('d'))
        .filter((h, i, all) => all.slice(0, i).filter((other) => other.modality === h.modality).length < limit);
    },
    exactPhrase: async (scope, phrase, limit) =>
      segments
        .filter((s) => inScope(s, scope) && s.segment.modality === 'conversation' && s.segment.text.includes(phrase))
        .slice(0, limit)
        .map(hit),
    vectorsEnabled: async () => false,
    nearest: async () => [],
    vocabulary: async () => [],
    saveResultSet: async (set) => void sets.set(set.id, set),
    loadResultSet: async (orgId, id) => (sets.get(id)?.orgId === orgId ? sets.get(id) : undefined),
    async replaceVideoSegments(orgId, indexId, videoId, rows) {
      await store.deleteVideo(orgId, indexId, videoId);
      rows.forEach((segment, i) => segments.push({ id: `${videoId}-${i}`, orgId, indexId, videoId, segment }));
    },
    async deleteVideo(orgId, indexId, videoId) {
      const before = segments.length;
      segments.splice(
        0,
        segments.length,
        ...segments.filter((s) => !(s.orgId === orgId && s.indexId === indexId && s.videoId === videoId)),
      );
      return before - segments.length;
    },
    async deleteIndex(orgId, indexId) {
      const before = segments.length;
      segments.splice(0, segments.length, ...segments.filter((s) => !(s.orgId === orgId && s.indexId === indexId)));
      return before - segments.length;
    },
  };
  return { store, segments, reads };
}

const ORG = 'org1';
const INDEX: IndexInfo = { id: 'idx1', searchOptions: ['visual', 'conversation'], videoCount: 2, totalDuration: 120 };

function directory(indexes: IndexInfo[], videoIds: string[] = []): IndexDirectory {
  return {
    async getIndex(orgId, indexId) {
      const index = indexes.find((i) => i.id === indexId);
      if (orgId !== ORG || !index) throw new ApiError('resource_not_exist', `The index ${indexId} does not exist.`);
      return index;
    },
    videoIdsMatching: async () => videoIds,
    userMetadata: async () => new Map(),
  };
}

/** Every query word stands for itself only (no WordNet). */
const literal = (text: string): TermGroup[] => queryWords(text).map((term) => ({ term, alternatives: [{ text: term, weight: 1 }] }));

const params = (overrides: Partial<SearchParams> = {}): SearchParams => ({
  options: ['visual', 'conversation'],
  conversationOption: 'semantic',
  operator: 'or',
  threshold: 'none',
  adjustConfidenceLevel: 0.5,
  groupBy: 'clip',
  sortOption: 'score',
  pageLimit: 10,
  ...overrides,
});

const segment = (modality: SearchOption, start: number, text: string, labels: string[] = []): NewSegment => ({
  start,
  end: start + 5,
  modality,
  text,
  labels,
  labelNames: [],
  broaderTerms: [],
  tentative: { labels: [], names: [], broader: [] },
  thumbnailKey: `t${start}`,
});

describe('search (domain, on a memory store)', () => {
  let memory: ReturnType<typeof memoryStore>;
  let clock: ManualClock;
  const logger = createLogger({ service: 'search-test', level: 'silent' });
  const search = (indexes = directory([INDEX, { ...INDEX, id: 'pegasus-only', searchOptions: [] }])) =>
    createSearch({
      store: memory.store,
      indexes,
      expand: literal,
      models: { embed: async () => undefined, imageLabels: async () => undefined },
      clock,
      logger,
      pageTtlMs: 60_000,
    });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'no error',
      (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
    );

  beforeEach(async () => {
    memory = memoryStore();
    clock = new ManualClock('2026-01-10T12:00:00Z');
    const ingest = createIngest({
      store: memory.store,
      labelTerms: (label) => ({ names: label === 'car' ? ['automobile'] : [], broader: [] }),
      logger,
    });
    await ingest.replace(ORG, 'idx1', 'v1', [
      {
        start: 0,
        end: 5,
        modality: 'conversation',
        text: 'a red car drives by',
        labels: [],
        tentative_labels: [],
        vector: [],
        vector_model: '',
        thumbnail_key: 't0',
      },
      {
        start: 10,
        end: 15,
        modality: 'visual',
        text: '',
        labels: ['car'],
        tentative_labels: [],
        vector: [],
        vector_model: '',
        thumbnail_key: 't10',
      },
    ]);
    await memory.store.replaceVideoSegments(ORG, 'idx1', 'v2', [segment('conversation', 0, 'nothing to see')]);
  });

  it('waits for the semantic neighbours to load before the first query expands with them', async () => {
    // The word vectors load on the first query; answered before, "vehicle" would miss the car line.
    let loaded = false;
    const semantic = createSearch({
      store: memory.store,
      indexes: directory([INDEX]),
      expand: literal,
      neighbours: (word) => (loaded && word === 'vehicle' ? [{ word: 'car', similarity: 0.6 }] : []),
      neighboursReady: () => new Promise<void>((resolve) => setTimeout(() => resolve(void (loaded = true)), 20)),
      models: { embed: async () => undefined, imageLabels: async () => undefined },
      clock,
      logger,
      pageTtlMs: 60_000,
    });
    const page = await semantic.search(ORG, 'idx1', { text: 'vehicle' }, params({ options: ['conversation'] }), false);
    expect(page.clips.map((c) => [c.videoId, c.start])).toEqual([['v1', 0]]);
  });

  it('asks embed-service for a query vector only where vectors are stored', async () => {
    const asked: string[] = [];
    const withModels = (vectors: boolean) =>
      createSearch({
        store: { ...memory.store, vectorsEnabled: async () => vectors },
        indexes: directory([INDEX]),
        expand: literal,
        models: {
          embed: async (_orgId, input) => void asked.push(`${vectors} ${'text' in input ? input.text : ''}`),
          imageLabels: async () => undefined,
        },
        clock,
        logger,
        pageTtlMs: 60_000,
      });
    await withModels(false).search(ORG, 'idx1', { text: 'car' }, params(), false);
    await withModels(true).search(ORG, 'idx1', { text: 'car' }, params(), false);
    expect(asked).toEqual(['true car']);
  });

  it('ingests labels with their other names, so that a query for one finds the other', async () => {
    const page = await search().search(ORG, 'idx1', { text: 'automobile' }, params(), false);
    expect(page.clips.map((c) => [c.videoId, c.start, c.modules.map((m) => m.option)])).toEqual([['v1', 10, ['visual']]]);
  });

  it('answers through every requested option, ranks, and keeps the result set for later pages', async () => {
    const first = await search().search(ORG, 'idx1', { text: 'car' }, params({ pageLimit: 1 }), false);
    expect([first.clips.length, first.pageInfo.totalResults, first.searchPool]).toEqual([
      1,
      2,
      { totalCount: 2, totalDuration: 120, indexId: 'idx1' },
    ]);
    const second = await search().page(ORG, first.pageInfo.nextPageToken, false);
    expect(second.clips.map((c) => c.rank)).toEqual([2]);
    expect([...first.clips, ...second.clips].map((c) => c.start).sort()).toEqual([0, 10]);
  });

  it('stores a result set only when it has a later page, and serves its pages before its row is written', async () => {
    const saved: string[] = [];
    let write: () => void = () => undefined;
    const save = memory.store.saveResultSet;
    memory.store.saveResultSet = (set) => (
      saved.push(set.id),
      new Promise<void>((resolve) => (write = () => void save(set).then(resolve)))
    );
    const searching = search();
    const single = await searching.search(ORG, 'idx1', { text: 'car' }, params({ pageLimit: 10 }), false);
    expect([single.clips.length, single.pageInfo.nextPageToken, saved]).toEqual([2, '', []]);
    const first = await searching.search(ORG, 'idx1', { text: 'car' }, params({ pageLimit: 1 }), false);
    expect(saved).toHaveLength(1);
    // Not written yet: the same process serves the page; another organization still cannot read it.
    expect((await searching.page(ORG, first.pageInfo.nextPageToken, false)).clips.map((c) => c.rank)).toEqual([2]);
    expect(await codeOf(searching.page('org2', first.pageInfo.nextPageToken, false))).toBe('search_page_token_expired');
    write();
    await new Promise((resolve) => setImmediate(resolve));
    // Written: any process (here another instance, with nothing in memory) reads it from the store.
    expect((await search().page(ORG, first.pageInfo.nextPageToken, false)).clips.map((c) => c.rank)).toEqual([2]);
  });

  it.each([
    // No word-vector neighbour: the labels' groups are the query's, so both options are one read.
    ['no neighbour: visual and conversation share one read', () => [], 1],
    // A neighbour serves speech, not labels: the labels read their own groups.
    ['a neighbour: the labels read their own groups', (word: string) => (word === 'car' ? [{ word: 'drives', similarity: 0.6 }] : []), 2],
  ])('%s', async (_name, neighbours, expectedReads) => {
    const semantic = createSearch({
      store: memory.store,
      indexes: directory([INDEX]),
      expand: literal,
      neighbours,
      models: { embed: async () => undefined, imageLabels: async () => undefined },
      clock,
      logger,
      pageTtlMs: 60_000,
    });
    const page = await semantic.search(ORG, 'idx1', { text: 'car' }, params(), false);
    expect(page.clips.map((c) => [c.videoId, c.start]).sort()).toEqual([
      ['v1', 0],
      ['v1', 10],
    ]);
    expect(memory.reads).toEqual(Array(expectedReads).fill('lexical'));
  });

  it('reads nothing when the filter leaves no video', async () => {
    const page = await search(directory([INDEX], [])).search(ORG, 'idx1', { text: 'car' }, params({ filter: { filename: 'none' } }), false);
    expect([page.clips, memory.reads]).toEqual([[], []]);
  });

  it.each([
    ['an index without a search model', 'pegasus-only', params(), 'index_not_supported_for_search'],
    ['an option the index was not built with', 'idx1', params({ options: ['logo'] }), 'search_option_not_supported'],
    ['an unknown index', 'nope', params(), 'resource_not_exist'],
  ])('refuses %s', async (_name, indexId, searchParams, code) => {
    expect(await codeOf(search().search(ORG, indexId, { text: 'car' }, searchParams, false))).toBe(code);
  });

  it.each([
    ['an expired', async (token: string) => (clock.advance(60_001), search().page(ORG, token, false))],
    ["another organization's", async (token: string) => search().page('org2', token, false)],
    ['a malformed', async () => search().page(ORG, 'not-a-token', false)],
  ])('reads %s page token as expired', async (_name, page) => {
    const first = await search().search(ORG, 'idx1', { text: 'car' }, params({ pageLimit: 1 }), false);
    expect(await codeOf(page(first.pageInfo.nextPageToken))).toBe('search_page_token_expired');
  });

  it('matches clips only in the given videos, unpaged and unstored (a classification prompt)', async () => {
    await memory.store.replaceVideoSegments(ORG, 'idx1', 'v3', [segment('conversation', 20, 'my car')]);
    const match = (videoIds: string[]) =>
      search(directory([INDEX], videoIds)).matchClips(ORG, 'idx1', 'car', {
        options: ['visual', 'conversation'],
        conversationOption: 'semantic',
        threshold: 'none',
        videoIds,
      });
    expect((await match(['v3'])).map((c) => [c.videoId, c.start])).toEqual([['v3', 20]]);
    expect((await match([])).map((c) => c.videoId).sort()).toEqual(['v1', 'v1', 'v3']);
  });

  it('groups the same clips the ungrouped search returns, with the same threshold and paging, on every fixture query', async () => {
    // The fixtures' content (@vus/testing: words-and-subtitles, objects, and the quality bench's
    // topics), as the worker segments it: one-second visual scenes, on-screen words, speech lines.
    const scenes = (labels: string[][], seconds: number) =>
      labels.flatMap((l, i) =>
        Array.from({ length: seconds }, (_, k) => ({ ...segment('visual', i * seconds + k, '', l), end: i * seconds + k + 1 })),
      );
    const lines = (texts: string[], modality: SearchOption, seconds: number) =>
      texts.map((text, i) => ({ ...segment(modality, i * seconds + 0.5, text), end: i * seconds + seconds - 0.5 }));
    await memory.store.replaceVideoSegments(ORG, 'idx1', 'words', [
      ...lines(['ORANGE', 'PLANET', 'BICYCLE'], 'text_in_video', 4),
      ...lines(
        [
          'The quick brown fox jumps over the lazy dog.',
          'Welcome to the video understanding service.',
          'Every sentence has a start and an end.',
        ],
        'conversation',
        3,
      ),
    ]);
    await memory.store.replaceVideoSegments(ORG, 'idx1', 'objects', scenes([['person'], [], ['cat'], ['cell phone']], 3));
    await memory.store.replaceVideoSegments(ORG, 'idx1', 'topics', [
      ...scenes([['person'], ['person'], [], ['person'], ['person']], 6),
      ...lines(
        [
          'the cooking show grills fresh sardines',
          'the rocket lifted off',
          'an astronaut waved',
          'runners at the city marathon',
          'the council voted',
        ],
        'conversation',
        6,
      ),
    ]);
    const queries = [
      'orange',
      'quick brown fox',
      'person',
      'cat',
      'cell phone',
      'man',
      'cooking show sardines marathon launch',
      'person talking',
      'car',
    ];
    const walk = async (first: Awaited<ReturnType<ReturnType<typeof search>['search']>>) => {
      const pages = [first];
      while (pages.at(-1)!.pageInfo.nextPageToken) pages.push(await search().page(ORG, pages.at(-1)!.pageInfo.nextPageToken, false));
      return pages;
    };
    for (const query of queries) {
      for (const threshold of ['low', 'none'] as const) {
        const flat = await walk(await search().search(ORG, 'idx1', { text: query }, params({ threshold, pageLimit: 2 }), false));
        const grouped = await walk(
          await search().search(ORG, 'idx1', { text: query }, params({ threshold, pageLimit: 2, groupBy: 'video' }), false),
        );
        const clips = flat.flatMap((p) => p.clips);
        const groupedClips = grouped.flatMap((p) => p.videos.flatMap((v) => v.clips));
        expect({ query, threshold, clips: [...groupedClips].sort((a, b) => a.rank - b.rank) }).toEqual({ query, threshold, clips });
        expect(grouped[0]!.pageInfo.totalInnerMatches).toBe(flat[0]!.pageInfo.totalResults);
        expect(grouped[0]!.pageInfo.totalResults).toBe(new Set(clips.map((c) => c.videoId)).size);
      }
    }
  });

  it('ingests the labels seen only tentatively apart, with their own names and broader terms', async () => {
    const terms: Record<string, { names: string[]; broader: string[] }> = {
      cat: { names: ['true cat'], broader: ['feline', 'animal'] },
      horse: { names: ['equus caballus'], broader: ['equine', 'animal'] },
    };
    const written: NewSegment[] = [];
    const writer: SegmentWriter = {
      replaceVideoSegments: async (_org, _index, _video, rows) => void written.push(...rows),
      deleteVideo: async () => 0,
      deleteIndex: async () => 0,
    };
    const ingest = createIngest({ store: writer, labelTerms: (label) => terms[label] ?? { names: [], broader: [] }, logger });
    await ingest.replace(ORG, 'idx1', 'farm', [
      {
        ...segment('visual', 0, ''),
        labels: ['horse', 'cat'],
        tentative_labels: ['cat', 'dog'],
        vector: [],
        vector_model: '',
        thumbnail_key: '',
      },
    ]);
    expect(written[0]).toMatchObject({
      labels: ['horse', 'cat'],
      labelNames: ['equus caballus'],
      broaderTerms: ['equine', 'animal'],
      // 'dog' is not among the labels: nothing was seen to be tentative about.
      tentative: { labels: ['cat'], names: ['true cat'], broader: ['feline', 'animal'] },
    });
  });

  it('starts preparing the search on an ingest of words said or shown, not of visual scenes alone', async () => {
    let prepared = 0;
    const ingest = createIngest({
      store: memory.store,
      labelTerms: () => ({ names: [], broader: [] }),
      prepareSearch: () => void prepared++,
      logger,
    });
    const incoming = (modality: SearchOption) => ({
      ...segment(modality, 0, ''),
      tentative_labels: [],
      vector: [],
      vector_model: '',
      thumbnail_key: '',
    });
    await ingest.replace(ORG, 'idx1', 'v3', [incoming('visual'), incoming('visual')]);
    expect(prepared).toBe(0);
    await ingest.replace(ORG, 'idx1', 'v3', [incoming('visual'), incoming('conversation')]);
    expect(prepared).toBe(1);
  });

  it('deletes a video’s and an index’s segments', async () => {
    expect(
      await createIngest({ store: memory.store, labelTerms: () => ({ names: [], broader: [] }), logger }).deleteVideo(ORG, 'idx1', 'v2'),
    ).toBe(1);
    expect(await memory.store.deleteIndex(ORG, 'idx1')).toBe(2);
    expect(memory.segments).toEqual([]);
  });
});
