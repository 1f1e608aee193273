/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Indexing end to end with the official SDKs, unchanged: create an index, upload a generated video
 * (as a file, and as a URL served from loopback), wait for `ready` the way the SDKs do, then read
 * what the worker extracted. Then every bad media case ends `failed` with its reason.
 */
import {
  lowResolutionVideo,
  randomBytesVideo,
  serveFiles,
  shortVideo,
  silentVideo,
  SUBTITLE_SENTENCES,
  truncatedVideo,
  wordsAndSubtitlesVideo,
  type FileServer,
  type GeneratedVideo,
} from '@vus/testing';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import request from 'supertest';
import { TwelveLabs as TwelveLabsV1 } from 'twelvelabs-js';
import { TwelveLabs as TwelveLabsV0 } from 'twelvelabs-js-v0';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

let stack: IndexingStack;
let fixture: GeneratedVideo;
let files: FileServer;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

beforeAll(async () => {
  [stack, fixture] = await Promise.all([startIndexingStack({ worker: true }), wordsAndSubtitlesVideo()]);
  files = await serveFiles({ 'clip.mp4': fixture.path });
}, 120_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await files?.close();
  await stack?.stop();
});

/** The rendered words found in text-in-video values, each within ±1 s of when it was on screen. */
function expectWordsAtTheirTimes(values: readonly { start: number; end: number; value: string }[]) {
  for (const word of fixture.truth.words) {
    const found = values.find((v) => v.value.toUpperCase().split(/\s+/).includes(word.text));
    expect({ word: word.text, found: Boolean(found) }).toEqual({ word: word.text, found: true });
    expect(Math.abs(found!.start - word.startSec)).toBeLessThanOrEqual(1);
    expect(Math.abs(found!.end - word.endSec)).toBeLessThanOrEqual(1);
  }
}

function expectSubtitleTranscription(values: readonly { start?: number; end?: number; value?: string }[]) {
  expect(values.map((v) => v.value)).toEqual([...SUBTITLE_SENTENCES]);
  fixture.truth.sentences.forEach((sentence, i) => {
    expect(Math.abs(values[i]!.start! - sentence.startSec)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(values[i]!.end! - sentence.endSec)).toBeLessThanOrEqual(0.5);
  });
}

describe('twelvelabs-js 0.2.8 (v1.2)', () => {
  let client: TwelveLabsV0;
  let indexId: string;
  beforeAll(async () => {
    const { key } = await stack.newOrg();
    process.env.TWELVELABS_BASE_URL = stack.url;
    client = new TwelveLabsV0({ apiKey: key, version: 'v1.2' });
    const index = await client.index.create({
      name: 'indexing-v12',
      engines: [{ name: 'marengo2.6', options: ['visual', 'conversation', 'text_in_video', 'logo'] }],
      addons: ['thumbnail'],
    });
    indexId = index.id;
  });

  it('uploads a file, waits for ready, and reads the transcription, text in video and a thumbnail', async () => {
    process.env.TWELVELABS_BASE_URL = stack.url;
    const created = await client.task.create({ indexId, file: fixture.path });
    expect(['validating', 'pending', 'indexing', 'ready']).toContain(created.status);
    const done = await created.waitForDone(300);
    expect(done.status).toBe('ready');
    const task = await client.task.retrieve(created.id);
    expect(task.metadata).toMatchObject({ filename: basename(fixture.path), width: 1280, height: 720 });
    const videoId = (task as unknown as { videoId: string }).videoId;

    const video = await client.index.video.retrieve(indexId, videoId);
    expect(video.metadata).toMatchObject({ filename: basename(fixture.path), width: 1280, height: 720, fps: 25 });
    expect(video.metadata.duration).toBeCloseTo(12, 0);
    expectSubtitleTranscription(await client.index.video.transcription(indexId, videoId));
    expectWordsAtTheirTimes(await client.index.video.textInVideo(indexId, videoId));
    const thumbnail = await fetch(await client.index.video.thumbnail(indexId, videoId, 5));
    expect([thumbnail.status, thumbnail.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
  }, 90_000);

  it('indexes a video_url served from loopback', async () => {
    process.env.TWELVELABS_BASE_URL = stack.url;
    const created = await client.task.create({ indexId, url: files.url('clip.mp4') });
    const done = await created.waitForDone(300);
    expect(done.status).toBe('ready');
    expect(files.requests.some((r) => r.method === 'GET' && r.path === '/clip.mp4')).toBe(true);
    const task = await client.task.retrieve(created.id);
    const videoId = (task as unknown as { videoId: string }).videoId;
    expectWordsAtTheirTimes(await client.index.video.textInVideo(indexId, videoId));
    expect((await client.index.video.retrieve(indexId, videoId)).metadata).toMatchObject({ filename: 'clip.mp4' });
    const counts = await client.task.status(indexId);
    expect(counts).toMatchObject({ ready: 2, failed: 0, totalResult: 2 });
  }, 90_000);
});

describe('twelvelabs-js 1.x (v1.3)', () => {
  let client: TwelveLabsV1;
  let indexId: string;
  beforeAll(async () => {
    const { key } = await stack.newOrg();
    process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
    client = new TwelveLabsV1({ apiKey: key });
    const index = await client.indexes.create({
      indexName: 'indexing-v13',
      models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
    });
    indexId = index.id!;
  });

  it.each([
    ['a file', () => ({ videoFile: createReadStream(fixture.path) })],
    ['a URL', () => ({ videoUrl: files.url('clip.mp4') })],
  ])(
    'uploads %s, waits for ready, and retrieves the video with its transcription',
    async (_how, source) => {
      process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
      const created = await client.tasks.create({ indexId, ...source() });
      expect(created.videoId).toMatch(/^[0-9a-f]{24}$/);
      const done = await client.tasks.waitForDone(created.id!, { sleepInterval: 0.3 });
      expect(done).toMatchObject({ status: 'ready', videoId: created.videoId, systemMetadata: { width: 1280, height: 720 } });
      const video = await client.indexes.videos.retrieve(indexId, created.videoId!, { transcription: true });
      expect(video.systemMetadata).toMatchObject({ width: 1280, height: 720, fps: 25 });
      expectSubtitleTranscription(video.transcription ?? []);
    },
    90_000,
  );
});

describe('bad media', () => {
  let key: string;
  let indexId: string;
  let conversationOnly: string;
  let badFiles: FileServer;
  const api = () => request(stack.url);

  beforeAll(async () => {
    ({ key } = await stack.newOrg());
    const create = async (name: string, options: string[]) =>
      (
        await api()
          .post('/v1.2/indexes')
          .set('x-api-key', key)
          .send({ index_name: name, engines: [{ engine_name: 'marengo2.6', engine_options: options }] })
      ).body._id as string;
    indexId = await create('bad-media', ['visual', 'conversation']);
    conversationOnly = await create('speech-only', ['conversation']);
    badFiles = await serveFiles({ 'short.mp4': (await shortVideo()).path });
  });
  afterAll(async () => {
    await badFiles.close();
  });

  /** Sends the request, then polls the task as the SDKs do until it is finished. */
  async function outcome(send: () => Promise<request.Response>): Promise<{ status: string; code: string; message: string }> {
    const created = await send();
    expect(created.status).toBe(201);
    for (;;) {
      const res = await api().get(`/v1.2/tasks/${created.body._id}`).set('x-api-key', key).expect(200);
      if (res.body.status === 'ready' || res.body.status === 'failed') return { status: res.body.status, ...res.body.error };
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const upload =
    (fixture: () => Promise<{ path: string }>, index = () => indexId) =>
    async () =>
      api()
        .post('/v1.2/tasks')
        .set('x-api-key', key)
        .field('index_id', index())
        .attach('video_file', (await fixture()).path);
  const link = (url: () => string) => async () =>
    api().post('/v1.2/tasks').set('x-api-key', key).send({ index_id: indexId, video_url: url() });

  it.each([
    ['random bytes named .mp4', upload(randomBytesVideo), 'unsupported_file_type', /not in a video format/],
    ['a truncated MP4', upload(truncatedVideo), 'video_file_broken', /broken|corrupt|cannot be read/i],
    ['a 2-second video', upload(shortVideo), 'video_duration_too_short', /too short/i],
    ['a 320x240 video', upload(lowResolutionVideo), 'video_resolution_too_low', /320x240/],
    ['a silent video on a conversation-only index', upload(silentVideo, () => conversationOnly), 'audio_file_broken', /no audio/i],
    ['a URL that answers 404', link(() => `${badFiles.baseUrl}/missing.mp4`), 'parameter_invalid', /HTTP 404/],
    [
      'a URL on loopback that is not allow-listed',
      link(() => badFiles.url('short.mp4').replace('127.0.0.1', 'localhost')),
      'parameter_invalid',
      /localhost does not resolve to a public address/,
    ],
  ])(
    '%s ends failed',
    async (_name, send, code, message) => {
      const result = await outcome(send);
      expect(result).toMatchObject({ status: 'failed', code });
      expect(result.message).toMatch(message);
    },
    60_000,
  );

  it('keeps the API up', async () => {
    await api().get('/healthz').expect(200);
    const listed = await api().get('/v1.3/tasks?status=failed&page_limit=50').set('x-api-key', key).expect(200);
    expect(listed.body.data).toHaveLength(7);
    expect(listed.body.data.every((t: { error?: { code: string } }) => typeof t.error?.code === 'string')).toBe(true);
  });
});
