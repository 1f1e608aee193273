/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 *
 * Synchronous embeddings end to end: both SDK generations (and plain HTTP where an SDK has no
 * call for an input) through the gateway to embed-service's bundled concept embedding. The
 * vectors must be useful: a text about the photo is nearer the photo than a text about something else.
 */
import { runFfmpeg } from '@vus/media';
import { cosine } from '@vus/models';
import { generateVideo, photoPath, serveFiles, type FileServer } from '@vus/testing';
import { createReadStream, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { TwelveLabs as TwelveLabsV1 } from 'twelvelabs-js';
import { TwelveLabs as TwelveLabsV0 } from 'twelvelabs-js-v0';
import { createSearchClient } from '@vus/clients';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { workerClient } from './videos-worker';

let stack: IndexingStack;
let files: FileServer;
let dir: string;
let key: string;
let catPath: string;
let tonePath: string;
let videoPath: string;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;
const api = () => request(stack.url);
const vector = (values: readonly number[] | undefined) => Float32Array.from(values ?? []);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'embed-e2e-'));
  tonePath = join(dir, 'tone.wav');
  [stack, catPath] = await Promise.all([
    startIndexingStack({ embed: true, database: 'pglite' }),
    photoPath('cat'),
    runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=12', tonePath]),
  ]);
  // A cat photo for 4 s, then the word MOTORBIKE for 4 s (the same fixture as embed-service's task test).
  videoPath = (
    await generateVideo('embed-cat-motorbike', {
      width: 640,
      height: 360,
      fps: 10,
      audio: 'none',
      container: 'mp4',
      scenes: [
        { durationSec: 4, background: '0x1f3b73', photos: ['cat'] },
        { durationSec: 4, background: '0xf4f1ea', texts: [{ text: 'MOTORBIKE', y: 160, fontSize: 64 }] },
      ],
    })
  ).path;
  files = await serveFiles({ 'cat.png': catPath, 'tone.wav': tonePath, 'video.mp4': videoPath });
  ({ key } = await stack.newOrg());
}, 120_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await files?.close();
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('twelvelabs-js 1.3.4 (v1.3)', () => {
  let client: TwelveLabsV1;
  beforeEach(() => {
    process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
    client = new TwelveLabsV1({ apiKey: key });
  });

  it('embed.v2.create text: one 512-value vector for marengo3.0', async () => {
    const res = await client.embed.v2.create({ inputType: 'text', modelName: 'marengo3.0', text: { inputText: 'a kitten among leaves' } });
    expect(res.data).toHaveLength(1);
    expect(res.data[0]!.embedding).toHaveLength(512);
  });

  it('embed.v2.create image by base64 and by URL: the same vector, near "cat" and far from "motorcycle"', async () => {
    const base64String = (await readFile(catPath)).toString('base64');
    const byBase64 = await client.embed.v2.create({
      inputType: 'image',
      modelName: 'marengo3.0',
      image: { mediaSource: { base64String } },
    });
    const byUrl = await client.embed.v2.create({
      inputType: 'image',
      modelName: 'marengo3.0',
      image: { mediaSource: { url: files.url('cat.png') } },
    });
    expect(byUrl.data[0]!.embedding).toEqual(byBase64.data[0]!.embedding);
    expect(byUrl.metadata).toMatchObject({ inputType: 'image', inputUrl: files.url('cat.png') });
    const text = async (inputText: string) =>
      vector((await client.embed.v2.create({ inputType: 'text', modelName: 'marengo3.0', text: { inputText } })).data[0]!.embedding);
    const image = vector(byBase64.data[0]!.embedding);
    expect(cosine(await text('cat'), image)).toBeGreaterThan(cosine(await text('motorcycle'), image) + 0.3);
  }, 60_000);

  it('embed.v2.create text_image and multi_input: one fused vector', async () => {
    const res = await client.embed.v2.create({
      inputType: 'text_image',
      modelName: 'marengo3.0',
      textImage: { inputText: 'a cat', mediaSource: { url: files.url('cat.png') } },
    });
    expect(res.data).toHaveLength(1);
    expect(res.data[0]!.embedding).toHaveLength(512);
    const multi = await client.embed.v2.create({
      inputType: 'multi_input',
      modelName: 'marengo3.0',
      multiInput: { inputText: 'a cat', mediaSources: [{ mediaType: 'image', url: files.url('cat.png') }] },
    });
    expect(multi.data[0]!.embedding).toEqual(res.data[0]!.embedding);
  }, 60_000);

  it('embed.v2.create multi_input with several images: one vector of the text and every image; references and limits checked', async () => {
    const cat = { mediaType: 'image' as const, url: files.url('cat.png') };
    const frame = await runFfmpeg(['-i', videoPath, '-ss', '5', '-frames:v', '1', join(dir, 'motorbike.png')]).then(() =>
      readFile(join(dir, 'motorbike.png')),
    );
    const motorbike = { mediaType: 'image' as const, base64String: frame.toString('base64'), name: 'ride' };
    const both = await client.embed.v2.create({
      inputType: 'multi_input',
      modelName: 'marengo3.0',
      multiInput: { inputText: 'a cat beside <@ride>', mediaSources: [cat, motorbike] },
    });
    expect(both.data).toHaveLength(1);
    const fused = vector(both.data[0]!.embedding);
    const alone = vector(
      (
        await client.embed.v2.create({
          inputType: 'multi_input',
          modelName: 'marengo3.0',
          multiInput: { inputText: 'a cat', mediaSources: [cat] },
        })
      ).data[0]!.embedding,
    );
    const text = async (inputText: string) =>
      vector((await client.embed.v2.create({ inputType: 'text', modelName: 'marengo3.0', text: { inputText } })).data[0]!.embedding);
    // The second image counts: the fused vector is nearer "motorbike" than the text and the cat alone are.
    expect(cosine(await text('motorbike'), fused)).toBeGreaterThan(cosine(await text('motorbike'), alone));
    const imagesOnly = await client.embed.v2.create({
      inputType: 'multi_input',
      modelName: 'marengo3.0',
      multiInput: { mediaSources: [cat, motorbike] },
    });
    expect(imagesOnly.data).toHaveLength(1);
    const v2 = (multi_input: object) =>
      api().post('/v1.3/embed-v2').set('x-api-key', key).send({ input_type: 'multi_input', model_name: 'marengo3.0', multi_input });
    const source = { media_type: 'image', url: files.url('cat.png') };
    for (const [multi, status, code] of [
      [{ input_text: 'a cat and <@dog>', media_sources: [source] }, 400, 'parameter_invalid'],
      [{ media_sources: Array.from({ length: 11 }, () => source) }, 400, 'parameter_invalid'],
      [{ media_sources: [source, { media_type: 'video', url: files.url('video.mp4') }] }, 501, 'not_implemented'],
    ] as const) {
      const res = await v2(multi);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
  }, 60_000);

  it('embed.v2.create audio: clip segments with their times, and the asset', async () => {
    const base64String = (await readFile(tonePath)).toString('base64');
    const res = await client.embed.v2.create({
      inputType: 'audio',
      modelName: 'marengo3.0',
      audio: {
        mediaSource: { base64String },
        startSec: 2,
        segmentation: { strategy: 'fixed', fixed: { durationSec: 5 } },
        embeddingScope: ['clip', 'asset'],
      },
    });
    expect(res.data.map((d) => [d.embeddingScope, d.startSec, d.endSec])).toEqual([
      ['clip', 2, 7],
      ['clip', 7, 12],
      ['asset', 2, 12],
    ]);
    expect(res.data.every((d) => d.embeddingOption === 'audio' && d.embedding.length === 512)).toBe(true);
  }, 60_000);

  it('embed.v2.create video by base64: clips and the asset per option, as a task embeds them', async () => {
    const base64String = (await readFile(videoPath)).toString('base64');
    const res = await client.embed.v2.create({
      inputType: 'video',
      modelName: 'marengo3.0',
      video: { mediaSource: { base64String }, embeddingOption: ['visual'], segmentation: { strategy: 'fixed', fixed: { durationSec: 4 } } },
    });
    expect(
      res.data.map((d) => [d.embeddingOption, d.embeddingScope, d.startSec, Math.round((d.endSec ?? 0) * 10) / 10, d.embedding.length]),
    ).toEqual([
      ['visual', 'clip', 0, 4, 512],
      ['visual', 'clip', 4, 8, 512],
      ['visual', 'asset', 0, 8, 512],
    ]);
    expect(res.metadata).toMatchObject({ inputType: 'video' });
    const text = async (inputText: string) =>
      vector((await client.embed.v2.create({ inputType: 'text', modelName: 'marengo3.0', text: { inputText } })).data[0]!.embedding);
    const [cat, motorbike] = [vector(res.data[0]!.embedding), vector(res.data[1]!.embedding)];
    expect(cosine(await text('cat'), cat)).toBeGreaterThan(cosine(await text('cat'), motorbike));
    // By default: seen and heard (this video is silent), clips of 6 s and the asset.
    const both = await api()
      .post('/v1.3/embed-v2')
      .set('x-api-key', key)
      .send({ input_type: 'video', model_name: 'marengo3.0', video: { media_source: { url: files.url('video.mp4') } } })
      .expect(200);
    expect(
      both.body.data.map((d: { embedding_option: string; embedding_scope: string }) => `${d.embedding_option}/${d.embedding_scope}`),
    ).toEqual(['visual/clip', 'visual/clip', 'visual/asset', 'audio/clip', 'audio/clip', 'audio/asset']);
  }, 120_000);

  it('embed.v2.create refuses a video longer than 10 minutes, saying to use a task', async () => {
    const long = join(dir, 'long.mp4');
    await runFfmpeg(['-f', 'lavfi', '-i', 'color=c=blue:s=32x32:r=1:d=601', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', long]);
    const res = await api()
      .post('/v1.3/embed-v2')
      .set('x-api-key', key)
      .send({
        input_type: 'video',
        model_name: 'marengo3.0',
        video: { media_source: { base64_string: (await readFile(long)).toString('base64') } },
      });
    expect([res.status, res.body.error?.code]).toEqual([400, 'video_duration_too_long']);
    expect(res.body.error.message).toMatch(/601 s.*embed task/);
  }, 60_000);

  it("media_source.asset_id: an image, a video (sync and task) of the organization; another organization's asset is not found", async () => {
    const settled = async (id: string) => {
      for (;;) {
        const asset = await client.assets.retrieve(id);
        if (asset.status !== 'processing') return asset;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const image = await client.assets.create({ method: 'direct', file: createReadStream(catPath) });
    const video = await client.assets.create({ method: 'direct', file: createReadStream(videoPath) });
    expect(await settled(image.id!)).toMatchObject({ status: 'ready' });
    expect(await settled(video.id!)).toMatchObject({ status: 'ready' });
    const byAsset = await client.embed.v2.create({
      inputType: 'image',
      modelName: 'marengo3.0',
      image: { mediaSource: { assetId: image.id! } },
    });
    const byBase64 = await client.embed.v2.create({
      inputType: 'image',
      modelName: 'marengo3.0',
      image: { mediaSource: { base64String: (await readFile(catPath)).toString('base64') } },
    });
    expect(byAsset.data[0]!.embedding).toEqual(byBase64.data[0]!.embedding);
    const sync = await client.embed.v2.create({
      inputType: 'video',
      modelName: 'marengo3.0',
      video: { mediaSource: { assetId: video.id! }, embeddingOption: ['visual'], embeddingScope: ['asset'] },
    });
    expect(sync.data.map((d) => [d.embeddingScope, d.startSec])).toEqual([['asset', 0]]);
    const created = await client.embed.v2.tasks.create({
      inputType: 'video',
      modelName: 'marengo3.0',
      video: { mediaSource: { assetId: video.id! }, embeddingOption: ['visual'], embeddingScope: ['asset'] },
    });
    let task = await client.embed.v2.tasks.retrieve(created.id);
    while (task.status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, 300));
      task = await client.embed.v2.tasks.retrieve(created.id);
    }
    expect(task.data?.[0]?.embedding).toEqual(sync.data[0]!.embedding);
    // An image is no video.
    const wrong = await api()
      .post('/v1.3/embed-v2')
      .set('x-api-key', key)
      .send({ input_type: 'video', model_name: 'marengo3.0', video: { media_source: { asset_id: image.id } } });
    expect([wrong.status, wrong.body.error?.code]).toEqual([400, 'parameter_invalid']);
    const { key: otherKey } = await stack.newOrg();
    for (const [path, body] of [
      ['/v1.3/embed-v2', { input_type: 'image', model_name: 'marengo3.0', image: { media_source: { asset_id: image.id } } }],
      ['/v1.3/embed-v2/tasks', { input_type: 'video', model_name: 'marengo3.0', video: { media_source: { asset_id: video.id } } }],
    ] as const) {
      const other = await api().post(path).set('x-api-key', otherKey).send(body);
      expect([other.status, other.body.error?.code]).toEqual([404, 'resource_not_exist']);
    }
  }, 180_000);

  it('embed.create (legacy): text, image file and audio file under model_name', async () => {
    const text = await client.embed.create({ modelName: 'Marengo-retrieval-2.7', text: 'a cat' });
    expect(text.modelName).toBe('Marengo-retrieval-2.7');
    expect(text.textEmbedding?.segments?.[0]?.float).toHaveLength(1024);
    const image = await client.embed.create({ modelName: 'Marengo-retrieval-2.7', imageFile: createReadStream(catPath) });
    expect(image.imageEmbedding?.segments?.[0]?.float).toHaveLength(1024);
    expect(cosine(vector(text.textEmbedding?.segments?.[0]?.float), vector(image.imageEmbedding?.segments?.[0]?.float))).toBeGreaterThan(
      0.5,
    );
    const audio = await client.embed.create({
      modelName: 'Marengo-retrieval-2.7',
      audioFile: createReadStream(tonePath),
      audioStartOffsetSec: 1,
    });
    expect(audio.audioEmbedding?.segments?.map((s) => [s.startOffsetSec, s.endOffsetSec])).toEqual([
      [1, 11],
      [11, 12],
    ]);
  }, 60_000);
});

describe('embed tasks', () => {
  it('twelvelabs-js 1.3.4 embed.tasks: create by URL, waitForDone, retrieve — a clip per 4 s and the video, listed', async () => {
    process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
    const client = new TwelveLabsV1({ apiKey: key });
    const created = await client.embed.tasks.create({
      modelName: 'Marengo-retrieval-2.7',
      videoUrl: files.url('video.mp4'),
      videoClipLength: 4,
      videoEmbeddingScope: ['clip', 'video'],
    });
    const done = await client.embed.tasks.waitForDone(created.id!, { sleepInterval: 0.3 });
    expect(done.status).toBe('ready');
    const task = await client.embed.tasks.retrieve(created.id!, { embeddingOption: ['visual-text'] });
    expect(task.createdAt).toBeInstanceOf(Date);
    const segments = task.videoEmbedding?.segments ?? [];
    expect(new Set(segments.map((s) => s.embeddingOption))).toEqual(new Set(['visual-text']));
    expect(segments.map((s) => [s.embeddingScope, s.startOffsetSec, Math.round((s.endOffsetSec ?? 0) * 10) / 10])).toEqual([
      ['clip', 0, 4],
      ['clip', 4, 8],
      ['video', 0, 8],
    ]);
    // The clip that shows the cat is the one nearest "cat"; the one that reads MOTORBIKE is nearest "motorcycle".
    const text = async (value: string) =>
      vector((await client.embed.create({ modelName: 'Marengo-retrieval-2.7', text: value })).textEmbedding?.segments?.[0]?.float);
    const [catClip, motorbikeClip] = segments.map((s) => vector(s.float));
    const [cat, motorcycle] = [await text('cat'), await text('motorcycle')];
    expect(cosine(cat, catClip!)).toBeGreaterThan(cosine(cat, motorbikeClip!));
    expect(cosine(motorcycle, motorbikeClip!)).toBeGreaterThan(cosine(motorcycle, catClip!));
    // By default a video is embedded as heard too: this one has no sound, so its audio clips are silence.
    const all = (await client.embed.tasks.retrieve(created.id!)).videoEmbedding?.segments ?? [];
    expect(all.map((s) => [s.embeddingOption, s.embeddingScope])).toEqual([
      ['visual-text', 'clip'],
      ['visual-text', 'clip'],
      ['visual-text', 'video'],
      ['audio', 'clip'],
      ['audio', 'clip'],
      ['audio', 'video'],
    ]);
    const silence = vector(all[3]!.float);
    expect(cosine(await text('silence'), silence)).toBeGreaterThan(cosine(cat, silence));
    const listed: string[] = [];
    for await (const item of await client.embed.tasks.list()) listed.push(item.id!);
    expect(listed).toContain(created.id);
  }, 180_000);

  it('twelvelabs-js 0.2.8 embed.task: create by file upload, waitForDone, the early v1.2 shape too', async () => {
    process.env.TWELVELABS_BASE_URL = stack.url;
    const client = new TwelveLabsV0({ apiKey: key, version: 'v1.2' });
    const task = (await client.embed.task.create('Marengo-retrieval-2.6', { file: createReadStream(videoPath), clipLength: 8 }))!;
    await task.waitForDone(300);
    expect(task.status).toBe('ready');
    const done = await client.embed.task.retrieve(task.id);
    expect(done.engineName).toBe('Marengo-retrieval-2.6');
    const early = (await api().get(`/v1.2/embed/tasks/${task.id}`).set('x-api-key', key)).body;
    expect(early.video_embeddings).toHaveLength(2);
    expect(early.video_embedding.segments.map((s: { embedding_option: string }) => s.embedding_option)).toEqual(['visual-text', 'audio']);
    expect(early.video_embeddings[0].embedding.float).toHaveLength(1024);
    expect(early.video_embedding.segments[0].float).toEqual(early.video_embeddings[0].float);
  }, 180_000);

  it('twelvelabs-js 1.3.4 embed.v2.tasks: create by URL (202), retrieve until ready, list — clips and the asset', async () => {
    process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
    const client = new TwelveLabsV1({ apiKey: key });
    const created = await client.embed.v2.tasks.create({
      inputType: 'video',
      modelName: 'marengo3.0',
      video: {
        mediaSource: { url: files.url('video.mp4') },
        embeddingOption: ['visual', 'audio'],
        embeddingType: ['separate_embedding', 'fused_embedding'],
      },
    });
    expect(created.status).toBe('processing');
    let task = await client.embed.v2.tasks.retrieve(created.id);
    for (let i = 0; i < 300 && task.status === 'processing'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      task = await client.embed.v2.tasks.retrieve(created.id);
    }
    expect(task.status).toBe('ready');
    const data = task.data ?? [];
    expect(
      data
        .filter((d) => d.embeddingOption === 'visual')
        .map((d) => [d.embeddingScope, d.startSec, Math.round((d.endSec ?? 0) * 10) / 10, d.embedding.length]),
    ).toEqual([
      ['clip', 0, 6, 512],
      ['clip', 6, 8, 512],
      ['asset', 0, 8, 512],
    ]);
    // Separate and fused: each option's three vectors, then three of both options together.
    expect(data.map((d) => d.embeddingOption)).toEqual([
      'visual',
      'visual',
      'visual',
      'audio',
      'audio',
      'audio',
      'fused',
      'fused',
      'fused',
    ]);
    const listed: (string | undefined)[] = [];
    for await (const item of await client.embed.v2.tasks.list()) listed.push(item.id);
    expect(listed).toContain(created.id);
  }, 180_000);

  it.each([
    ['a clip length out of range', { video_clip_length: '1' }, 'parameter_invalid'],
    ['no video', {}, 'parameter_not_provided'],
  ])('POST /embed/tasks refuses %s', async (_name, extra, code) => {
    const req = api().post('/v1.3/embed/tasks').set('x-api-key', key).field('model_name', 'Marengo-retrieval-2.7');
    for (const [name, value] of Object.entries(extra)) req.field(name, value);
    if (Object.keys(extra).length > 0) req.field('video_url', files.url('video.mp4'));
    const res = await req;
    expect([res.status, res.body.code]).toEqual([400, code]);
  });

  it('twelvelabs-js 1.3.4 embed.v2.tasks audio by URL: 10 s clips and the asset, heard as sound; transcription needs a recogniser', async () => {
    process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
    const client = new TwelveLabsV1({ apiKey: key });
    const waitDone = async (id: string) => {
      let task = await client.embed.v2.tasks.retrieve(id);
      for (let i = 0; i < 300 && task.status === 'processing'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        task = await client.embed.v2.tasks.retrieve(id);
      }
      return task;
    };
    const created = await client.embed.v2.tasks.create({
      inputType: 'audio',
      modelName: 'marengo3.0',
      audio: { mediaSource: { url: files.url('tone.wav') }, segmentation: { strategy: 'fixed', fixed: { durationSec: 10 } } },
    });
    const task = await waitDone(created.id);
    expect(task.status).toBe('ready');
    expect(task.metadata?.inputType).toBe('audio');
    expect(task.data?.map((d) => [d.embeddingOption, d.embeddingScope, d.startSec, Math.round((d.endSec ?? 0) * 10) / 10])).toEqual([
      ['audio', 'clip', 0, 10],
      ['audio', 'clip', 10, 12],
      ['audio', 'asset', 0, 12],
    ]);
    // This stack loads no speech recogniser: a transcription embedding fails, saying so.
    const transcribed = await client.embed.v2.tasks.create({
      inputType: 'audio',
      modelName: 'marengo3.0',
      audio: { mediaSource: { url: files.url('tone.wav') }, embeddingOption: ['transcription'] },
    });
    const failed = (await api().get(`/v1.3/embed-v2/tasks/${transcribed.id}`).set('x-api-key', key)).body;
    expect((await waitDone(transcribed.id)).status).toBe('failed');
    expect(failed._id).toBe(transcribed.id);
    const final = (await api().get(`/v1.3/embed-v2/tasks/${transcribed.id}`).set('x-api-key', key)).body;
    expect(final.error.message).toMatch(/speech recogniser/);
  }, 180_000);

  it("another organization's task does not exist for it", async () => {
    const created = await api()
      .post('/v1.3/embed/tasks')
      .set('x-api-key', key)
      .field('model_name', 'Marengo-retrieval-2.7')
      .field('video_url', files.url('video.mp4'));
    const other = await stack.newOrg();
    const res = await api().get(`/v1.3/embed/tasks/${created.body._id}`).set('x-api-key', other.key);
    expect([res.status, res.body.code]).toEqual([404, 'resource_not_exist']);
  });

  it('issue 28 item 8: no media is left in the blob store after a synchronous video, a finished task and failed ones', async () => {
    const org = await stack.newOrg();
    const left = () => {
      try {
        return readdirSync(join(stack.blobDir, 'embed-tasks', org.orgId));
      } catch {
        return [];
      }
    };
    const base64 = async (path: string) => (await readFile(path)).toString('base64');
    const notVideo = Buffer.from('this is not a video at all').toString('base64');
    const v2 = (path: string, body: object) => api().post(`/v1.3${path}`).set('x-api-key', org.key).send(body);
    const video = (base64_string: string) => ({
      input_type: 'video',
      model_name: 'marengo3.0',
      video: { media_source: { base64_string }, embedding_option: ['visual'] },
    });
    // Synchronous: embedded, or refused as not a video.
    expect((await v2('/embed-v2', video(await base64(videoPath)))).status).toBe(200);
    expect((await v2('/embed-v2', video(notVideo))).status).toBe(400);
    // Tasks: a v1.2 upload that is embedded, a v1.3 base64 that fails, a v1.2 upload that fails.
    const finished = await api()
      .post('/v1.2/embed/tasks')
      .set('x-api-key', org.key)
      .field('engine_name', 'Marengo-retrieval-2.6')
      .attach('video_file', videoPath)
      .expect(200);
    const failedV2 = await v2('/embed-v2/tasks', video(notVideo)).expect(202);
    const failedUpload = await api()
      .post('/v1.2/embed/tasks')
      .set('x-api-key', org.key)
      .field('engine_name', 'Marengo-retrieval-2.6')
      .attach('video_file', Buffer.from('not a video either'), 'broken.mp4')
      .expect(200);
    const statusOf = async (id: string) => {
      for (let i = 0; i < 600; i += 1) {
        const { status } = (await api().get(`/v1.3/embed-v2/tasks/${id}`).set('x-api-key', org.key)).body as { status: string };
        if (status !== 'processing') return status;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return 'processing';
    };
    expect(await statusOf(finished.body._id)).toBe('ready');
    expect(await statusOf(failedV2.body._id)).toBe('failed');
    expect(await statusOf(failedUpload.body._id)).toBe('failed');
    // A task's media is removed just after its status is written.
    for (let i = 0; i < 50 && left().length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(left()).toEqual([]);
  }, 180_000);
});

describe("a video's embeddings (GET …/videos/{id} with embedding_option, or embed=true in v1.2)", () => {
  // What indexing wrote for a 10 s video: a cat, then a motorbike with a title card, and two lines of speech.
  const segments = [
    { start: 0, end: 1, modality: 'visual', labels: ['cat'] },
    { start: 1, end: 2, modality: 'visual', labels: ['cat', 'couch'] },
    { start: 6, end: 8, modality: 'visual', labels: ['motorcycle'] },
    { start: 7, end: 9, modality: 'text_in_video', text: 'RACE DAY' },
    { start: 2, end: 5, modality: 'conversation', text: 'the sardines are packed in olive oil' },
    { start: 8, end: 10, modality: 'conversation', text: 'the rocket launched into space' },
  ];
  let orgId: string;
  let orgKey: string;
  let indexId: string;
  let videoId: string;

  beforeAll(async () => {
    ({ orgId, key: orgKey } = await stack.newOrg());
    const created = await api()
      .post('/v1.3/indexes')
      .set('x-api-key', orgKey)
      .send({ index_name: 'video-embeddings', models: [{ model_name: 'marengo2.7', model_options: ['visual', 'audio'] }] });
    indexId = created.body._id;
    const worker = workerClient(stack.indexService.address);
    const search = createSearchClient(stack.searchService.address);
    try {
      videoId = (await worker.createVideo(orgId, indexId, { duration: 10 })).id;
      await search.ingestSegments({ orgId }, { index_id: indexId, video_id: videoId, segments });
    } finally {
      worker.close();
      search.close();
    }
  });

  const text = async (words: string) =>
    vector(
      (await api().post('/v1.3/embed').set('x-api-key', orgKey).field('model_name', 'Marengo-retrieval-2.7').field('text', words)).body
        .text_embedding.segments[0].float,
    );

  it('twelvelabs-js 1.3.4: visual-text and audio clips of 6 s, in the space of /embed, near what each clip shows and says', async () => {
    process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
    const client = new TwelveLabsV1({ apiKey: orgKey });
    const video = await client.indexes.videos.retrieve(indexId, videoId, { embeddingOption: ['visual-text', 'audio'] });
    const clips = video.embedding?.videoEmbedding?.segments ?? [];
    expect(video.embedding?.modelName).toBe('Marengo-retrieval-2.7');
    expect(clips.map((c) => [c.embeddingOption, c.startOffsetSec, c.endOffsetSec, c.float?.length])).toEqual([
      ['visual-text', 0, 6, 1024],
      ['visual-text', 6, 10, 1024],
      ['audio', 0, 6, 1024],
      ['audio', 6, 10, 1024],
    ]);
    const [catClip, bikeClip, fishClip, spaceClip] = clips.map((c) => vector(c.float));
    const [cat, motorbike, fish, space] = await Promise.all(['cat', 'motorbike', 'fish', 'space'].map(text));
    expect(cosine(cat!, catClip!)).toBeGreaterThan(cosine(cat!, bikeClip!));
    expect(cosine(motorbike!, bikeClip!)).toBeGreaterThan(cosine(motorbike!, catClip!));
    expect(cosine(fish!, fishClip!)).toBeGreaterThan(cosine(fish!, spaceClip!));
    expect(cosine(space!, spaceClip!)).toBeGreaterThan(cosine(space!, fishClip!));
    expect((await client.indexes.videos.retrieve(indexId, videoId)).embedding).toBeUndefined();
  });

  it('twelvelabs-js 1.3.4: Marengo 3.0’s names (visual, audio, transcription), each clip labelled with the name asked', async () => {
    process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
    const client = new TwelveLabsV1({ apiKey: orgKey });
    const named = await client.indexes.videos.retrieve(indexId, videoId, { embeddingOption: ['visual', 'audio', 'transcription'] });
    const clips = named.embedding?.videoEmbedding?.segments ?? [];
    expect(clips.map((c) => [c.embeddingOption, c.startOffsetSec, c.endOffsetSec])).toEqual([
      ['visual', 0, 6],
      ['visual', 6, 10],
      ['audio', 0, 6],
      ['audio', 6, 10],
      ['transcription', 0, 6],
      ['transcription', 6, 10],
    ]);
    const legacy = await client.indexes.videos.retrieve(indexId, videoId, { embeddingOption: ['visual-text'] });
    expect(clips.slice(0, 2).map((c) => c.float)).toEqual(legacy.embedding?.videoEmbedding?.segments?.map((c) => c.float));
  });

  it('v1.2 embed=true: every option under engine_name; bad options and other organizations refused', async () => {
    const v12 = await api().get(`/v1.2/indexes/${indexId}/videos/${videoId}?embed=true`).set('x-api-key', orgKey);
    expect(v12.status).toBe(200);
    expect(v12.body.embedding.engine_name).toBe('Marengo-retrieval-2.7');
    expect(v12.body.embedding.video_embedding.segments).toHaveLength(4);
    const bad = await api().get(`/v1.3/indexes/${indexId}/videos/${videoId}?embedding_option=visual_text`).set('x-api-key', orgKey);
    expect([bad.status, bad.body.code]).toEqual([400, 'parameter_invalid']);
    const other = await stack.newOrg();
    const foreign = await api().get(`/v1.3/indexes/${indexId}/videos/${videoId}?embedding_option=audio`).set('x-api-key', other.key);
    expect(foreign.status).toBe(404);
  });
});

describe('twelvelabs-js 0.2.8 (v1.2)', () => {
  it('embed.create text: engine_name and text_embedding.float', async () => {
    process.env.TWELVELABS_BASE_URL = stack.url;
    const client = new TwelveLabsV0({ apiKey: key, version: 'v1.2' });
    const res = await client.embed.create({ engineName: 'Marengo-retrieval-2.6', text: 'a cat' });
    expect(res.engineName).toBe('Marengo-retrieval-2.6');
    expect(res.textEmbedding.float).toHaveLength(1024);
  });

  it('POST /v1.2/embed image and audio files (the 0.2.8 SDK sends text only): the later v1.2 shape', async () => {
    const res = await api()
      .post('/v1.2/embed')
      .set('x-api-key', key)
      .field('engine_name', 'Marengo-retrieval-2.6')
      .attach('image_file', catPath)
      .attach('audio_file', tonePath);
    expect(res.status).toBe(200);
    expect(res.body.engine_name).toBe('Marengo-retrieval-2.6');
    expect(res.body.image_embedding.segments[0].float).toHaveLength(1024);
    expect(res.body.audio_embedding.segments).toHaveLength(2);
  }, 60_000);
});

describe('bad input', () => {
  const legacy = (fields: Record<string, string>) => {
    const req = api().post('/v1.3/embed').set('x-api-key', key);
    for (const [name, value] of Object.entries(fields)) req.field(name, value);
    return req;
  };
  const v2 = (body: object) => api().post('/v1.3/embed-v2').set('x-api-key', key).send(body);

  it.each([
    ['no input', () => legacy({ model_name: 'Marengo-retrieval-2.7' }), 400, 'parameter_not_provided'],
    ['no model name', () => legacy({ text: 'cat' }), 400, 'parameter_not_provided'],
    ['an unknown model name', () => legacy({ model_name: 'Marengo-retrieval-9', text: 'cat' }), 400, 'parameter_invalid'],
    [
      'an image URL and an image file',
      () =>
        legacy({ model_name: 'Marengo-retrieval-2.7', image_url: 'http://example.com/a.png' }).attach(
          'image_file',
          Buffer.from('x'),
          'a.png',
        ),
      400,
      'parameter_invalid',
    ],
    [
      'a non-image image',
      () => legacy({ model_name: 'Marengo-retrieval-2.7' }).attach('image_file', Buffer.from('this is text, not an image'), 'a.png'),
      400,
      'unsupported_file_type',
    ],
    [
      'audio that is not audio',
      () => legacy({ model_name: 'Marengo-retrieval-2.7' }).attach('audio_file', Buffer.from('this is text, not audio'), 'a.mp3'),
      400,
      'audio_file_broken',
    ],
    [
      'a URL to a private address',
      () => legacy({ model_name: 'Marengo-retrieval-2.7', image_url: 'http://10.0.0.1/cat.png' }),
      400,
      'parameter_invalid',
    ],
    [
      'too long a text for Marengo 2.7',
      () => legacy({ model_name: 'Marengo-retrieval-2.7', text: 'word '.repeat(100), text_truncate: 'none' }),
      400,
      'token_limit_exceeded',
    ],
  ])(
    'POST /embed refuses %s',
    async (_name, send, status, code) => {
      const res = await send();
      expect([res.status, res.body.code]).toEqual([status, code]);
    },
    30_000,
  );

  it.each([
    ['no input_type', { model_name: 'marengo3.0' }, 400, 'parameter_not_provided'],
    ['an unknown model name', { input_type: 'text', model_name: 'marengo9', text: { input_text: 'cat' } }, 400, 'parameter_invalid'],
    [
      'two media sources where one is allowed',
      {
        input_type: 'image',
        model_name: 'marengo3.0',
        image: { media_source: { url: 'http://example.com/a.png', base64_string: 'aGk=' } },
      },
      400,
      'parameter_invalid',
    ],
    ['no media source', { input_type: 'image', model_name: 'marengo3.0', image: { media_source: {} } }, 400, 'parameter_not_provided'],
    [
      'base64 that is not base64',
      { input_type: 'image', model_name: 'marengo3.0', image: { media_source: { base64_string: '***' } } },
      400,
      'parameter_invalid',
    ],
    [
      'a non-image image',
      {
        input_type: 'image',
        model_name: 'marengo3.0',
        image: { media_source: { base64_string: Buffer.from('not an image').toString('base64') } },
      },
      400,
      'unsupported_file_type',
    ],
    [
      'a URL to a private address',
      { input_type: 'image', model_name: 'marengo3.0', image: { media_source: { url: 'http://192.168.1.1/cat.png' } } },
      400,
      'parameter_invalid',
    ],
    [
      'audio that is not audio',
      {
        input_type: 'audio',
        model_name: 'marengo3.0',
        audio: { media_source: { base64_string: Buffer.from('not audio at all').toString('base64') } },
      },
      400,
      'audio_file_broken',
    ],
    [
      'a video URL to a private address',
      { input_type: 'video', model_name: 'marengo3.0', video: { media_source: { url: 'http://192.168.1.1/a.mp4' } } },
      400,
      'parameter_invalid',
    ],
    [
      'an asset id that is no id',
      { input_type: 'image', model_name: 'marengo3.0', image: { media_source: { asset_id: 'nope' } } },
      404,
      'resource_not_exist',
    ],
  ])(
    'POST /embed-v2 refuses %s with {error: {code, message}}',
    async (_name, body, status, code) => {
      const res = await v2(body);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
      expect(res.body.error.message).toEqual(expect.any(String));
    },
    30_000,
  );

  it('/embed-v2 is v1.3 only; an audio task has no visual option', async () => {
    const old = await api()
      .post('/v1.2/embed-v2')
      .set('x-api-key', key)
      .send({ input_type: 'text', model_name: 'marengo3.0', text: { input_text: 'cat' } });
    expect([old.status, old.body.error?.code]).toEqual([400, 'api_upgrade_required']);
    const audio = await api()
      .post('/v1.3/embed-v2/tasks')
      .set('x-api-key', key)
      .send({
        input_type: 'audio',
        model_name: 'marengo3.0',
        audio: { media_source: { url: files.url('tone.wav') }, embedding_option: ['visual'] },
      });
    expect([audio.status, audio.body.error?.code]).toEqual([400, 'parameter_invalid']);
  });
});
