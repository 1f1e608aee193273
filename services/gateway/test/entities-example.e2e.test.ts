/*
 * twelvelabs-js 1.3.4's own examples/entities.ts, as written, against `npm start` (issue 32 §1 "Done
 * when"): the built embedded server on a fresh data folder, its first API key, the example's
 * TwelveLabs client from API_KEY and TWELVELABS_BASE_URL (sdk-examples.ts). The only edits are
 * those the SDK example suite makes (npm-start.e2e): its placeholder index id becomes an index of
 * ours, and its remote image URLs become local files served on loopback (the server is told
 * FETCH_ALLOW_HOSTS=127.0.0.1, as an operator would). The example creates its three assets by URL
 * and the entity right after them, so this also shows the entity waiting for URL assets still being
 * fetched.
 *
 * Real faces (task-service's face-video.ts, from @vladmandic/face-api's demo photo of three women):
 * the three images are portraits of the first woman (as cut, mirrored, smaller), and the index holds
 * a video of her (0–4 s), the second woman (4–8 s), and her again mirrored, small and recompressed
 * (8–12 s). The example then searches `<@entity_id> is walking`: a still of a face shows nobody
 * walking, so every clip it prints must be one of hers (none of the other woman's); that the entity
 * it made is found where she is, and only there, is checked by searching `<@entity_id>` alone.
 */
import { blazeFaceProvider, faceRecognitionProvider, ModelRegistry } from '@vus/models';
import { serveFiles, startNpmStart, type FileServer, type NpmStart } from '@vus/testing';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { TwelveLabs } from 'twelvelabs-js';
import { faceVideo } from '../../task-service/test/face-video';
import { pointSdkExamplesAt, runSdkExample } from './sdk-examples';

/** The example's remote images: each is served as a portrait of the first woman. */
const REMOTE_IMAGES = [
  'https://www.gstatic.com/webp/gallery/1.jpg',
  'https://www.gstatic.com/webp/gallery/2.jpg',
  'https://www.gstatic.com/webp/gallery/3.jpg',
];
const servedName = (i: number) => `reference-${i + 1}.jpg`;
/** Her scenes in the video, and the other woman's (face-video.ts). */
const HER_SCENES: readonly [number, number][] = [
  [0, 4],
  [8, 12],
];

let server: NpmStart;
let dataDir: string;
let files: FileServer;
let restoreEnvironment: (() => void) | undefined;
let client: TwelveLabs;
let indexId: string;
let videoId: string;
let printed: string[];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'vus-entities-example-'));
  const registry = new ModelRegistry([blazeFaceProvider(), faceRecognitionProvider()]);
  let video: Awaited<ReturnType<typeof faceVideo>>;
  try {
    video = await faceVideo(dataDir, await registry.get('face_embedder'));
  } finally {
    await registry.dispose();
  }
  // Three reference images of her, as a user has them: the portrait, mirrored, and smaller.
  const portraits = [
    video.portraits.her,
    await sharp(video.portraits.her).flop().jpeg({ quality: 85 }).toBuffer(),
    await sharp(video.portraits.her).resize({ width: 200 }).jpeg({ quality: 85 }).toBuffer(),
  ];
  const paths = portraits.map((jpeg, i) => {
    const path = join(dataDir, servedName(i));
    writeFileSync(path, jpeg);
    return path;
  });
  server = await startNpmStart({ DATA_DIR: join(dataDir, 'data'), FETCH_ALLOW_HOSTS: '127.0.0.1' }, 120_000);
  files = await serveFiles(Object.fromEntries(paths.map((path, i) => [servedName(i), path])));
  restoreEnvironment = pointSdkExamplesAt(server.baseUrl, server.apiKey!);
  client = new TwelveLabs({ apiKey: server.apiKey! });
  const index = await client.indexes.create({
    indexName: 'entities example',
    models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
  });
  indexId = index.id!;
  const task = await client.tasks.create({ indexId, videoFile: createReadStream(video.path) });
  const done = await client.tasks.waitForDone(task.id!, { sleepInterval: 1 });
  if (done.status !== 'ready') throw new Error(`indexing the video failed: ${JSON.stringify(done)}`);
  videoId = task.videoId!;
  printed = await runSdkExample('entities.ts', [
    ['<YOUR_INDEX_ID>', indexId],
    ...REMOTE_IMAGES.map((remote, i): [string, string] => [remote, files.url(servedName(i))]),
  ]);
}, 900_000);

afterAll(async () => {
  restoreEnvironment?.();
  await files?.close();
  expect(await server?.stop()).toBe(0);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Within one of her scenes (clip times are seconds; the scene cuts are whole seconds). */
const inHerScenes = (start: number, end: number) => HER_SCENES.some(([from, to]) => start >= from && end <= to);

/** The value after `label` in the line that starts with it. */
const printedAfter = (label: string): string => {
  const line = printed.find((l) => l.startsWith(label));
  if (!line) throw new Error(`nothing printed ${JSON.stringify(label)}:\n${printed.join('\n')}`);
  return line.slice(label.length);
};

describe("twelvelabs-js 1.3.4's own examples/entities.ts, as written, against npm start", () => {
  it('creates its three image assets by URL, each ready afterwards', async () => {
    const ids = [1, 2, 3].map((n) => printedAfter(`Created asset ${n}/3: id=`));
    expect(printedAfter('Asset IDs: ')).toBe(ids.join(','));
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      const asset = await client.assets.retrieve(id);
      expect(asset).toMatchObject({ status: 'ready', method: 'url' });
      expect(asset.fileType).toBe('image/jpeg');
    }
  });

  it('creates "Sample Entity Collection" and in it "Sample Entity" with the three assets, ready', async () => {
    const collectionId = printedAfter('Created entity collection: id=');
    expect(await client.entityCollections.retrieve(collectionId)).toMatchObject({ name: 'Sample Entity Collection' });
    const entityId = printedAfter('Created entity: id=');
    const assetIds = printedAfter('Asset IDs: ').split(',');
    expect(await client.entityCollections.entities.retrieve(collectionId, entityId)).toMatchObject({
      id: entityId,
      entityCollectionId: collectionId,
      name: 'Sample Entity',
      assetIds,
      status: 'ready',
    });
    for (const assetId of assetIds) {
      expect((await client.entityCollections.entities.listByAsset(assetId)).data.map((e) => e.id)).toEqual([entityId]);
    }
  });

  it("runs its search `<@entity_id> is walking` to the end; whatever it prints is a clip of hers, never the other woman's", () => {
    const after = printed.slice(printed.findIndex((l) => l.startsWith('Created entity: id=')) + 1);
    for (const line of after) {
      const match = /^ {2}videoId=(\w+) start=([\d.]+) end=([\d.]+) rank=\d+$/.exec(line);
      expect({ line, match: Boolean(match) }).toEqual({ line, match: true });
      expect(match![1]).toBe(videoId);
      expect({ line, hers: inHerScenes(Number(match![2]), Number(match![3])) }).toEqual({ line, hers: true });
    }
  });

  it('the entity it made is found where she is on screen (also mirrored and small), and only there', async () => {
    const entityId = printedAfter('Created entity: id=');
    const clips: [string, number, number][] = [];
    for await (const clip of await client.search.query({ indexId, searchOptions: ['visual'], queryText: `<@${entityId}>` })) {
      clips.push([clip.videoId!, clip.start!, clip.end!]);
    }
    expect(clips.length).toBeGreaterThan(0);
    for (const [id, start, end] of clips) {
      expect(id).toBe(videoId);
      expect({ start, end, hers: inHerScenes(start, end) }).toEqual({ start, end, hers: true });
    }
    // Both of her scenes: as cut, and mirrored, small and recompressed.
    for (const [from, to] of HER_SCENES) expect(clips.some(([, start, end]) => start < to && end > from)).toBe(true);
  });
});
