/**
 * search-service over gRPC with index-service beside it: segments go in through IngestSegments
 * (as the indexing worker writes them) and come back through Search, GetSearchPage and the
 * deletion paths. Lexical search runs on both PostgreSQL (no pgvector here) and PGlite; vector
 * search on PGlite with pgvector, its query vectors from embed-service (the model server) serving a
 * stand-in visual model.
 */
import { createIndexClient, createSearchClient, type IndexClient, type SearchClient } from '@vus/clients';
import { createLogger, ManualClock, newId } from '@vus/core';
import { type DatabaseTarget } from '@vus/db';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { buildEvent, InProcessEventBus } from '@vus/events';
import type { OutgoingContext } from '@vus/grpc';
import type { Segment__Input } from '@vus/grpc/types/search/v1/Segment';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { startEmbedService, type RunningEmbedService } from '@vus/embed-service';
import { ModelRegistry, type VisualEmbedder } from '@vus/models';
import sharp from 'sharp';
import { startSearchService, type RunningSearchService } from '../src/main';
import { codeOf, errorOf } from '@vus/testing';
import { QUERY_TEXT_LIMITS } from '@vus/domain';

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/**
 * A stand-in embedder with a known geometry: each text or image maps to a direction chosen by the
 * words it contains ("red", "green", "blue"), so nearest-neighbour results are predictable.
 */
const AXES = ['red', 'green', 'blue', 'other'];
function axisVector(word: string): number[] {
  const v = AXES.map((axis) => (axis === word ? 1 : 0.05));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}
const colourEmbedder: VisualEmbedder = {
  dimensions: AXES.length,
  embedText: async (text) => Float32Array.from(axisVector(AXES.find((a) => text.toLowerCase().includes(a)) ?? 'other')),
  embedImage: async (image) => {
    const { dominant } = await sharp(image as Buffer).stats();
    const word = dominant.r > 200 ? 'red' : dominant.g > 200 ? 'green' : dominant.b > 200 ? 'blue' : 'other';
    return Float32Array.from(axisVector(word));
  },
};
const testModels = new ModelRegistry([
  {
    capability: 'visual_embedder',
    name: 'axes',
    model: 'test/axes',
    kind: 'bundled',
    check: async () => undefined,
    load: async () => colourEmbedder,
  },
]);

function solidPng(colour: { r: number; g: number; b: number }, size = 96): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

const ALL_OPTIONS = ['visual', 'conversation', 'text_in_video', 'logo'];

// One embed-service for both databases: the query vectors come from it, as in production.
let embedService: RunningEmbedService;
beforeAll(async () => {
  embedService = await startEmbedService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    logger,
    models: testModels,
  });
}, 60_000);
afterAll(async () => {
  await embedService?.stop();
  await testModels.dispose();
});

describe.each([['postgres'], ['pglite']] as const)('search-service on %s', (kind) => {
  let indexDb: ThrowawayDatabase;
  let searchDb: ThrowawayDatabase | undefined;
  let indexService: RunningIndexService;
  let searchService: RunningSearchService;
  let index: IndexClient;
  let search: SearchClient;
  const clock = new ManualClock('2026-11-21T10:00:00Z');
  const bus = new InProcessEventBus();
  const org = newId();
  const otherOrg = newId();
  const ctx: OutgoingContext = { orgId: org };
  let indexId: string;
  let visualOnlyIndexId: string;
  const videos = { text: newId(), talk: newId(), street: newId() };

  async function addVideo(
    target: string,
    videoId: string,
    duration: number,
    segments: Segment__Input[],
    userMetadata: Record<string, string> = {},
  ) {
    await index.createVideo(ctx, {
      index_id: target,
      video_id: videoId,
      system_metadata: { filename: `${videoId}.mp4`, duration, fps: 25, width: 1280, height: 720, size: 1000 },
      user_metadata: Object.fromEntries(Object.entries(userMetadata).map(([k, v]) => [k, { string_value: v }])),
      extractors_run: ALL_OPTIONS,
      media_blob_key: '',
    });
    await search.ingestSegments(ctx, { index_id: target, video_id: videoId, segments });
  }

  const run = (query: string, options: string[] = ALL_OPTIONS, extra: Record<string, unknown> = {}) =>
    search.search(ctx, { index_id: indexId, query_text: query, search_options: options, ...extra });

  beforeAll(async () => {
    indexDb = await createThrowawayDatabase();
    indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'postgres', url: indexDb.url }, logger, bus });
    let target: DatabaseTarget = { kind: 'pglite', dataDir: 'memory://' };
    if (kind === 'postgres') {
      searchDb = await createThrowawayDatabase();
      target = { kind: 'postgres', url: searchDb.url };
    }
    searchService = await startSearchService({
      bind: '127.0.0.1:0',
      database: target,
      indexServiceAddress: indexService.address,
      bus,
      embedServiceAddress: embedService.address,
      logger,
      clock,
      pageTtlSeconds: 3600,
    });
    index = createIndexClient(indexService.address);
    search = createSearchClient(searchService.address);
    indexId = (
      await index.createIndex(ctx, { name: 'search', models: [{ name: 'marengo2.7', options: ALL_OPTIONS }], addons: ['thumbnail'] })
    ).id;
    visualOnlyIndexId = (
      await index.createIndex(ctx, { name: 'visual only', models: [{ name: 'marengo2.7', options: ['visual'] }], addons: [] })
    ).id;

    const vec = (word: string) => ({ vector: axisVector(word), vector_model: 'clip' });
    await addVideo(
      indexId,
      videos.text,
      12,
      [
        { start: 0, end: 4, modality: 'text_in_video', text: 'ORANGE' },
        { start: 4, end: 8, modality: 'text_in_video', text: 'PLANET' },
        { start: 6, end: 8, modality: 'text_in_video', text: 'GARDEN' },
        { start: 8, end: 12, modality: 'text_in_video', text: 'BICYCLE' },
        {
          start: 0,
          end: 4,
          modality: 'visual',
          labels: ['person'],
          thumbnail_key: `videos/${videos.text}/thumbnails/0.jpg`,
          ...vec('blue'),
        },
        { start: 4, end: 12, modality: 'visual', labels: ['bicycle'], ...vec('green') },
      ],
      { category: 'shapes' },
    );
    await addVideo(
      indexId,
      videos.talk,
      10,
      [
        { start: 0.5, end: 3, modality: 'conversation', text: 'The quick brown fox jumps over the lazy dog.' },
        { start: 3.5, end: 6, modality: 'conversation', text: 'Welcome to the video understanding service.' },
        { start: 6.5, end: 9.5, modality: 'conversation', text: 'Every sentence has a start and an end.' },
        { start: 0, end: 10, modality: 'visual', labels: ['person', 'dog'], ...vec('red') },
      ],
      { category: 'talk' },
    );
    await addVideo(indexId, videos.street, 30, [
      { start: 0, end: 10, modality: 'visual', labels: ['car', 'person'], ...vec('blue') },
      { start: 10, end: 20, modality: 'visual', labels: ['traffic light'] },
      { start: 12, end: 14, modality: 'logo', text: 'Coca-Cola' },
      { start: 12, end: 18, modality: 'text_in_video', text: 'STOP' },
    ]);
  }, 120_000);

  afterAll(async () => {
    search?.close();
    index?.close();
    await searchService?.stop();
    await indexService?.stop();
    await searchDb?.drop();
    await indexDb?.drop();
  });

  it('finds on-screen text by the word shown, with its times', async () => {
    const page = await run('planet', ['text_in_video']);
    expect(page.clips).toHaveLength(1);
    expect(page.clips[0]).toMatchObject({ video_id: videos.text, start: 4, end: 8, confidence: 'high', rank: 1 });
    expect(page.clips[0]!.matches).toEqual([{ type: 'text_in_video', text: 'PLANET' }]);
    expect(page.search_pool).toMatchObject({ total_count: 3, total_duration: 52, index_id: indexId });
  });

  it('finds a transcript line by a paraphrase sharing its keywords, and by exact_match only word for word', async () => {
    const paraphrase = await run('a fox leaping over a dog', ['conversation']);
    expect(paraphrase.clips[0]).toMatchObject({ video_id: videos.talk, start: 0.5, end: 3 });

    const exact = await run('quick brown fox', ['conversation'], { conversation_option: 'exact_match' });
    expect(exact.clips.map((c) => [c.video_id, c.start])).toEqual([[videos.talk, 0.5]]);
    expect(exact.clips[0]!.transcription).toBe('The quick brown fox jumps over the lazy dog.');
    const reordered = await run('brown quick fox', ['conversation'], { conversation_option: 'exact_match' });
    expect(reordered.clips).toEqual([]);
  });

  it('finds labelled objects by synonyms and by broader words (WordNet)', async () => {
    const automobile = await run('automobile', ['visual']);
    expect(automobile.clips.map((c) => c.video_id)).toEqual([videos.street]);
    expect(automobile.clips[0]).toMatchObject({ start: 0, end: 10 });
    const vehicle = await run('vehicle', ['visual']);
    expect(vehicle.clips.map((c) => c.video_id)).toContain(videos.street);
    // A broader word ranks below the word itself.
    const car = await run('car', ['visual']);
    expect(car.clips[0]!.score).toBeGreaterThan(vehicle.clips.find((c) => c.video_id === videos.street)!.score);
  });

  it('searches a kind of a detector class as the class (issue 35 §2): a soccer player kicking a ball is a person with a sports ball', async () => {
    const match = newId();
    await addVideo(indexId, match, 10, [{ start: 2, end: 6, modality: 'visual', labels: ['person', 'sports ball'] }]);
    const soccer = await run('a soccer player kicking a ball', ['visual']);
    expect(soccer.clips[0]).toMatchObject({ video_id: match, start: 2, end: 6 });
    // "chef" finds people, but below "person" itself, and never with high confidence: a person need not be a chef.
    const [chef, person] = await Promise.all([run('a chef', ['visual']), run('person', ['visual'])]);
    const chefClip = chef.clips.find((c) => c.video_id === match);
    expect(chefClip).toBeDefined();
    expect(chefClip!.score).toBeLessThan(person.clips.find((c) => c.video_id === match)!.score);
    expect(chef.clips.map((c) => c.confidence)).not.toContain('high');
    await search.deleteVideoSegments(ctx, indexId, match);
  });

  it('weighs a label the detector only guessed at below a clear sighting: a weak detection alone is never high', async () => {
    const farm = newId();
    await addVideo(indexId, farm, 20, [
      { start: 0, end: 20, modality: 'visual', labels: ['horse', 'cat'], tentative_labels: ['cat', 'dog'] },
    ]);
    const clip = async (query: string) => (await run(query, ['visual'])).clips.find((c) => c.video_id === farm);
    const [horse, cat, equine, feline] = await Promise.all(['horse', 'cat', 'equine', 'feline'].map(clip));
    expect(horse).toMatchObject({ confidence: 'high' });
    // 0.7 for the tentative label, plus the longest moment's bonus of 0.05: medium.
    expect(cat).toMatchObject({ confidence: 'medium', score: 75 });
    // Through a broader word: 0.75 of a clear label, 0.75 × 0.7 of a tentative one.
    expect(equine).toMatchObject({ score: 80 });
    expect(feline).toMatchObject({ score: 57.5 });
    // A tentative label that is not among the labels is ignored, and the listing tells which labels were guessed at.
    expect(await clip('dog')).toBeUndefined();
    const listed = await search.listVideoSegments(ctx, indexId, farm);
    expect(listed.segments.map((s) => [s.labels, s.tentative_labels])).toEqual([[['horse', 'cat'], ['cat']]]);
    await search.deleteVideoSegments(ctx, indexId, farm);
  });

  it("matches a query's broader words against a segment's own words only", async () => {
    // "truck" has the hypernym "motor vehicle"; so has the car label (as a broader term, weight B):
    // siblings must not meet through their common parent.
    const truck = await run('truck', ['visual', 'text_in_video'], { threshold: 'none' });
    expect(truck.clips).toEqual([]);
    const sign = newId();
    await addVideo(indexId, sign, 5, [{ start: 1, end: 3, modality: 'text_in_video', text: 'NO MOTOR VEHICLES' }]);
    const withSign = await run('truck', ['visual', 'text_in_video'], { threshold: 'none' });
    expect(withSign.clips.map((c) => [c.video_id, c.start, c.end])).toEqual([[sign, 1, 3]]);
    // A hypernym is a weaker match than the word itself.
    expect(withSign.clips[0]!.score).toBeLessThan((await run('motor vehicles', ['text_in_video'])).clips[0]!.score);
    await search.deleteVideoSegments(ctx, indexId, sign);
  });

  it('merges options on one moment and reports each as a module; operator and keeps only moments every option matched', async () => {
    const either = await run('stop traffic light', ['visual', 'text_in_video'], { threshold: 'none' });
    const street = either.clips.find((c) => c.video_id === videos.street)!;
    expect(street.modules.map((m) => m.type).sort()).toEqual(['text_in_video', 'visual']);
    const both = await run('bicycle', ['visual', 'text_in_video'], { operator: 'and' });
    expect(both.clips.map((c) => [c.video_id, c.start, c.end])).toEqual([[videos.text, 4, 12]]);
  });

  it('groups clips by video and sorts videos by clip count', async () => {
    const page = await run('person', ['visual'], { group_by: 'video', sort_option: 'clip_count', include_user_metadata: true });
    expect(page.group_by).toBe('video');
    expect(page.clips).toEqual([]);
    expect(page.videos.map((v) => v.id).sort()).toEqual([videos.street, videos.talk, videos.text].sort());
    const text = page.videos.find((v) => v.id === videos.text)!;
    expect(text.clips[0]).toMatchObject({ video_id: videos.text, start: 0, end: 4 });
    expect(text.user_metadata).toEqual({ category: { string_value: 'shapes', kind: 'string_value' } });
  });

  it('pages by token: later pages are disjoint, tokens expire, another organization cannot read them', async () => {
    const first = await run('person', ['visual'], { page_limit: 1 });
    expect(first.page_info).toMatchObject({ limit_per_page: 1, total_results: 3, prev_page_token: '' });
    const token = first.page_info!.next_page_token;
    expect(token).toMatch(/^[0-9a-f-]{36}-2$/);
    const second = await search.getSearchPage(ctx, { page_token: token });
    expect(second.clips).toHaveLength(1);
    expect(second.clips[0]!.video_id).not.toBe(first.clips[0]!.video_id);
    expect(second.clips[0]!.rank).toBe(2);
    expect(await codeOf(search.getSearchPage({ orgId: otherOrg }, { page_token: token }))).toBe('search_page_token_expired');
    expect(await codeOf(search.getSearchPage(ctx, { page_token: 'not-a-token' }))).toBe('search_page_token_expired');
    clock.advance(3601_000);
    expect(await codeOf(search.getSearchPage(ctx, { page_token: token }))).toBe('search_page_token_expired');
    clock.advance(-3601_000);
  });

  it('narrows to the videos a filter keeps', async () => {
    const page = await run('person', ['visual'], { filter: { user_metadata: { category: { string_value: 'talk' } } } });
    expect(page.clips.map((c) => c.video_id)).toEqual([videos.talk]);
    const none = await run('person', ['visual'], { filter: { duration: { gte: 100 } } });
    expect(none.clips).toEqual([]);
  });

  it('applies the threshold and adjust_confidence_level', async () => {
    const loose = await run('a fox leaping over a dog', ['conversation'], { threshold: 'none' });
    const strict = await run('a fox leaping over a dog', ['conversation'], { threshold: 'high' });
    expect(strict.clips.length).toBeLessThanOrEqual(loose.clips.length);
    for (const clip of strict.clips) expect(clip.confidence).toBe('high');
    const stricter = await run('planet', ['text_in_video'], { threshold: 'high', adjust_confidence_level: 1 });
    expect(stricter.clips).toHaveLength(1);
  });

  it('refuses bad requests with their codes', async () => {
    expect(await codeOf(search.search(ctx, { index_id: visualOnlyIndexId, query_text: 'x', search_options: ['conversation'] }))).toBe(
      'search_option_not_supported',
    );
    expect(await codeOf(run('x', ['smell']))).toBe('parameter_invalid');
    expect(await codeOf(run('   ', ['visual']))).toBe('parameter_not_provided');
    expect(await codeOf(run('x', ['visual'], { page_limit: 51 }))).toBe('parameter_invalid');
    expect(await codeOf(run('x', ['visual'], { sort_option: 'clip_count' }))).toBe('parameter_invalid');
    expect(await codeOf(search.search({ orgId: otherOrg }, { index_id: indexId, query_text: 'x', search_options: ['visual'] }))).toBe(
      'resource_not_exist',
    );
    const notAnImage = Buffer.from('GIF89a this is not really an image');
    expect(
      await codeOf(
        search.search(ctx, { index_id: indexId, query_media: { media_type: 'image', data: notAnImage }, search_options: ['visual'] }),
      ),
    ).toBe('parameter_invalid');
    expect(
      await codeOf(
        search.search(ctx, {
          index_id: indexId,
          query_media: { media_type: 'image', url: 'http://169.254.169.254/latest' },
          search_options: ['visual'],
        }),
      ),
    ).toBe('parameter_invalid');
  });

  it('refuses an over-long query text with a clear error, and still answers an ordinary search (a 1,000-word query wedged PGlite)', async () => {
    const words = 'automobile person bicycle planet garden orange traffic light vehicle dog'.split(' ');
    // Distinct words: a repeated word makes one group only.
    const long = Array.from({ length: 1000 }, (_, i) => (i < words.length ? words[i] : `${words[i % words.length]}${i}`)).join(' ');
    const refused = await errorOf(run(long));
    expect(refused).toMatchObject({ code: 'token_limit_exceeded' });
    expect(refused && refused.message).toMatch(/query_text/);
    expect(await codeOf(run('x'.repeat(QUERY_TEXT_LIMITS.characters + 1), ['visual']))).toBe('token_limit_exceeded');
    // The longest accepted texts are searched on every option without trouble: 500 distinct tokens
    // (each planned; few are covered, so nothing passes the threshold) and 500 tokens of known words.
    const longestDistinct = Array.from({ length: QUERY_TEXT_LIMITS.tokens }, (_, i) => (i < words.length ? words[i] : `w${i}`)).join(' ');
    expect((await run(longestDistinct)).clips).toEqual([]);
    const longestKnown = Array.from({ length: QUERY_TEXT_LIMITS.tokens }, (_, i) => words[i % words.length]).join(' ');
    expect((await run(longestKnown)).clips.length).toBeGreaterThan(0);
    expect((await run('planet', ['text_in_video'])).clips).toHaveLength(1);
    const combinedLeaf = { index_id: indexId, search_options: ['visual'], query: { leaf: { text: long } } };
    expect(await errorOf(search.combinedSearch(ctx, combinedLeaf))).toMatchObject({
      code: 'token_limit_exceeded',
      message: expect.stringContaining('query.text'),
    });
  });

  it('refuses segments that are not well formed', async () => {
    const bad = (segment: Segment__Input) => search.ingestSegments(ctx, { index_id: indexId, video_id: newId(), segments: [segment] });
    expect(await codeOf(bad({ start: 5, end: 4, modality: 'visual' }))).toBe('parameter_invalid');
    expect(await codeOf(bad({ start: 0, end: 4, modality: 'smell' }))).toBe('parameter_invalid');
    expect(await codeOf(bad({ start: 0, end: 4, modality: 'visual', vector: [1, 0] }))).toBe('parameter_invalid');
  });

  if (kind === 'pglite') {
    it('searches lexically when embed-service does not answer, and refuses an image query it cannot read', async () => {
      // A search-service whose model server is down (nothing listens on port 1).
      const cut = await startSearchService({
        bind: '127.0.0.1:0',
        database: { kind: 'pglite', dataDir: 'memory://' },
        indexServiceAddress: indexService.address,
        embedServiceAddress: '127.0.0.1:1',
        logger,
        clock,
      });
      const client = createSearchClient(cut.address);
      // A fresh service's first query starts loading the word neighbours beside it: a minute, not
      // a client's 10 s default, on two cores shared with other suites.
      const patient = { ...ctx, deadline: new Date(Date.now() + 60_000) };
      try {
        const video = newId();
        await index.createVideo(ctx, {
          index_id: indexId,
          video_id: video,
          system_metadata: { filename: 'cut.mp4', duration: 4, fps: 25, width: 640, height: 360, size: 1 },
          extractors_run: ALL_OPTIONS,
          media_blob_key: '',
        });
        await client.ingestSegments(patient, {
          index_id: indexId,
          video_id: video,
          segments: [
            { start: 0, end: 4, modality: 'text_in_video', text: 'ZANZIBAR' },
            { start: 0, end: 4, modality: 'visual', labels: ['boat'], vector: axisVector('blue'), vector_model: 'clip' },
          ],
        });
        const page = await client.search(patient, {
          index_id: indexId,
          query_text: 'zanzibar boat',
          search_options: ['visual', 'text_in_video'],
        });
        expect(page.clips.map((c) => c.video_id)).toEqual([video]);
        const image = client.search(patient, {
          index_id: indexId,
          query_media: { media_type: 'image', data: await solidPng({ r: 10, g: 10, b: 250 }) },
          search_options: ['visual'],
        });
        expect(await errorOf(image)).toMatchObject({ code: 'model_unavailable' });
      } finally {
        client.close();
        await cut.stop();
      }
    }, 60_000);

    it('searches CLIP-style vectors with pgvector: text and image queries find the nearest scenes', async () => {
      const text = await run('something green', ['visual']);
      expect(text.clips[0]).toMatchObject({ video_id: videos.text, start: 4, end: 12 });
      const image = await search.search(ctx, {
        index_id: indexId,
        query_media: { media_type: 'image', data: await solidPng({ r: 250, g: 10, b: 10 }) },
        search_options: ['visual'],
      });
      expect(image.clips[0]).toMatchObject({ video_id: videos.talk, start: 0, end: 10 });
    });

    it('keeps one set of vectors per re-ingested video, and deleting the video removes it from vector search', async () => {
      const greener = newId();
      const green = { start: 0, end: 3, modality: 'visual', labels: ['kite'], vector: axisVector('green'), vector_model: 'clip' };
      await addVideo(indexId, greener, 3, [green]);
      await search.ingestSegments(ctx, { index_id: indexId, video_id: greener, segments: [green] });
      const greens = (await run('something green', ['visual'])).clips.filter((c) => c.video_id === greener);
      expect(greens).toHaveLength(1);
      await search.deleteVideoSegments(ctx, indexId, greener);
      expect((await run('something green', ['visual'])).clips.map((c) => c.video_id)).not.toContain(greener);
    });
  }

  it('drops a video from search when it is deleted (video.deleted) and on DeleteVideoSegments', async () => {
    const gone = newId();
    await addVideo(indexId, gone, 5, [{ start: 0, end: 5, modality: 'text_in_video', text: 'ZEPPELIN' }]);
    expect((await run('zeppelin', ['text_in_video'])).clips).toHaveLength(1);
    await index.deleteVideo(ctx, indexId, gone);
    await waitFor(async () => (await run('zeppelin', ['text_in_video'])).clips.length === 0);

    const again = newId();
    await addVideo(indexId, again, 5, [{ start: 0, end: 5, modality: 'text_in_video', text: 'ZEPPELIN' }]);
    await search.deleteVideoSegments(ctx, indexId, again);
    expect((await run('zeppelin', ['text_in_video'])).clips).toEqual([]);
    // A repeated event changes nothing.
    await bus.publish([
      buildEvent('video.deleted', again, org, { index_id: indexId, video_id: again, blob_keys: [], reason: 'video_deleted' }),
    ]);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
