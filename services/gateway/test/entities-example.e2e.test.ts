/*
 * twelvelabs-js 1.3.4's own examples/entities.ts, as written, against `npm start` (issue 32 §1 "Done
 * when"): the built embedded server on a fresh data folder, its first API key, the example's
 * TwelveLabs client from API_KEY and TWELVELABS_BASE_URL (sdk-examples.ts). The only edits are
 * those the SDK example suite makes (npm-start.e2e): its placeholder index id becomes an index of
 * ours, and its remote image URLs become the same kind of files served on loopback (the server is
 * told FETCH_ALLOW_HOSTS=127.0.0.1, as an operator would). The example creates its three assets by
 * URL and the entity right after them, so this also shows the entity waiting for URL assets still
 * being fetched.
 *
 * The images are real photographs of people (@vladmandic/face-api's demo pictures). The index holds
 * one 6 s video (people, then nobody), so the example's search runs against a real index.
 *
 * ENTITY SEARCH (`<@entity_id> is walking`) is being built apart (search-service and task-service
 * entity search, face tracks). Until it is, the test checks everything the example does up to its
 * search, and that the search step runs to its end; the assertion on what the search finds is the
 * `it.todo` at the bottom, to be written with the face footage (a video showing the person of
 * REFERENCE_IMAGES) once entity search is wired.
 */
import { generateVideo, serveFiles, startNpmStart, type FileServer, type NpmStart } from '@vus/testing';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TwelveLabs } from 'twelvelabs-js';
import { pointSdkExamplesAt, runSdkExample } from './sdk-examples';

const FACE_API_DEMO = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
/** The example's remote images, and the local photograph served in the place of each. */
const REFERENCE_IMAGES: readonly [string, string][] = [
  ['https://www.gstatic.com/webp/gallery/1.jpg', join(FACE_API_DEMO, 'sample1.jpg')],
  ['https://www.gstatic.com/webp/gallery/2.jpg', join(FACE_API_DEMO, 'sample2.jpg')],
  ['https://www.gstatic.com/webp/gallery/3.jpg', join(FACE_API_DEMO, 'sample3.jpg')],
];
const servedName = (i: number) => `reference-${i + 1}.jpg`;
/**
 * What the index holds: 3 s of four people in a room (@vus/testing's `people` photo), then 3 s of
 * cells under a microscope (nobody). Small, so indexing it through npm start stays cheap.
 */
const indexedFootage = () =>
  generateVideo('entities-example', {
    width: 640,
    height: 480,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: [
      { durationSec: 3, background: '0x101010', photos: ['people'] },
      { durationSec: 3, background: '0xf5f5f5', photos: ['cells'] },
    ],
  });

let server: NpmStart;
let dataDir: string;
let files: FileServer;
let restoreEnvironment: (() => void) | undefined;
let client: TwelveLabs;
let indexId: string;
let videoId: string;
let printed: string[];
/** Why the example's search step failed, while entity search is not wired (the test's header). */
let searchFailure: Error | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'vus-entities-example-'));
  server = await startNpmStart({ DATA_DIR: dataDir, FETCH_ALLOW_HOSTS: '127.0.0.1' }, 120_000);
  files = await serveFiles(Object.fromEntries(REFERENCE_IMAGES.map(([, path], i) => [servedName(i), path])));
  restoreEnvironment = pointSdkExamplesAt(server.baseUrl, server.apiKey!);
  client = new TwelveLabs({ apiKey: server.apiKey! });
  const index = await client.indexes.create({
    indexName: 'entities example',
    models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
  });
  indexId = index.id!;
  const task = await client.tasks.create({ indexId, videoFile: createReadStream((await indexedFootage()).path) });
  const done = await client.tasks.waitForDone(task.id!, { sleepInterval: 1 });
  if (done.status !== 'ready') throw new Error(`indexing the video failed: ${JSON.stringify(done)}`);
  videoId = task.videoId!;
  try {
    printed = await runSdkExample('entities.ts', [
      ['<YOUR_INDEX_ID>', indexId],
      ...REFERENCE_IMAGES.map(([remote], i): [string, string] => [remote, files.url(servedName(i))]),
    ]);
  } catch (error) {
    // Only the search step may fail until entity search is wired (see the top): the entity must have been created.
    printed = (error as { printed?: string[] }).printed ?? [];
    if (!printed.at(-1)?.startsWith('Created entity: id=')) throw error;
    searchFailure = error as Error;
  }
}, 600_000);

afterAll(async () => {
  restoreEnvironment?.();
  await files?.close();
  expect(await server?.stop()).toBe(0);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

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

  it('its search step prints clips of the indexed video, or (until entity search is wired) fails with a clear error, not a 500', () => {
    if (!searchFailure) {
      const clips = printed.slice(printed.findIndex((l) => l.startsWith('Created entity: id=')) + 1);
      for (const line of clips) expect(line).toMatch(new RegExp(`^  videoId=${videoId} start=[\\d.]+ end=[\\d.]+ rank=\\d+$`));
      return;
    }
    const cause = searchFailure.cause as { statusCode?: number; body?: { code?: string; message?: string } };
    expect({ status: cause.statusCode, code: cause.body?.code }).toEqual({ status: expect.any(Number), code: expect.any(String) });
    expect(cause.statusCode === 501 || (cause.statusCode! >= 400 && cause.statusCode! < 500)).toBe(true);
    expect(cause.body?.message).toEqual(expect.any(String));
  });

  // ENTITY SEARCH, LEFT FOR ITS ENGINEER (issue 32 §1). At the time of writing the example's search
  // step fails (searchFailure: POST /search with query_text `<@entity_id> is walking` is not answered
  // with clips yet), and beforeAll tolerates that one failure only. Once entity search is wired:
  //  1. make REFERENCE_IMAGES photographs of one person and indexedFootage() show that person (and
  //     others, and nobody), so the search has true and false matches;
  //  2. remove the try/catch around runSdkExample in beforeAll (the example must run to its end), and
  //  3. replace this todo with: every line after 'Created entity: id=' is
  //     `  videoId=${videoId} start=… end=… rank=…`, at least one, each within the person's scenes
  //     (indexedFootage's truth: generateVideo's `truth` gives each scene's start/end and photos).
  it.todo('entity search: `<@entity_id> is walking` prints the clips where the entity is on screen, and only those');
});
