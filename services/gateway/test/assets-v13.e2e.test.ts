/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Issue 32 §3 end to end, through twelvelabs-js 1.3.4 as written: its own examples/multipart_uploads.ts
 * (with only the SDK example suite's substitutions: remote URLs served on loopback, and the
 * "downloaded" sample videos already in downloads/, as after its download step); asset user
 * metadata, transcription, indexed assets by asset and the 409 of deleting a referenced asset
 * through the SDK's client; a search with several query images (Marengo 3.0) on CLIP vectors (the
 * project's tiny CLIP, random weights: a picture of a scene's colour lands nearest that scene).
 * Every answer the SDK got is checked against the v1.3 OpenAPI document at the end.
 */
import { serveFiles, SUBTITLE_SENTENCES, generateVideo, wordsAndSubtitlesVideo, type FileServer, type GeneratedVideo } from '@vus/testing';
import { copyFileSync, createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';
import { pointSdkExamplesAt, runSdkExample } from './sdk-examples';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tinyModels = require('../../../scripts/models/make-tiny-models.js') as { makeTinyModels(dir: string): { clip: string } };

const COLOURS = { red: { r: 255, g: 0, b: 0 }, lime: { r: 0, g: 255, b: 0 }, blue: { r: 0, g: 0, b: 255 } } as const;
type Colour = keyof typeof COLOURS;
/** The colour scenes' times, as the colour video shows them. */
const SCENE_START: Record<Colour, number> = { red: 0, lime: 4, blue: 8 };

let stack: IndexingStack;
let modelsDir: string;
let speech: GeneratedVideo;
let files: FileServer;
let recorder: RecordingProxy;
let client: TwelveLabs;
let key: string;
let speechIndexId: string;
let colourIndexId: string;
let colourVideoId: string;
const dir = mkdtempSync(join(tmpdir(), 'vus-assets-v13-'));
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

const colourImage = (colour: Colour, side = 96) =>
  sharp({ create: { width: side, height: side, channels: 3, background: COLOURS[colour] } })
    .png()
    .toBuffer();

beforeAll(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'vus-assets-v13-models-'));
  const { clip } = tinyModels.makeTinyModels(modelsDir);
  let colours: GeneratedVideo;
  [stack, speech, colours] = await Promise.all([
    startIndexingStack({ worker: true, database: 'pglite', clip: { modelsDir, clipModel: clip } }),
    wordsAndSubtitlesVideo(),
    generateVideo('colour-scenes', {
      width: 640,
      height: 360,
      fps: 25,
      audio: 'none',
      container: 'mp4',
      scenes: [
        { durationSec: 4, background: '0xFF0000' },
        { durationSec: 4, background: '0x00FF00' },
        { durationSec: 4, background: '0x0000FF' },
      ],
    }),
  ]);
  writeFileSync(join(dir, 'red.png'), await colourImage('red', 128));
  files = await serveFiles({ 'example_video.mp4': speech.path, 'red.png': join(dir, 'red.png') });
  ({ key } = await stack.newOrg());
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  client = new TwelveLabs({ apiKey: key });
  speechIndexId = (
    await client.indexes.create({ indexName: 'speech', models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }] })
  ).id!;
  colourIndexId = (await client.indexes.create({ indexName: 'colours', models: [{ modelName: 'marengo3.0', modelOptions: ['visual'] }] }))
    .id!;
  const task = await client.tasks.create({ indexId: colourIndexId, videoFile: createReadStream(colours.path) });
  expect((await client.tasks.waitForDone(task.id!, { sleepInterval: 0.3 })).status).toBe('ready');
  colourVideoId = task.videoId!;
}, 300_000);

afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await files?.close();
  await recorder?.stop();
  await stack?.stop();
  for (const folder of [dir, modelsDir]) if (folder) rmSync(folder, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function settled(assetId: string) {
  for (;;) {
    const asset = await client.assets.retrieve(assetId);
    if (asset.status !== 'processing') return asset;
    await sleep(200);
  }
}

describe("twelvelabs-js 1.3.4's examples/multipart_uploads.ts, as written", () => {
  it('uploads the sample video twice in chunks and lists no incomplete upload; both assets become ready videos', async () => {
    // Where the example runs: its downloads/ holds the three sample videos its download step would fetch.
    const work = join(dir, 'example');
    mkdirSync(join(work, 'downloads'), { recursive: true });
    for (const name of ['example_video.mp4', 'video1.mp4', 'video2.mp4']) copyFileSync(speech.path, join(work, 'downloads', name));
    const sample = files.url('example_video.mp4');
    const replacements: [string, string][] = [
      ['https://commondatastorage.googleapis.com/gtv-videos-bucket/sample/ForBiggerBlazes.mp4', sample],
      ['https://commondatastorage.googleapis.com/gtv-videos-bucket/sample/ForBiggerEscapes.mp4', sample],
      ['https://commondatastorage.googleapis.com/gtv-videos-bucket/sample/ForBiggerFun.mp4', sample],
      // Printed only without an API key: where a key comes from.
      ['https://dashboard.twelvelabs.io', `${files.baseUrl}/`],
    ];
    const restoreEnvironment = pointSdkExamplesAt(stack.url, key);
    const cwd = process.cwd();
    process.chdir(work);
    let printed: string[];
    try {
      printed = await runSdkExample('multipart_uploads.ts', replacements);
    } finally {
      process.chdir(cwd);
      restoreEnvironment();
      process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
    }
    expect(printed.filter((line) => line.includes('❌'))).toEqual([]);
    const uploaded = printed.filter((line) => line.startsWith('✅ Upload completed! Asset ID: '));
    expect(uploaded).toHaveLength(2);
    expect(printed).toEqual(expect.arrayContaining(['✅ No incomplete uploads found', '\n🎉 All examples completed!']));
    expect(printed.some((line) => line.includes('📥 Downloading'))).toBe(false);
    for (const line of uploaded) {
      const assetId = line.slice('✅ Upload completed! Asset ID: '.length);
      expect(await settled(assetId)).toMatchObject({ status: 'ready', method: 'multipart', fileType: 'video/mp4' });
    }
  }, 180_000);
});

describe('asset user metadata, transcription, indexed assets and deletion (twelvelabs-js 1.3.4)', () => {
  let assetId: string;
  let indexedAssetId: string;

  beforeAll(async () => {
    const created = await client.assets.create({ method: 'direct', file: createReadStream(speech.path), filename: 'speech.mp4' });
    expect(await settled(created.id!)).toMatchObject({ status: 'ready' });
    assetId = created.id!;
  }, 60_000);

  it('replaces, merges and deletes user metadata; the asset carries it only while set', async () => {
    expect((await client.assets.retrieve(assetId)).userMetadata).toBeUndefined();
    await client.assets.replaceUserMetadata(assetId, {
      userMetadata: { category: 'recentlyAdded', batchNumber: 5, rating: 9.3, needsReview: true, ignored: '' },
    });
    expect((await client.assets.retrieve(assetId)).userMetadata).toEqual({
      category: 'recentlyAdded',
      batchNumber: 5,
      rating: 9.3,
      needsReview: true,
    });
    await client.assets.updateUserMetadata(assetId, { userMetadata: { category: null, rating: 7, reviewer: 'ana' } });
    expect((await client.assets.retrieve(assetId)).userMetadata).toEqual({ batchNumber: 5, rating: 7, needsReview: true, reviewer: 'ana' });
    // PUT keeps only what it sends.
    await client.assets.replaceUserMetadata(assetId, { userMetadata: { reviewer: 'bo' } });
    expect((await client.assets.retrieve(assetId)).userMetadata).toEqual({ reviewer: 'bo' });
    await client.assets.deleteUserMetadata(assetId);
    expect((await client.assets.retrieve(assetId)).userMetadata).toBeUndefined();
    // POST /assets's own user_metadata (a JSON string, as the SDK sends it) stays with the asset.
    const tagged = await client.assets.create({
      method: 'direct',
      file: createReadStream(speech.path),
      userMetadata: JSON.stringify({ source: 'camera-2', take: 3 }),
    });
    expect((await client.assets.retrieve(tagged.id!)).userMetadata).toEqual({ source: 'camera-2', take: 3 });
  });

  it('refuses hostile metadata with 400 naming it, and another organization gets 404', async () => {
    const put = (body: unknown, apiKey = key) =>
      request(stack.url)
        .put(`/v1.3/assets/${assetId}/user-metadata`)
        .set('x-api-key', apiKey)
        .send(body as object);
    const cases: [unknown, string][] = [
      [{}, 'user_metadata'],
      [{ user_metadata: 'text' }, 'user_metadata'],
      [{ user_metadata: { nested: { a: 1 } } }, 'user_metadata'],
      [{ user_metadata: { list: [1, 2] } }, 'user_metadata'],
      [{ user_metadata: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }, 'user_metadata'],
      [{ user_metadata: { ['k'.repeat(257)]: 1 } }, 'user_metadata'],
      [{ user_metadata: { long: 'x'.repeat(10_001) } }, 'user_metadata.long'],
    ];
    for (const [body, param] of cases) {
      const res = await put(body);
      expect([res.status, res.body.code, res.body.message]).toEqual([
        400,
        expect.stringMatching(/^parameter_/),
        expect.stringContaining(param),
      ]);
    }
    const other = await stack.newOrg();
    expect((await put({ user_metadata: { a: 1 } }, other.key)).status).toBe(404);
    expect((await request(stack.url).delete(`/v1.3/assets/${assetId}/user-metadata`).set('x-api-key', other.key)).status).toBe(404);
    expect((await request(stack.url).get(`/v1.3/assets/${assetId}/transcription`).set('x-api-key', other.key)).status).toBe(404);
    expect((await request(stack.url).get(`/v1.3/assets/${assetId}/indexed-assets`).set('x-api-key', other.key)).status).toBe(404);
    expect((await request(stack.url).delete(`/v1.3/assets/${assetId}`).set('x-api-key', other.key)).status).toBe(404);
    expect((await request(stack.url).get(`/v1.3/assets/${assetId}/transcription?include=letters`).set('x-api-key', key)).status).toBe(400);
    // v1.2 has no assets.
    expect(
      (await request(stack.url).put(`/v1.2/assets/${assetId}/user-metadata`).set('x-api-key', key).send({ user_metadata: {} })).body.code,
    ).toBe('api_upgrade_required');
  });

  it('has no transcription until indexed; then the indexed video speaks its sentences', async () => {
    const before = await request(stack.url).get(`/v1.3/assets/${assetId}/transcription`).set('x-api-key', key);
    expect([before.status, before.body.code]).toEqual([404, 'resource_not_exist']);
    await expect(client.assets.retrieveTranscription(assetId)).rejects.toMatchObject({ statusCode: 404 });

    indexedAssetId = (await client.indexes.indexedAssets.create(speechIndexId, { assetId })).id!;
    const statuses = new Set<string>();
    let transcription = await client.assets.retrieveTranscription(assetId, { include: ['sentences', 'words'] });
    for (let i = 0; transcription.status !== 'ready' && transcription.status !== 'failed' && i < 600; i++) {
      statuses.add(transcription.status);
      await sleep(250);
      transcription = await client.assets.retrieveTranscription(assetId, { include: ['sentences', 'words'] });
    }
    expect(transcription.status).toBe('ready');
    expect([...statuses].every((s) => s === 'pending' || s === 'processing')).toBe(true);
    // The subtitle track's sentences, as the speech segments of the indexed video; no word times are kept.
    const said = (transcription.sentences ?? []).map((s) => s.value).join(' ');
    for (const sentence of SUBTITLE_SENTENCES) expect(said).toContain(sentence);
    expect(transcription.words).toBeUndefined();
    for (const s of transcription.sentences ?? []) expect(s.end).toBeGreaterThanOrEqual(s.start);
    // The default (words alone): the status, nothing this server does not keep.
    expect(await client.assets.retrieveTranscription(assetId)).toEqual({ status: 'ready' });
  }, 180_000);

  it('lists the indexed assets made from the asset, and refuses to delete it (409) unless forced', async () => {
    const listed = await request(stack.url).get(`/v1.3/assets/${assetId}/indexed-assets`).set('x-api-key', key);
    expect(listed.status).toBe(200);
    expect(
      listed.body.data.map((item: { _id: string; asset_id: string; status: string }) => [item._id, item.asset_id, item.status]),
    ).toEqual([[indexedAssetId, assetId, 'ready']]);
    expect(listed.body.page_info).toMatchObject({ page: 1, total_results: 1 });

    const refused = await request(stack.url).delete(`/v1.3/assets/${assetId}`).set('x-api-key', key);
    expect([refused.status, refused.body.code]).toEqual([409, 'asset_in_use']);
    expect(refused.body.message).toContain('1 indexed asset references the asset');
    await expect(client.assets.delete(assetId, {}, { maxRetries: 0 })).rejects.toMatchObject({ statusCode: 409 });

    await client.assets.delete(assetId, { force: true });
    expect((await request(stack.url).get(`/v1.3/assets/${assetId}`).set('x-api-key', key)).status).toBe(404);
    // The indexed asset keeps its video.
    expect(await client.indexes.indexedAssets.retrieve(speechIndexId, indexedAssetId)).toMatchObject({
      id: indexedAssetId,
      status: 'ready',
    });
  });

  it('an asset whose indexed video was deleted through the videos API can be deleted without force', async () => {
    const created = await client.assets.create({ method: 'direct', file: createReadStream(speech.path), filename: 'again.mp4' });
    await settled(created.id!);
    const indexed = await client.indexes.indexedAssets.create(speechIndexId, { assetId: created.id! });
    for (let i = 0; i < 600; i++) {
      const status = (await client.indexes.indexedAssets.retrieve(speechIndexId, indexed.id!)).status;
      if (status === 'ready' || status === 'failed') break;
      await sleep(250);
    }
    await client.indexes.videos.delete(speechIndexId, indexed.id!);
    const listed = await request(stack.url).get(`/v1.3/assets/${created.id}/indexed-assets`).set('x-api-key', key);
    expect(listed.body.data).toEqual([]);
    await client.assets.delete(created.id!);
    expect((await request(stack.url).get(`/v1.3/assets/${created.id}`).set('x-api-key', key)).status).toBe(404);
  }, 180_000);
});

describe('POST /search with several query images (Marengo 3.0)', () => {
  const search = (images: Buffer[], indexId = colourIndexId, version = 'v1.3', path = '/search') => {
    let req = request(stack.url)
      .post(`/${version}${path}`)
      .set('x-api-key', key)
      .field('index_id', indexId)
      .field('search_options', 'visual')
      .field('query_media_type', 'image');
    for (const [i, image] of images.entries())
      req = req.attach('query_media_file', image, { filename: `q${i}.png`, contentType: 'image/png' });
    return req;
  };
  const topScene = (body: { data: { video_id: string; start: number }[] }) => {
    expect(body.data[0]!.video_id).toBe(colourVideoId);
    return Math.round(body.data[0]!.start);
  };

  it('through the SDK: a query_media_url and a query_media_file together find the scene both show', async () => {
    const result = await client.search.create({
      indexId: colourIndexId,
      searchOptions: ['visual'],
      queryMediaType: 'image',
      queryMediaUrl: files.url('red.png'),
      queryMediaFile: new Blob([await colourImage('red', 80)], { type: 'image/png' }),
    });
    const first = result.data![0]!;
    expect([first.videoId, Math.round(first.start!)]).toEqual([colourVideoId, SCENE_START.red]);
  });

  it.each<[string, Colour[], Colour[]]>([
    ['three pictures of one colour', ['blue', 'blue', 'blue'], ['blue']],
    ['ten pictures', ['lime', 'lime', 'lime', 'lime', 'lime', 'lime', 'lime', 'lime', 'lime', 'lime'], ['lime']],
  ])('%s', async (_name, colours, expected) => {
    const res = await search(await Promise.all(colours.map((c, i) => colourImage(c, 64 + 8 * i))));
    expect(res.status).toBe(200);
    expect(expected.map((c) => SCENE_START[c])).toContain(topScene(res.body));
  });

  it('two shades of one colour find its scene; two different colours never the third', async () => {
    const darkRed = await sharp({ create: { width: 90, height: 90, channels: 3, background: { r: 200, g: 20, b: 20 } } })
      .png()
      .toBuffer();
    const shades = await search([await colourImage('red'), darkRed]);
    expect(topScene(shades.body)).toBe(SCENE_START.red);
    // Their mean direction lies between two unlike pictures: with this random-weight CLIP it may sit too
    // far from both to pass the score band (no result), but it is never nearest the scene neither shows.
    const mixed = await search([await colourImage('red'), await colourImage('blue')]);
    expect(mixed.status).toBe(200);
    const starts = (mixed.body.data as { start: number }[]).map((clip) => Math.round(clip.start));
    expect(starts[0] === undefined || starts[0] !== SCENE_START.lime).toBe(true);
  });

  it('refuses 11 images, 11 with URLs, another model naming it, and a second file on v1.2', async () => {
    const image = await colourImage('red');
    const eleven = await search(Array.from({ length: 11 }, () => image));
    expect([eleven.status, eleven.body.code, eleven.body.message]).toEqual([
      400,
      'parameter_invalid',
      'The query_media_file parameter is invalid. Send at most 10 query_media_file parts; this request has more.',
    ]);
    let mixed = search(Array.from({ length: 6 }, () => image));
    for (let i = 0; i < 5; i++) mixed = mixed.field('query_media_url', files.url('red.png'));
    const mixedRes = await mixed;
    expect([mixedRes.status, mixedRes.body.message]).toEqual([
      400,
      'The query_media_file parameter is invalid. Send at most 10 query images (query_media_url and query_media_file together); this request has 11.',
    ]);
    // twelvelabs-js 1.3.4 only names marengo3.0; the API still creates Marengo 2.7 indexes.
    const created = await request(stack.url)
      .post('/v1.3/indexes')
      .set('x-api-key', key)
      .send({ index_name: 'marengo27', models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] });
    expect(created.status).toBe(201);
    const older = created.body._id as string;
    const otherModel = await search([image, image], older);
    expect([otherModel.status, otherModel.body.code]).toEqual([400, 'parameter_invalid']);
    expect(otherModel.body.message).toContain('uses marengo2.7');
    // One image still searches an older model's index.
    expect((await search([image], older)).status).toBe(200);
    const v12 = await search([image, image], colourIndexId, 'v1.2', '/search-v2');
    expect([v12.status, v12.body.message]).toEqual([
      400,
      'The query_media_file parameter is invalid. Send one query_media_file part; this request has more than one.',
    ]);
  });
});

// Last: what the SDK received through the recorder.
it('every answer the SDK got matches the v1.3 OpenAPI document', async () => {
  expect(recorder.exchanges.length).toBeGreaterThan(10);
  expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
});
