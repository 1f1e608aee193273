/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Search end to end: two generated videos are indexed by the real worker (OCR, the COCO detector,
 * the subtitle track), then found through the official SDKs of both generations and through raw
 * HTTP for combined queries and bad input. The words of the first video are on screen at known
 * times: ORANGE 0–4 s, PLANET 4–8 s, GARDEN 6–8 s, BICYCLE 8–12 s; its subtitles say
 * SUBTITLE_SENTENCES at 0.5–3, 3.5–6 and 6.5–9.5 s. The second shows people at 0–3 s and a
 * phone at 9–12 s.
 */
import { objectsVideo, photoPath, SUBTITLE_SENTENCES, wordsAndSubtitlesVideo, type GeneratedVideo } from '@vus/testing';
import { createReadStream } from 'node:fs';
import request from 'supertest';
import { TwelveLabs as TwelveLabsV1 } from 'twelvelabs-js';
import { TwelveLabs as TwelveLabsV0, type GroupByVideoSearchData, type SearchData } from 'twelvelabs-js-v0';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
// The SDKs talk through it: their answers are checked against the OpenAPI documents at the end.
let recorder: RecordingProxy;
let words: GeneratedVideo;
let objects: GeneratedVideo;
let key: string;
let indexId: string;
let visualOnlyIndexId: string;
const videoIds = { words: '', objects: '' };
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;
const api = () => request(stack.url);

/** Within a second of the truth (frames are sampled once a second). */
function expectMoment(clip: { start?: number; end?: number } | undefined, start: number, end: number) {
  expect(clip).toBeDefined();
  expect(Math.abs(clip!.start! - start)).toBeLessThanOrEqual(1);
  expect(Math.abs(clip!.end! - end)).toBeLessThanOrEqual(1);
}

/** twelvelabs-js 0.2.8 types every page as clips or video groups: a clip has a video id, a group an id. */
function isClip(hit: SearchData | GroupByVideoSearchData): hit is SearchData {
  return 'videoId' in hit;
}

function isGroup(hit: SearchData | GroupByVideoSearchData): hit is GroupByVideoSearchData {
  return !isClip(hit);
}

/** The page as clips; fails the test if any hit is a video group. */
function clipsOf(hits: readonly (SearchData | GroupByVideoSearchData)[]): SearchData[] {
  const clips = hits.filter(isClip);
  expect(clips).toHaveLength(hits.length);
  return clips;
}

/** The page as video groups; fails the test if any hit is a clip. */
function groupsOf(hits: readonly (SearchData | GroupByVideoSearchData)[]): GroupByVideoSearchData[] {
  const groups = hits.filter(isGroup);
  expect(groups).toHaveLength(hits.length);
  return groups;
}

beforeAll(async () => {
  [stack, words, objects] = await Promise.all([startIndexingStack({ worker: true }), wordsAndSubtitlesVideo(), objectsVideo()]);
  ({ key } = await stack.newOrg());
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  const client = new TwelveLabsV1({ apiKey: key });
  indexId = (
    await client.indexes.create({
      indexName: 'search',
      models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
      addons: ['thumbnail'],
    })
  ).id!;
  visualOnlyIndexId = (
    await client.indexes.create({ indexName: 'visual only', models: [{ modelName: 'marengo3.0', modelOptions: ['visual'] }] })
  ).id!;
  for (const [name, fixture] of [
    ['words', words],
    ['objects', objects],
  ] as const) {
    const created = await client.tasks.create({ indexId, videoFile: createReadStream(fixture.path) });
    const done = await client.tasks.waitForDone(created.id!, { sleepInterval: 0.3 });
    expect(done.status).toBe('ready');
    videoIds[name] = created.videoId!;
  }
}, 240_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await recorder?.stop();
  await stack?.stop();
});

describe('twelvelabs-js 0.2.8 (v1.2)', () => {
  let client: TwelveLabsV0;
  beforeAll(() => {
    process.env.TWELVELABS_BASE_URL = recorder.url;
    client = new TwelveLabsV0({ apiKey: key, version: 'v1.2' });
  });
  beforeEach(() => {
    process.env.TWELVELABS_BASE_URL = recorder.url;
  });

  it('finds text shown on screen by the word, in the right video at the right time', async () => {
    const result = await client.search.query({ indexId, queryText: 'planet', options: ['text_in_video'] });
    const [top] = clipsOf(result.data);
    expect(top).toMatchObject({ videoId: videoIds.words, confidence: 'high' });
    expectMoment(top, 4, 8);
    expect(result.pool).toMatchObject({ totalCount: 2, indexId });
    expect(top?.thumbnailUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/thumbnails\//);
  });

  it('finds a subtitle sentence by a paraphrase sharing its keywords, and by exact_match', async () => {
    const paraphrase = await client.search.query({ indexId, queryText: 'a fox leaping over a dog', options: ['conversation'] });
    expect(paraphrase.data[0]).toMatchObject({ videoId: videoIds.words });
    expectMoment(clipsOf(paraphrase.data)[0], 0.5, 3);
    const exact = await client.search.query({
      indexId,
      queryText: 'welcome to the video',
      options: ['conversation'],
      conversationOption: 'exact_match',
    });
    expect(exact.data).toHaveLength(1);
    expectMoment(clipsOf(exact.data)[0], 3.5, 6);
    expect((exact.data[0] as unknown as { metadata: unknown[] }).metadata).toEqual([{ type: 'conversation', text: SUBTITLE_SENTENCES[1] }]);
  });

  it('finds a labelled object by another word for it (WordNet)', async () => {
    const result = await client.search.query({ indexId, queryText: 'cellphone', options: ['visual'] });
    expect(result.data[0]).toMatchObject({ videoId: videoIds.objects });
    expectMoment(clipsOf(result.data)[0], 9, 12);
    // The people are labelled person; "human" is one of its names.
    const human = await client.search.query({ indexId, queryText: 'human', options: ['visual'] });
    expect(human.data[0]).toMatchObject({ videoId: videoIds.objects });
    expectMoment(clipsOf(human.data)[0], 0, 3);
  });

  it('groups by video, and pages by token with disjoint pages', async () => {
    const grouped = await client.search.query({
      indexId,
      queryText: 'orange bicycle',
      options: ['text_in_video'],
      groupBy: 'video',
    });
    // ORANGE (0–4 s) and BICYCLE (8–12 s) are two moments: what lies between matches neither word.
    // (Adjacent words such as ORANGE then PLANET would be one moment, issue 23.)
    const [group] = groupsOf(grouped.data);
    expect(group?.id).toBe(videoIds.words);
    expect(group?.clips?.map((c) => [c.start, c.end]).sort((a, b) => a[0]! - b[0]!)).toEqual([
      [0, 4],
      [8, 12],
    ]);

    const first = await client.search.query({ indexId, queryText: 'orange bicycle', options: ['text_in_video'], pageLimit: 1 });
    expect(first.data).toHaveLength(1);
    const seen = clipsOf(first.data).map((c) => `${c.start}-${c.end}`);
    const second = clipsOf((await first.next()) ?? []);
    expect(second.length).toBeGreaterThanOrEqual(1);
    for (const clip of second) expect(seen).not.toContain(`${clip.start}-${clip.end}`);
  });

  it('refuses an expired or unknown page token with its code', async () => {
    const res = await api().get('/v1.2/search/6785b870-66fb-4c0f-a80c-cbf307d2d0f9-2').set('x-api-key', key);
    expect([res.status, res.body.code]).toEqual([400, 'search_page_token_expired']);
    await expect(client.search.byPageToken('6785b870-66fb-4c0f-a80c-cbf307d2d0f9-2')).rejects.toThrow(/expired/);
  });
});

describe('twelvelabs-js 1.x (v1.3)', () => {
  let client: TwelveLabsV1;
  beforeAll(() => {
    process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
    client = new TwelveLabsV1({ apiKey: key });
  });

  it('finds on-screen text (visual) and speech (audio)', async () => {
    const text = await client.search.create({ indexId, queryText: 'bicycle', searchOptions: ['visual'] });
    expect(text.data![0]).toMatchObject({ videoId: videoIds.words, rank: 1 });
    expectMoment(text.data![0], 8, 12);
    const speech = await client.search.create({ indexId, queryText: 'every sentence has an end', searchOptions: ['audio'] });
    expect(speech.data![0]).toMatchObject({ videoId: videoIds.words });
    expectMoment(speech.data![0], 6.5, 9.5);
    expect(speech.pageInfo!.pageExpiresAt).toEqual(expect.any(String));
  });

  it('groups by video, and retrieves the next page by token', async () => {
    const grouped = await client.search.create({ indexId, queryText: 'cellphone human', searchOptions: ['visual'], groupBy: 'video' });
    expect(grouped.data![0]).toMatchObject({ id: videoIds.objects });
    expect(grouped.data![0]!.clips!.length).toBeGreaterThanOrEqual(2);

    const first = await client.search.create({ indexId, queryText: 'orange bicycle', searchOptions: ['visual'], pageLimit: 1 });
    const second = await client.search.retrieve(first.pageInfo!.nextPageToken!);
    expect(second.data).toHaveLength(1);
    expect(`${second.data![0]!.start}`).not.toBe(`${first.data![0]!.start}`);
  });

  it('refuses an expired token with its code', async () => {
    await expect(client.search.retrieve('6785b870-66fb-4c0f-a80c-cbf307d2d0f9-2')).rejects.toMatchObject({
      statusCode: 400,
      body: { code: 'search_page_token_expired' },
    });
  });
});

describe('combined queries (v1.2)', () => {
  const combined = (query: unknown, extra: Record<string, unknown> = {}) =>
    api()
      .post('/v1.2/combined-search')
      .set('x-api-key', key)
      .send({ index_id: indexId, search_options: ['text_in_video'], query, ...extra });
  const moments = (res: request.Response) =>
    (res.body.data as { video_id: string; start: number; end: number }[]).map((c) => ({
      video_id: c.video_id,
      start: c.start,
      end: c.end,
    }));

  it('AND: the moments where both words are on screen', async () => {
    const res = await combined({ $and: [{ text: 'planet' }, { text: 'garden' }] });
    expect(res.status).toBe(200);
    expect(moments(res)).toHaveLength(1);
    expectMoment(moments(res)[0], 6, 8);
  });

  it('OR: either word', async () => {
    const res = await combined({ $or: [{ text: 'orange' }, { text: 'bicycle' }] });
    const found = moments(res).sort((a, b) => a.start - b.start);
    expect(found).toHaveLength(2);
    expectMoment(found[0], 0, 4);
    expectMoment(found[1], 8, 12);
  });

  it('NOT: one word without the other', async () => {
    const res = await combined({ $not: { origin: { text: 'planet' }, sub: { text: 'garden' } } });
    expect(moments(res)).toHaveLength(1);
    expectMoment(moments(res)[0], 4, 6);
  });

  it('THEN: the words in their order only', async () => {
    const ordered = await combined({ $then: [{ text: 'orange' }, { text: 'bicycle' }] });
    expect(moments(ordered)).toHaveLength(1);
    expectMoment(moments(ordered)[0], 0, 12);
    expect(moments(await combined({ $then: [{ text: 'bicycle' }, { text: 'orange' }] }))).toEqual([]);
  });

  it('proximity: AND of moments apart only when they are near enough', async () => {
    expect(moments(await combined({ $and: [{ text: 'orange' }, { text: 'bicycle' }] }))).toEqual([]);
    expect(moments(await combined({ $and: [{ text: 'orange' }, { text: 'bicycle' }], proximity: 2 }))).toEqual([]);
    const near = await combined({ $and: [{ text: 'orange' }, { text: 'bicycle' }], proximity: 5 });
    expect(moments(near)).toHaveLength(1);
    expectMoment(moments(near)[0], 0, 12);
  });

  it('a leaf with its own options, and the v1.2 JSON /search with an object query', async () => {
    const res = await api()
      .post('/v1.2/search')
      .set('x-api-key', key)
      .send({
        index_id: indexId,
        search_options: ['text_in_video'],
        query: { $and: [{ text: 'garden' }, { text: 'every sentence', search_options: ['conversation'] }] },
      });
    expect(res.status).toBe(200);
    expect(moments(res)).toHaveLength(1);
    expectMoment(moments(res)[0], 6.5, 8);
  });
});

describe('bad input', () => {
  const search = () => api().post('/v1.3/search').set('x-api-key', key);
  const expectError = (res: request.Response, status: number, code: string) => expect([res.status, res.body.code]).toEqual([status, code]);

  it.each([
    ['an unknown option', { search_options: 'smell', query_text: 'x' }, 400, 'parameter_invalid'],
    ['no options', { query_text: 'x' }, 400, 'parameter_not_provided'],
    ['an empty query', { search_options: 'visual', query_text: '   ' }, 400, 'parameter_not_provided'],
    ['page_limit 0', { search_options: 'visual', query_text: 'x', page_limit: '0' }, 400, 'parameter_invalid'],
    ['page_limit 51', { search_options: 'visual', query_text: 'x', page_limit: '51' }, 400, 'parameter_invalid'],
    ['a filter that is not JSON', { search_options: 'visual', query_text: 'x', filter: '{"duration": ' }, 400, 'search_filter_invalid'],
    [
      'a filter with a bad range',
      { search_options: 'visual', query_text: 'x', filter: '{"duration": {"over": 3}}' },
      400,
      'search_filter_invalid',
    ],
  ])('%s', async (_case, fields, status, code) => {
    let req = search().field('index_id', indexId);
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    expectError(await req, status, code);
  });

  it('an option the index does not have', async () => {
    expectError(
      await search().field('index_id', visualOnlyIndexId).field('search_options', 'audio').field('query_text', 'x'),
      400,
      'search_option_not_supported',
    );
  });

  it("another organization's index", async () => {
    const other = await stack.newOrg();
    expectError(
      await api()
        .post('/v1.3/search')
        .set('x-api-key', other.key)
        .field('index_id', indexId)
        .field('search_options', 'visual')
        .field('query_text', 'x'),
      404,
      'resource_not_exist',
    );
  });

  it('a query image that is not an image', async () => {
    const res = await search()
      .field('index_id', indexId)
      .field('search_options', 'visual')
      .field('query_media_type', 'image')
      .attach('query_media_file', Buffer.from('this is text, not a picture'), { filename: 'cat.jpg', contentType: 'image/jpeg' });
    expectError(res, 400, 'parameter_invalid');
    expect(res.body.message).toMatch(/not a JPEG or PNG/);
  });

  it('a real image query finds the scene showing the same object (detector labels without CLIP)', async () => {
    const res = await search()
      .field('index_id', indexId)
      .field('search_options', 'visual')
      .field('query_media_type', 'image')
      .attach('query_media_file', await photoPath('phone'));
    expect(res.status).toBe(200);
    expect(res.body.data[0].video_id).toBe(videoIds.objects);
    expectMoment(res.body.data[0], 9, 12);
  });
});

// Last: what every test above received through the SDKs.
it("every answer the SDKs got matches its version's OpenAPI document", async () => {
  expect(recorder.exchanges.filter((e) => e.method === 'POST' && /\/search(-v2)?$/.test(e.url)).length).toBeGreaterThan(5);
  expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
});
