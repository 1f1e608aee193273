/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Classify end to end: three generated videos are indexed by the real worker (the COCO detector,
 * OCR), then classified through twelvelabs-js 0.2.8 (v1.2) and raw HTTP in the v1.1 and v1.1.1
 * shapes. What each shows is known: `pet` a kitten from 3 s to 9 s (cells under a microscope
 * before), `phone` a smartphone from 0 s to 4 s (cells after), `words` the words ORANGE 0–4 s,
 * PLANET 4–8 s, GARDEN 6–8 s and BICYCLE 8–12 s on screen.
 */
import { generateVideo, wordsAndSubtitlesVideo, type GeneratedVideo } from '@vus/testing';
import request from 'supertest';
import { TwelveLabs } from 'twelvelabs-js-v0';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';
import { workerClient } from './videos-worker';

/** twelvelabs-js 0.2.8 does not export its classify models: their shapes by the method's answer. */
type ClassifyVideoData = Awaited<ReturnType<TwelveLabs['classify']['videos']>>['data'][number];
type ClassifyClass = ClassifyVideoData['classes'][number];

let stack: IndexingStack;
// The SDK and raw HTTP talk through it: their answers are checked against the OpenAPI documents at the end.
let recorder: RecordingProxy;
let key: string;
let orgId: string;
let client: TwelveLabs;
let indexId: string;
let visualOnlyIndexId: string;
const videoIds = { pet: '', phone: '', words: '' };
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;
const api = () => request(recorder.url);

const CLASSES = [
  { name: 'Pets', prompts: ['cat', 'kitten'] },
  { name: 'Gadgets', prompts: ['cell phone', 'smartphone'] },
  { name: 'Outdoors', prompts: ['garden', 'bicycle'] },
  // Half of its words are seen (the cat): a weaker class, for the thresholds to tell apart.
  { name: 'Sleepy animals', prompts: ['sleeping cat'] },
];
const TRUE_CLASS: Record<keyof typeof videoIds, string> = { pet: 'Pets', phone: 'Gadgets', words: 'Outdoors' };
/** Where each video's true class is, in seconds. */
const TRUE_MOMENTS: Record<keyof typeof videoIds, [number, number][]> = {
  pet: [[3, 9]],
  phone: [[0, 4]],
  words: [
    [6, 8],
    [8, 12],
  ],
};

/** Within a second of the truth (frames are sampled once a second). */
const near = (value: number, truth: number) => Math.abs(value - truth) <= 1;

function fixtures(): Promise<GeneratedVideo[]> {
  const base = { width: 1280, height: 720, fps: 25, audio: 'tone', container: 'mp4' } as const;
  return Promise.all([
    generateVideo('classify-pet', {
      ...base,
      scenes: [
        { durationSec: 3, background: '0xf5f5f5', photos: ['cells'] },
        { durationSec: 6, background: '0x37474f', photos: ['cat'] },
      ],
    }),
    generateVideo('classify-phone', {
      ...base,
      scenes: [
        { durationSec: 4, background: '0xe0e0e0', photos: ['phone'] },
        { durationSec: 4, background: '0xf5f5f5', photos: ['cells'] },
      ],
    }),
    wordsAndSubtitlesVideo(),
  ]);
}

const nameOf = (entry: [string, string]) => entry[0] as keyof typeof videoIds;
const videoNamed = (id: string) => nameOf(Object.entries(videoIds).find(([, value]) => value === id) as [string, string]);

beforeAll(async () => {
  let videos: GeneratedVideo[];
  [stack, videos] = await Promise.all([startIndexingStack({ worker: true, classify: true }), fixtures()]);
  ({ key, orgId } = await stack.newOrg());
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = recorder.url;
  client = new TwelveLabs({ apiKey: key, version: 'v1.2' });
  indexId = (
    await client.index.create({
      name: 'classify',
      engines: [{ name: 'marengo2.6', options: ['visual', 'conversation', 'text_in_video'] }],
      addons: ['thumbnail'],
    })
  ).id;
  visualOnlyIndexId = (await client.index.create({ name: 'classify visual', engines: [{ name: 'marengo2.6', options: ['visual'] }] })).id;
  const names = Object.keys(videoIds) as (keyof typeof videoIds)[];
  for (const [i, name] of names.entries()) {
    const task = await client.task.create({ indexId, file: videos[i]!.path });
    expect((await task.waitForDone(300)).status).toBe('ready');
    videoIds[name] = ((await client.task.retrieve(task.id)) as unknown as { videoId: string }).videoId;
  }
}, 300_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await recorder?.stop();
  await stack?.stop();
});
beforeEach(() => {
  process.env.TWELVELABS_BASE_URL = recorder.url;
});

/** The class a video shows most, by the classification's own order. */
const topClass = (video: ClassifyVideoData | undefined) => video?.classes[0]?.name;

describe('twelvelabs-js 0.2.8 (v1.2)', () => {
  it('classify.videos: each video’s top class is the one it shows, with clips at the right moments and detailed scores', async () => {
    const result = await client.classify.videos({
      videoIds: Object.values(videoIds),
      classes: CLASSES,
      options: ['visual', 'text_in_video'],
      conversationOption: 'semantic',
      includeClips: true,
      showDetailedScore: true,
      pageLimit: 10,
      threshold: { min_video_score: 1, min_clip_score: 1, min_duration_ratio: 0.01 },
    });
    expect(result.data.map((v) => v.videoId).sort()).toEqual(Object.values(videoIds).sort());
    for (const video of result.data) {
      const name = videoNamed(video.videoId);
      expect([name, topClass(video)]).toEqual([name, TRUE_CLASS[name]]);
      const top = video.classes[0]!;
      expect(top.detailedScores).toMatchObject({ normalizedScore: 100 });
      expect(top.detailedScores!.maxScore).toBeGreaterThanOrEqual(top.detailedScores!.avgScore);
      // Every clip of the true class lies on one of its true moments, and each moment is found.
      for (const clip of top.clips!) {
        expect(TRUE_MOMENTS[name].some(([start, end]) => clip.start >= start - 1 && clip.end <= end + 1)).toBe(true);
        expect(top.name === 'Outdoors' ? clip.option : 'visual').toBe(clip.option);
        expect(clip.thumbnailUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/thumbnails\//);
      }
      for (const [start, end] of TRUE_MOMENTS[name]) expect(top.clips!.some((c) => near(c.start, start) && near(c.end, end))).toBe(true);
    }
    // The half-seen class comes second, relative to the best.
    const pet = result.data.find((v) => v.videoId === videoIds.pet)!;
    expect(pet.classes.map((c) => c.name)).toEqual(['Pets', 'Sleepy animals']);
    expect(pet.classes[1]!.detailedScores!.normalizedScore).toBeLessThan(100);
    // A clip's thumbnail is a frame of its video (signed for its index).
    const thumbnail = await fetch(pet.classes[0]!.clips![0]!.thumbnailUrl!);
    expect([thumbnail.status, thumbnail.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    const words = result.data.find((v) => v.videoId === videoIds.words)!;
    expect(words.classes[0]!.clips!.map((c) => c.prompt).sort()).toEqual(['bicycle', 'garden']);
    expect(words.classes[0]!.clips!.every((c) => c.option === 'text_in_video')).toBe(true);
  });

  it('answers without clips and detailed scores unless asked', async () => {
    const result = await client.classify.videos({ videoIds: [videoIds.pet], classes: CLASSES, options: ['visual'] });
    expect(Object.keys(result.data[0]!.classes[0]!).sort()).toEqual(['durationRatio', 'name', 'score']);
  });

  it('thresholds remove the classes below them, and videos left without any', async () => {
    const all = await client.classify.videos({
      videoIds: Object.values(videoIds),
      classes: CLASSES,
      options: ['visual', 'text_in_video'],
      includeClips: true,
    });
    const classes = all.data.flatMap((v) => v.classes.map((c) => ({ video: v.videoId, ...c })));
    const survivors = async (threshold: Record<string, number>) => {
      const result = await client.classify.videos({
        videoIds: Object.values(videoIds),
        classes: CLASSES,
        options: ['visual', 'text_in_video'],
        includeClips: true,
        threshold,
      });
      return result.data.flatMap((v) => v.classes.map((c) => `${v.videoId}:${c.name}`)).sort();
    };
    const keys = (list: { video: string; name: string }[]) => list.map((c) => `${c.video}:${c.name}`).sort();
    const between = (values: number[]) => {
      const distinct = [...new Set(values)].sort((a, b) => a - b);
      expect(distinct.length).toBeGreaterThan(1);
      return (distinct[0]! + distinct[1]!) / 2;
    };
    // min_video_score: a class scoring below it goes (the half-seen sleeping cat).
    const cut = between(classes.map((c) => c.score));
    const kept = keys(classes.filter((c) => c.score >= cut));
    expect(kept.length).toBeLessThan(classes.length);
    expect(await survivors({ min_video_score: cut })).toEqual(kept);
    // min_duration_ratio: a class covering less of its video goes (the kitten covers 6 of 9 s).
    expect(await survivors({ min_duration_ratio: 0.6 })).toEqual(keys(classes.filter((c) => c.durationRatio >= 0.6)));
    expect(classes.find((c) => c.video === videoIds.pet && c.name === 'Pets')!.durationRatio).toBeGreaterThanOrEqual(0.6);
    // min_clip_score: a class keeps only its clips at or above it, and goes without any.
    const clipCut = between(classes.flatMap((c: ClassifyClass) => c.clips!.map((clip) => clip.score)));
    expect(await survivors({ min_clip_score: clipCut })).toEqual(
      keys(classes.filter((c) => c.clips!.some((clip) => clip.score >= clipCut))),
    );
    expect(await survivors({ min_clip_score: 100, min_duration_ratio: 1 })).toEqual([]);
  });

  it('classify.index: the whole index by pages; page 2 is disjoint from page 1 and the pages make the whole', async () => {
    const first = await client.classify.index({
      indexId,
      classes: CLASSES,
      options: ['visual', 'text_in_video'],
      pageLimit: 2,
      includeClips: true,
      showDetailedScore: true,
    });
    expect(first.data).toHaveLength(2);
    expect(first.pageInfo).toMatchObject({ limitPerPage: 2, totalResults: 3 });
    const second = await client.classify.byPageToken(first.pageInfo.nextPageToken!);
    expect(second.data).toHaveLength(1);
    const pageIds = [first.data.map((v) => v.videoId), second.data.map((v) => v.videoId)];
    expect(pageIds[0]!.filter((id) => pageIds[1]!.includes(id))).toEqual([]);
    expect(pageIds.flat().sort()).toEqual(Object.values(videoIds).sort());
    // Later pages keep what the request asked for.
    expect(second.data[0]!.classes[0]!.detailedScores).toBeDefined();
    expect(second.data[0]!.classes[0]!.clips!.length).toBeGreaterThan(0);
    for (const video of [...first.data, ...second.data]) expect(topClass(video)).toBe(TRUE_CLASS[videoNamed(video.videoId)]);
  });

  it('a class’s own options narrow its prompts’ searches', async () => {
    const result = await client.classify.videos({
      videoIds: [videoIds.words, videoIds.pet],
      classes: [
        { name: 'Outdoors', prompts: ['garden'], options: ['visual'] },
        { name: 'Pets', prompts: ['cat'] },
      ],
      options: ['visual', 'text_in_video'],
    });
    // "garden" is only written on screen: through visual alone it is not found.
    expect(result.data.flatMap((v) => v.classes.map((c) => c.name))).toEqual(['Pets']);
  });
});

describe('raw HTTP: the older shapes', () => {
  it('v1.1: labels and one video_id, answered as {video_id, labels}', async () => {
    const res = await api()
      .post('/v1.1/classify')
      .set('x-api-key', key)
      .send({ video_id: videoIds.phone, labels: CLASSES, options: ['visual'], threshold: 'low', include_clips: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['labels', 'video_id']);
    expect(res.body.video_id).toBe(videoIds.phone);
    expect(res.body.labels[0]).toMatchObject({ name: 'Gadgets', score: expect.any(Number), duration_ratio: expect.any(Number) });
    expect(res.body.labels[0].clips[0]).toMatchObject({ option: 'visual', prompt: expect.any(String) });
  });

  it('v1.1.1: classes and one video_id, unwrapped, threshold an integer', async () => {
    const res = await api()
      .post('/v1.1.1/classify')
      .set('x-api-key', key)
      .send({ video_id: videoIds.pet, classes: CLASSES, options: ['visual'], threshold: 1 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['classes', 'video_id']);
    expect(res.body.classes[0]).toEqual({ name: 'Pets', score: expect.any(Number), duration_ratio: expect.any(Number) });
  });

  it('v1.1.2: video_ids and the paged envelope', async () => {
    const res = await api()
      .post('/v1.1.2/classify')
      .set('x-api-key', key)
      .send({ video_ids: [videoIds.pet, videoIds.phone], classes: CLASSES, options: ['visual'], page_limit: 1 });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.page_info).toMatchObject({ limit_per_page: 1, total_results: 2, next_page_token: expect.any(String) });
  });

  it('v1 has no classify yet, v1.3 none any more: api_upgrade_required', async () => {
    const body = { video_ids: [videoIds.pet], classes: CLASSES, options: ['visual'] };
    const [v1, v13] = await Promise.all([
      api().post('/v1/classify').set('x-api-key', key).send(body),
      api().post('/v1.3/classify/bulk').set('x-api-key', key).send(body),
    ]);
    expect([v1.status, v1.body.error_code]).toEqual([400, 'api_upgrade_required']);
    expect([v13.status, v13.body.code]).toEqual([400, 'api_upgrade_required']);
    expect(v13.body.message).toMatch(/v1\.2/);
  });
});

describe('bad input', () => {
  const classify = (body: Record<string, unknown>, path = '/v1.2/classify', apiKey = key) =>
    api().post(path).set('x-api-key', apiKey).send(body);
  const base = () => ({ video_ids: [videoIds.pet], classes: CLASSES, options: ['visual'] });

  it.each([
    ['no classes', { classes: [] }, 'parameter_not_provided'],
    ['a class without prompts', { classes: [{ name: 'A', prompts: [] }] }, 'parameter_invalid'],
    ['an empty prompt', { classes: [{ name: 'A', prompts: ['cat', ''] }] }, 'parameter_invalid'],
    ['more than 100 prompts', { classes: [{ name: 'A', prompts: Array.from({ length: 101 }, (_, i) => `p${i}`) }] }, 'parameter_invalid'],
    ['an unknown option', { options: ['smell'] }, 'parameter_invalid'],
    ['an unknown class option', { classes: [{ name: 'A', prompts: ['cat'], options: ['smell'] }] }, 'parameter_invalid'],
    ['no options', { options: [] }, 'parameter_not_provided'],
    ['no videos', { video_ids: [] }, 'parameter_not_provided'],
    ['a threshold out of range', { threshold: { min_duration_ratio: 2 } }, 'parameter_invalid'],
  ])('%s: 400 %s', async (_case, change, code) => {
    const res = await classify({ ...base(), ...change });
    expect([res.status, res.body.code]).toEqual([400, code]);
  });

  it('options the index was not built with', async () => {
    const res = await classify({ index_id: visualOnlyIndexId, classes: CLASSES, options: ['text_in_video'] }, '/v1.2/classify/bulk');
    expect([res.status, res.body.code]).toEqual([400, 'search_option_not_supported']);
  });

  it('more than 10 hours of video in all', async () => {
    const worker = workerClient(stack.indexService.address);
    try {
      const long = await worker.createVideo(orgId, indexId, { filename: 'long.mp4', duration: 36_000 });
      const res = await classify({ ...base(), video_ids: [videoIds.pet, long.id] });
      expect([res.status, res.body.code]).toEqual([400, 'parameter_invalid']);
      expect(res.body.message).toMatch(/10 hours/);
    } finally {
      worker.close();
    }
  });

  it('another organization’s video or index', async () => {
    const other = await stack.newOrg();
    const [video, index] = await Promise.all([
      classify(base(), '/v1.2/classify', other.key),
      classify({ index_id: indexId, classes: CLASSES, options: ['visual'] }, '/v1.2/classify/bulk', other.key),
    ]);
    expect([video.status, video.body.code]).toEqual([404, 'resource_not_exist']);
    expect([index.status, index.body.code]).toEqual([404, 'resource_not_exist']);
  });

  it('an expired, unknown or another organization’s page token', async () => {
    const first = await classify({ ...base(), video_ids: [videoIds.pet, videoIds.phone], page_limit: 1 });
    const token = first.body.page_info.next_page_token as string;
    const other = await stack.newOrg();
    const [foreign, unknown] = await Promise.all([
      api().get(`/v1.2/classify/${token}`).set('x-api-key', other.key),
      api().get('/v1.2/classify/6f1c2a9e-1d2b-4c3d-8e4f-5a6b7c8d9e0f-2').set('x-api-key', key),
    ]);
    expect([foreign.status, foreign.body.code]).toEqual([400, 'search_page_token_expired']);
    expect([unknown.status, unknown.body.code]).toEqual([400, 'search_page_token_expired']);
  });
});

// Last: what every test above received.
it('every classify answer matches its version’s OpenAPI document', async () => {
  expect(recorder.exchanges.filter((e) => /\/classify/.test(e.url)).length).toBeGreaterThan(20);
  expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
});
