/*
 * twelvelabs-js 1.3.4's own examples/multipart_uploads.ts against `npm start` (issue 32 'Done when'),
 * as written but for the SDK example suite's substitutions: its remote sample-video URLs (and the
 * dashboard address it prints without a key) point at loopback, and its downloads/ already holds
 * the three sample videos, as after its download step (tests never reach the network). Checks what it
 * prints: "Upload completed! Asset ID" for both uploads, no "❌", and the assets become ready videos.
 */
import { serveFiles, startNpmStart, wordsAndSubtitlesVideo, type FileServer, type NpmStart } from '@vus/testing';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TwelveLabs } from 'twelvelabs-js';
import { pointSdkExamplesAt, runSdkExample } from './sdk-examples';

const SAMPLE_URLS = [
  'https://commondatastorage.googleapis.com/gtv-videos-bucket/sample/ForBiggerBlazes.mp4',
  'https://commondatastorage.googleapis.com/gtv-videos-bucket/sample/ForBiggerEscapes.mp4',
  'https://commondatastorage.googleapis.com/gtv-videos-bucket/sample/ForBiggerFun.mp4',
];
const UPLOADED = '✅ Upload completed! Asset ID: ';

let server: NpmStart;
let files: FileServer;
let restoreEnvironment: (() => void) | undefined;
const dir = mkdtempSync(join(tmpdir(), 'vus-multipart-example-'));
let printed: string[];

beforeAll(async () => {
  const [started, video] = await Promise.all([startNpmStart({ DATA_DIR: join(dir, 'data') }, 120_000), wordsAndSubtitlesVideo()]);
  server = started;
  const work = join(dir, 'example');
  mkdirSync(join(work, 'downloads'), { recursive: true });
  for (const name of ['example_video.mp4', 'video1.mp4', 'video2.mp4']) copyFileSync(video.path, join(work, 'downloads', name));
  files = await serveFiles({ 'example_video.mp4': video.path });
  restoreEnvironment = pointSdkExamplesAt(server.baseUrl, server.apiKey!);
  const cwd = process.cwd();
  process.chdir(work);
  try {
    printed = await runSdkExample('multipart_uploads.ts', [
      ...SAMPLE_URLS.map((url): [string, string] => [url, files.url('example_video.mp4')]),
      ['https://dashboard.twelvelabs.io', `${files.baseUrl}/`],
    ]);
  } finally {
    process.chdir(cwd);
  }
}, 240_000);

afterAll(async () => {
  restoreEnvironment?.();
  await files?.close();
  expect(await server?.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

it('prints both uploads completed with their asset ids, no ❌, no incomplete upload, and the examples completed', () => {
  expect(printed.filter((line) => line.includes('❌'))).toEqual([]);
  expect(printed.filter((line) => line.startsWith(UPLOADED))).toHaveLength(2);
  expect(printed).toEqual(expect.arrayContaining(['✅ No incomplete uploads found', '\n🎉 All examples completed!']));
  // Its download step found the videos in place: nothing was fetched.
  expect(printed.filter((line) => line.startsWith('📁 Video already exists'))).toHaveLength(3);
  expect(files.requests).toEqual([]);
});

it('the uploaded assets become ready multipart videos', async () => {
  const client = new TwelveLabs({ apiKey: server.apiKey! });
  for (const line of printed.filter((l) => l.startsWith(UPLOADED))) {
    const assetId = line.slice(UPLOADED.length);
    let asset = await client.assets.retrieve(assetId);
    for (let i = 0; asset.status === 'processing' && i < 300; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      asset = await client.assets.retrieve(assetId);
    }
    expect(asset).toMatchObject({ id: assetId, status: 'ready', method: 'multipart', fileType: 'video/mp4' });
  }
}, 120_000);
