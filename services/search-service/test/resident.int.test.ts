/**
 * Resident indexes (src/resident/, issue 31) against the statements they stand in for: on both
 * engines, a corpus of segments ingested as the worker sends them, and many queries expanded as
 * search expands them; every lexical and exact-phrase answer of the in-process index must be the
 * database's, hit for hit and kind for kind. Then its catching up with writes made through
 * another replica, and its budget.
 */
import { createLogger, newId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { expandQuery, labelTerms, openWordNet } from '@vus/wordnet';
import type { SearchOption } from '../src/clips';
import { createIngest, type IncomingSegment } from '../src/ingest';
import { lexicalPlan, type TermGroup } from '../src/lexical';
import { searchService } from '../src/main';
import { ResidentIndex } from '../src/resident/resident-index';
import { toResidentSegment, withResidentIndexes, type ResidentOptions } from '../src/resident/resident-indexes';
import { ranksOf, residentPlan } from '../src/resident/resident-lexical';
import { parsePhraseQuery } from '../src/resident/tsvector';
import type { Scope, SegmentHit } from '../src/search-types';
import { createSegmentStore, type SegmentStore } from '../src/store';

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const wordnet = openWordNet();
afterAll(() => wordnet.close());

/** A seeded generator (mulberry32), so that every run builds the same corpus. */
function seeded(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const some = <T>(items: readonly T[], n: number): T[] => Array.from({ length: n }, () => pick(items));
  return { next, pick, some };
}

const LABELS = [
  'person',
  'car',
  'truck',
  'dog',
  'cat',
  'bicycle',
  'bus',
  'traffic light',
  'cell phone',
  'cup',
  'chair',
  'boat',
  'red',
  'blue',
];
const SPOKEN = [
  'the',
  'a',
  'of',
  'and',
  'to',
  'we',
  'drive',
  'driving',
  'car',
  'cars',
  'coffee',
  'cup',
  'dog',
  'dogs',
  'running',
  'ran',
  'boat',
  'sea',
  'phone',
  'call',
  'motor',
  'vehicle',
  'traffic',
  'light',
  'lights',
  'red',
  "o'neil",
  "don't",
  'e-mail',
  'café',
  'x2',
  '2024',
];
const SHOWN = ['SALE', 'Coffee Shop', 'EXIT', 'Bus Stop', 'Motor Show', 'open 24h', 'Café Roma', 'Traffic'];

function corpusVideo(random: ReturnType<typeof seeded>): IncomingSegment[] {
  const segments: IncomingSegment[] = [];
  for (let i = 0; i < 24; i++) {
    const start = i * 5;
    const base = {
      start,
      end: start + 5,
      labels: [] as string[],
      tentative_labels: [] as string[],
      vector: [],
      vector_model: '',
      thumbnail_key: `t/${i}.jpg`,
    };
    const kind = i % 4;
    if (kind === 0) {
      const labels = [...new Set(random.some(LABELS, 1 + Math.floor(random.next() * 3)))];
      segments.push({ ...base, modality: 'visual', text: '', labels, tentative_labels: labels.filter(() => random.next() < 0.3) });
    } else if (kind === 1) {
      segments.push({ ...base, modality: 'conversation', text: random.some(SPOKEN, 4 + Math.floor(random.next() * 8)).join(' ') });
    } else if (kind === 2) {
      segments.push({ ...base, modality: 'text_in_video', text: random.pick(SHOWN) });
    } else {
      segments.push({ ...base, modality: 'logo', text: random.pick(['Coca-Cola', 'Nike', 'Ford Motor', 'BBC']), labels: [] });
    }
  }
  return segments;
}

const QUERIES = [
  'car',
  'a red car',
  'vehicle',
  'motor vehicle',
  'dog running',
  'cup of coffee',
  'the',
  'traffic light',
  'cell phone call',
  'person',
  'animal',
  'boat on the sea',
  'coffee shop sale',
  'nike',
  'ford',
  "o'neil",
  'e-mail',
  'café',
  'x2',
  '2024',
  'blue truck',
  'unheard',
];
const ALL: SearchOption[] = ['visual', 'conversation', 'text_in_video', 'logo'];

/** The query's groups as search builds them, with a word-vector neighbour (related) added to the first. */
function groupsOf(query: string): TermGroup[] {
  const groups: TermGroup[] = expandQuery(query, wordnet);
  if (groups[0]) groups[0] = { ...groups[0], alternatives: [...groups[0].alternatives, { text: 'coffee', weight: 0.5, kind: 'related' }] };
  return groups;
}

/** Hits in a comparable order. */
const byId = <T extends SegmentHit>(hits: T[]) => [...hits].sort((a, b) => Number(a.id) - Number(b.id));

describe.each(DATABASE_KINDS)('resident indexes on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let sql: SegmentStore;
  const orgId = newId();
  const indexId = newId();
  const scope: Scope = { orgId, indexId };
  const videoIds = Array.from({ length: 30 }, () => newId());

  /** A resident store over the database, a promise of the test index being loaded, and loaded(indexId) for any. */
  function residentStore(options: Partial<ResidentOptions> = {}) {
    const waiting = new Map<string, () => void>();
    const done = new Set<string>();
    const loaded = (id: string) => (done.has(id) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(id, resolve)));
    const onLoaded = (_org: string, id: string) => (done.add(id), waiting.get(id)?.());
    const lexicalOnDatabase = jest.fn(sql.lexical);
    const store = withResidentIndexes({ ...sql, lexical: lexicalOnDatabase }, { maxSegments: 100_000, logger, onLoaded, ...options });
    return { store, ready: loaded(indexId), loaded, lexicalOnDatabase };
  }

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, searchService);
    sql = createSegmentStore(database.db);
    const ingest = createIngest({ store: sql, labelTerms: (label) => labelTerms(label, wordnet), logger });
    const random = seeded(7);
    for (const videoId of videoIds) await ingest.replace(orgId, indexId, videoId, corpusVideo(random));
  }, 60_000);
  afterAll(() => database.drop());

  it('answers every lexical query as the database does: the same hits with the same match kinds', async () => {
    const { store, ready, lexicalOnDatabase } = residentStore();
    const plan = lexicalPlan(groupsOf('car'))!;
    await store.lexical(scope, ALL, plan, 1000); // starts the load
    await ready;
    lexicalOnDatabase.mockClear();
    let compared = 0;
    for (const query of QUERIES) {
      const queryPlan = lexicalPlan(groupsOf(query));
      if (!queryPlan) continue;
      for (const modalities of [ALL, ['visual'], ['conversation', 'text_in_video']] as SearchOption[][]) {
        const [resident, expected] = await Promise.all([
          store.lexical(scope, modalities, queryPlan, 1000),
          sql.lexical(scope, modalities, queryPlan, 1000),
        ]);
        expect({ query, modalities, hits: byId(resident) }).toEqual({ query, modalities, hits: byId(expected) });
        compared += expected.length;
      }
    }
    expect(lexicalOnDatabase).not.toHaveBeenCalled();
    expect(compared).toBeGreaterThan(1000);
  });

  it('ranks as ts_rank does: the first tier keeps the same pool', async () => {
    const index = new ResidentIndex();
    index.replaceVideos(videoIds, (await sql.residentSegments(orgId, indexId, videoIds)).map(toResidentSegment));
    const queries = ['car', 'red car', 'motor vehicle', 'traffic light', 'coffee shop', 'dog running', 'the car', "o'neil"];
    let compared = 0;
    // One alternative of several words: ts_rank reads it as a phrase (calc_rank_and).
    const phrasePlans = ['traffic light', 'red car', 'motor the vehicle'].map((text) =>
      lexicalPlan([{ term: text, alternatives: [{ text, weight: 1 }] }])!,
    );
    for (const plan of [...queries.map((query) => lexicalPlan(groupsOf(query))!), ...phrasePlans]) {
      const query = plan.rankQuery;
      const forms = await sql.normalizedQueries(
        'lexical',
        plan.alternatives.map((a) => a.query),
      );
      const resident = residentPlan(
        plan,
        forms.map((form) => parsePhraseQuery(form)!),
      );
      for (const modality of ALL) {
        const shard = index.shard(modality)!;
        const { rows } = await database.db.query<{ id: string; rank: number }>(
          `SELECT id::text AS id, ts_rank(doc, to_tsquery('english', $3)) AS rank FROM segments
           WHERE org_id = $1 AND index_id = $2 AND modality = $4 AND doc @@ to_tsquery('english', $3) ORDER BY id`,
          [orgId, indexId, plan.rankQuery, modality],
        );
        const slots = rows.map((row) => shard.ids.indexOf(Number(row.id)));
        expect({ query, ranks: ranksOf(shard, resident, slots) }).toEqual({ query, ranks: rows.map((row) => Math.fround(row.rank)) });
        compared += rows.length;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('answers exact phrases as the database does, in video and time order', async () => {
    const { store, ready } = residentStore();
    await store.exactPhrase(scope, 'car', 500);
    await ready;
    for (const phrase of [
      'car',
      'the car',
      "o'neil",
      "don't",
      'e-mail',
      'café',
      'x2 2024',
      'drive  the',
      'Dogs!',
      '...',
      'not said at all',
    ]) {
      expect({ phrase, hits: await store.exactPhrase(scope, phrase, 500) }).toEqual({
        phrase,
        hits: await sql.exactPhrase(scope, phrase, 500),
      });
    }
    const someVideos = { ...scope, videoIds: videoIds.slice(0, 5) };
    expect(await store.exactPhrase(someVideos, 'the', 7)).toEqual(await sql.exactPhrase(someVideos, 'the', 7));
  });

  it('follows writes made through another replica: a video replaced, a video deleted, the index deleted', async () => {
    const { store, ready, loaded } = residentStore();
    const plan = lexicalPlan(expandQuery('zebra', wordnet))!;
    await store.lexical(scope, ALL, plan, 100);
    await ready;
    expect(await store.lexical(scope, ALL, plan, 100)).toEqual([]);
    // Writes through the other replica's store (the database's), not the resident one.
    const other = createIngest({ store: sql, labelTerms: (label) => labelTerms(label, wordnet), logger });
    const zebraVideo = newId();
    await other.replace(orgId, indexId, zebraVideo, [
      {
        start: 0,
        end: 5,
        modality: 'visual',
        text: '',
        labels: ['zebra'],
        tentative_labels: [],
        vector: [],
        vector_model: '',
        thumbnail_key: '',
      },
    ]);
    expect((await store.lexical(scope, ALL, plan, 100)).map((h) => h.videoId)).toEqual([zebraVideo]);
    await other.deleteVideo(orgId, indexId, zebraVideo);
    expect(await store.lexical(scope, ALL, plan, 100)).toEqual([]);
    const carPlan = lexicalPlan(groupsOf('car'))!;
    expect((await store.lexical(scope, ALL, carPlan, 100)).length).toBeGreaterThan(0);
    const otherIndex = newId();
    await other.replace(orgId, otherIndex, zebraVideo, corpusVideo(seeded(3)));
    const otherScope = { orgId, indexId: otherIndex };
    await store.lexical(otherScope, ALL, carPlan, 100);
    await loaded(otherIndex);
    expect((await store.lexical(otherScope, ALL, carPlan, 100)).length).toBeGreaterThan(0);
    await other.deleteIndex(orgId, otherIndex);
    expect(await store.lexical(otherScope, ALL, carPlan, 100)).toEqual([]);
  });

  it('gives up an index that grows past its budget, and searches it on the database', async () => {
    const count = await sql.segmentCount(orgId, indexId);
    const { store, ready, lexicalOnDatabase } = residentStore({ maxSegments: count + 5 });
    const plan = lexicalPlan(groupsOf('car'))!;
    await store.lexical(scope, ALL, plan, 1000);
    await ready;
    lexicalOnDatabase.mockClear();
    await store.lexical(scope, ALL, plan, 1000);
    expect(lexicalOnDatabase).not.toHaveBeenCalled();
    const grown = newId();
    await createIngest({ store: sql, labelTerms: (label) => labelTerms(label, wordnet), logger }).replace(
      orgId,
      indexId,
      grown,
      corpusVideo(seeded(11)),
    );
    try {
      expect(byId(await store.lexical(scope, ALL, plan, 1000))).toEqual(byId(await sql.lexical(scope, ALL, plan, 1000)));
      expect(lexicalOnDatabase).toHaveBeenCalledTimes(1);
    } finally {
      await sql.deleteVideo(orgId, indexId, grown);
    }
  });

  it('searches an index larger than its budget on the database', async () => {
    const { store, lexicalOnDatabase } = residentStore({ maxSegments: 100, onLoaded: undefined });
    const plan = lexicalPlan(groupsOf('car'))!;
    const expected = byId(await sql.lexical(scope, ALL, plan, 1000));
    for (let i = 0; i < 3; i++) expect(byId(await store.lexical(scope, ALL, plan, 1000))).toEqual(expected);
    expect(lexicalOnDatabase).toHaveBeenCalledTimes(3);
  });
});
