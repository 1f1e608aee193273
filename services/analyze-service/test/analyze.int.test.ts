/**
 * analyze-service over gRPC with index-service and search-service beside it: the evidence is
 * written as the indexing worker writes it (video, artifacts, segments), and every RPC reads it
 * back through the other services. Generation records land in analyze-service's PostgreSQL.
 */
import {
  createAnalyzeClient,
  createIndexClient,
  createSearchClient,
  type AnalyzeClient,
  type IndexClient,
  type SearchClient,
} from '@vus/clients';
import { ApiError, createLogger, newId } from '@vus/core';
import { Database } from '@vus/db';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import type { AnalyzeStreamEvent } from '@vus/grpc/types/analyze/v1/AnalyzeStreamEvent';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { startSearchService, type RunningSearchService } from '@vus/search-service';
import { openWordNet } from '@vus/wordnet';
import type { Timeline } from '../src/evidence';
import { ExtractiveProvider } from '../src/extractive';
import type { GenerationSettings } from '../src/provider';
import { startAnalyzeService, type RunningAnalyzeService } from '../src/main';
import { createGenerationStore } from '../src/store';
import { addGardenTourIndexes } from './fixtures';

/**
 * The extractive provider, except that an open answer yields its first sentence and then waits
 * (as a model server between tokens would) until the generation is stopped.
 * Without its signal aborting, the generation would never end.
 */
class StallingProvider extends ExtractiveProvider {
  stopped = false;
  override async *answer(timeline: Timeline, prompt: string, settings?: GenerationSettings): AsyncIterable<string> {
    const [first] = this.answerSentences(timeline, prompt);
    yield first ?? '';
    await new Promise((resolve) => settings?.signal?.addEventListener('abort', resolve, { once: true }));
    this.stopped = true;
  }
}

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe('analyze-service over gRPC', () => {
  const dbs: ThrowawayDatabase[] = [];
  let indexService: RunningIndexService;
  let searchService: RunningSearchService;
  let analyzeService: RunningAnalyzeService;
  let analyzeDb: ThrowawayDatabase;
  let index: IndexClient;
  let search: SearchClient;
  let analyze: AnalyzeClient;
  let stalling: AnalyzeClient;
  let stallingService: RunningAnalyzeService;
  const wordnet = openWordNet();
  const stallingProvider = new StallingProvider(wordnet);
  const org = newId();
  // A minute per call, not the 10 s default: the first summary loads search-service's WordNet definitions
  // and word vectors in this same process, 5-12 s of a core shared with the rest of CI.
  const ctx = {
    orgId: org,
    get deadline() {
      return new Date(Date.now() + 60_000);
    },
  };
  let videoId: string;
  let searchOnlyVideoId: string;

  /** Speech is searched too: the conversation segment of the first line said. */
  const extraSegments = [{ start: 2, end: 5, modality: 'conversation', text: 'These roses bloom in June.' }];

  beforeAll(async () => {
    const [indexDb, searchDb] = [await createThrowawayDatabase(), await createThrowawayDatabase()];
    analyzeDb = await createThrowawayDatabase();
    dbs.push(indexDb, searchDb, analyzeDb);
    indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'postgres', url: indexDb.url }, logger });
    searchService = await startSearchService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: searchDb.url },
      indexServiceAddress: indexService.address,
      logger,
    });
    analyzeService = await startAnalyzeService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: analyzeDb.url },
      indexServiceAddress: indexService.address,
      searchServiceAddress: searchService.address,
      logger,
    });
    stallingService = await startAnalyzeService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: analyzeDb.url },
      indexServiceAddress: indexService.address,
      searchServiceAddress: searchService.address,
      provider: stallingProvider,
      logger,
    });
    stalling = createAnalyzeClient(stallingService.address);
    index = createIndexClient(indexService.address);
    search = createSearchClient(searchService.address);
    analyze = createAnalyzeClient(analyzeService.address);
    ({ videoId, searchOnlyVideoId } = await addGardenTourIndexes({ index, search }, ctx, extraSegments));
  }, 120_000);

  afterAll(async () => {
    analyze?.close();
    stalling?.close();
    await stallingService?.stop();
    wordnet.close();
    search?.close();
    index?.close();
    await analyzeService?.stop();
    await searchService?.stop();
    await indexService?.stop();
    for (const db of dbs) await db.drop();
  });

  it('gist: title card, topics and hashtags from what was indexed', async () => {
    const gist = await analyze.generateGist(ctx, { video_id: videoId, types: ['title', 'topic', 'hashtag'] });
    expect(gist.title).toBe('Garden Tour');
    expect(gist.hashtags).toEqual(expect.arrayContaining(['gardentour', 'bicycle']));
    expect(gist.topics.length).toBeGreaterThan(0);
    expect(gist.usage?.output_tokens).toBeGreaterThan(0);
  });

  it('summary, chapters and highlights name the evidence and its times', async () => {
    const summary = await analyze.summarizeVideo(ctx, { video_id: videoId, type: 'summary' });
    expect(summary).toMatchObject({ summarize_type: 'summary' });
    expect(summary.summary).toContain('GARDEN TOUR');
    expect(summary.summary).toContain('bicycle');
    const chapters = await analyze.summarizeVideo(ctx, { video_id: videoId, type: 'chapter' });
    expect(chapters.chapters[0]).toMatchObject({ chapter_number: 0, start: 0, chapter_title: 'Garden Tour' });
    const highlights = await analyze.summarizeVideo(ctx, { video_id: videoId, type: 'highlight' });
    expect(highlights.highlights.length).toBeGreaterThan(0);
  });

  it('streams an answer with the moments that show it, and records it with its usage', async () => {
    const events: AnalyzeStreamEvent[] = [];
    for await (const event of analyze.analyzeVideoStream(ctx, { video_id: videoId, prompt: 'Where is the bicycle?' })) events.push(event);
    expect(events[0]?.event).toBe('stream_start');
    const end = events.at(-1)!;
    expect(end.event).toBe('stream_end');
    const text = events.flatMap((e) => (e.text_generation ? [e.text_generation.text] : [])).join('');
    expect(text).toContain('bicycle is parked by the gate');
    expect(text).toMatch(/From 0:15 to 0:30, the video shows bicycle/);
    const store = createGenerationStore(analyzeDb.db);
    expect(await store.byId(org, end.generation_id)).toMatchObject({
      status: 'completed',
      kind: 'analyze',
      outputTokens: end.stream_end!.usage!.output_tokens,
    });
    // Its usage, written with it for billing-service: the output tokens and the minutes of the video it read.
    const { rows } = await analyzeDb.db.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM outbox WHERE type = 'usage.recorded' AND payload->>'idempotency_key' LIKE $1 ORDER BY seq`,
      [`generation:${end.generation_id}%`],
    );
    expect(rows.map((r) => r.payload)).toEqual([
      expect.objectContaining({ kind: 'output_tokens', quantity: end.stream_end!.usage!.output_tokens, category: 'analyze' }),
      expect.objectContaining({ kind: 'media_seconds', quantity: expect.any(Number), category: 'analyze' }),
    ]);
    expect(rows[1]!.payload.quantity).toBeGreaterThan(0);
  });

  it('a cancelled stream stops generating and its record keeps what was produced', async () => {
    const abort = new AbortController();
    let generationId = '';
    for await (const event of stalling.analyzeVideoStream(ctx, { video_id: videoId, prompt: 'Describe the video' }, abort.signal)) {
      generationId = event.generation_id;
      if (event.text_generation) abort.abort();
    }
    const store = createGenerationStore(analyzeDb.db);
    let record = await store.byId(org, generationId);
    for (let i = 0; i < 50 && !record; i += 1)
      record = await new Promise((r) => setTimeout(r, 50)).then(() => store.byId(org, generationId));
    expect(record).toMatchObject({ status: 'cancelled' });
    expect(record!.outputTokens).toBeGreaterThan(0);
    expect(stallingProvider.stopped).toBe(true);
  });

  it('non-streaming analyze with a JSON schema answers JSON that validates', async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, objects: { type: 'array', items: { type: 'string' } } },
      required: ['title', 'objects'],
    };
    const result = await analyze.analyzeVideo(ctx, {
      video_id: videoId,
      prompt: 'List what is seen',
      response_format: { type: 'json_schema', json_schema: JSON.stringify(schema) },
    });
    const value = JSON.parse(result.data) as { title: string; objects: string[] };
    expect(value.objects).toEqual(expect.arrayContaining(['bicycle']));
    expect(result.finish_reason).toBe('stop');
  });

  it.each<[string, () => Promise<unknown>, string]>([
    [
      'a video whose index has no Pegasus engine',
      () => analyze.generateGist(ctx, { video_id: searchOnlyVideoId, types: ['title'] }),
      'engine_not_supported',
    ],
    ['an unknown video', () => analyze.generateGist(ctx, { video_id: newId(), types: ['title'] }), 'resource_not_exist'],
    [
      "another organization's video",
      () => analyze.generateGist({ orgId: newId() }, { video_id: videoId, types: ['title'] }),
      'resource_not_exist',
    ],
    [
      'a response format that is not json_schema',
      () => analyze.analyzeVideo(ctx, { video_id: videoId, prompt: 'x', response_format: { type: 'text', json_schema: '' } }),
      'parameter_invalid',
    ],
    ['a malformed video id', () => analyze.generateGist(ctx, { video_id: '../etc', types: ['title'] }), 'resource_not_exist'],
  ])('refuses %s', async (_name, call, code) => {
    const error = await call().catch((e: unknown) => e);
    expect(error instanceof ApiError ? error.code : error).toBe(code);
  });

  it('a stream refused before it starts fails with the error, not a stream_error', async () => {
    const iterate = async () => {
      for await (const _ of analyze.analyzeVideoStream(ctx, { video_id: searchOnlyVideoId, prompt: 'hello' })) void _;
    };
    await expect(iterate()).rejects.toMatchObject({ code: 'engine_not_supported' });
  });

  it('the generation records are in its own database', async () => {
    const db = await Database.open({ kind: 'postgres', url: analyzeDb.url });
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM generations WHERE org_id = $1', [org]);
    await db.close();
    expect(Number(rows[0]!.n)).toBeGreaterThanOrEqual(5);
  });
});
