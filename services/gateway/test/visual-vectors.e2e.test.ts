/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Visual search on CLIP vectors end to end, with embed-service as the model server: the worker
 * asks it for one vector per clip (each scene's keyframe), search-service asks it for the query's
 * vector, and neither loads a model. CLIP is the project's tiny model (random weights, the real
 * graph shapes): its vectors mean nothing, but a picture of a scene's own colour lands nearest to
 * that scene's keyframe, which is what this checks. Without vectors the query would find nothing
 * (the detector sees no object in a plain colour). PGlite carries pgvector (the test PostgreSQL does not).
 */
import { generateVideo, type GeneratedVideo } from '@vus/testing';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const tinyModels = require('../../../scripts/models/make-tiny-models.js') as { makeTinyModels(dir: string): { clip: string } };

const COLOURS = { red: { r: 255, g: 0, b: 0 }, lime: { r: 0, g: 255, b: 0 }, blue: { r: 0, g: 0, b: 255 } } as const;

/** Three 4 s scenes of plain colour, no audio. */
function colourScenesVideo(): Promise<GeneratedVideo> {
  return generateVideo('colour-scenes', {
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
  });
}

let stack: IndexingStack;
let modelsDir: string;
let key: string;
let indexId: string;
let videoId: string;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

beforeAll(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'vus-visual-vectors-'));
  const { clip } = tinyModels.makeTinyModels(modelsDir);
  let video: GeneratedVideo;
  [stack, video] = await Promise.all([
    startIndexingStack({ worker: true, database: 'pglite', clip: { modelsDir, clipModel: clip } }),
    colourScenesVideo(),
  ]);
  ({ key } = await stack.newOrg());
  process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
  const client = new TwelveLabs({ apiKey: key });
  indexId = (await client.indexes.create({ indexName: 'colours', models: [{ modelName: 'marengo3.0', modelOptions: ['visual'] }] })).id!;
  const created = await client.tasks.create({ indexId, videoFile: createReadStream(video.path) });
  const done = await client.tasks.waitForDone(created.id!, { sleepInterval: 0.3 });
  expect(done.status).toBe('ready');
  videoId = created.videoId!;
}, 240_000);

afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await stack?.stop();
  rmSync(modelsDir, { recursive: true, force: true });
});

const searchByImage = async (colour: keyof typeof COLOURS) =>
  request(stack.url)
    .post('/v1.3/search')
    .set('x-api-key', key)
    .field('index_id', indexId)
    .field('search_options', 'visual')
    .field('query_media_type', 'image')
    .attach(
      'query_media_file',
      await sharp({ create: { width: 96, height: 96, channels: 3, background: COLOURS[colour] } })
        .png()
        .toBuffer(),
      { filename: `${colour}.png`, contentType: 'image/png' },
    );

it.each([
  ['red', 0, 4],
  ['lime', 4, 8],
  ['blue', 8, 12],
] as const)('an image of %s finds its scene (%i–%i s) through the clip vectors embed-service made', async (colour, start, end) => {
  const res = await searchByImage(colour);
  expect(res.status).toBe(200);
  const top = res.body.data[0] as { video_id: string; start: number; end: number };
  expect(top.video_id).toBe(videoId);
  expect([Math.round(top.start), Math.round(top.end)]).toEqual([start, end]);
});
