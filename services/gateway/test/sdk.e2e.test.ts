/**
 * The official SDKs, unchanged, pointed at the gateway: twelvelabs-js 0.2.8 (speaks v1.2, reads
 * TWELVELABS_BASE_URL without a version) and twelvelabs-js 1.x (speaks v1.3, the base URL must
 * include /v1.3).
 */
import { TwelveLabs as TwelveLabsV1 } from 'twelvelabs-js';
import { TwelveLabs as TwelveLabsV0 } from 'twelvelabs-js-v0';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from './harness';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';
import { workerClient, writeThumbnail } from './videos-worker';

let stack: Stack;
let key: string;
// The SDKs talk through it: their answers are checked against the OpenAPI documents at the end.
let recorder: RecordingProxy;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

let worker: ReturnType<typeof workerClient>;
// Where the stack's index-service reads thumbnails; the fake worker below writes them there.
const blobDir = mkdtempSync(join(tmpdir(), 'vus-sdk-blobs-'));

beforeAll(async () => {
  stack = await startStack('postgres', 64 * 1024, { blobDir });
  key = await stack.newOrgKey();
  recorder = await startRecordingProxy(stack.url);
  worker = workerClient(stack.indexService.address);
});
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  worker.close();
  await recorder.stop();
  await stack.stop();
  rmSync(blobDir, { recursive: true, force: true });
});

function v0Client(apiKey = key): TwelveLabsV0 {
  process.env.TWELVELABS_BASE_URL = recorder.url;
  return new TwelveLabsV0({ apiKey, version: 'v1.2' });
}

function v1Client(apiKey = key): TwelveLabsV1 {
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  return new TwelveLabsV1({ apiKey });
}

describe('twelvelabs-js 0.2.8 (v1.2)', () => {
  it('creates, retrieves, lists, updates and deletes indexes', async () => {
    const client = v0Client(await stack.newOrgKey());
    const created = await client.index.create({
      name: 'sdk0-a',
      engines: [
        { name: 'marengo2.6', options: ['visual', 'conversation'] },
        { name: 'pegasus1.1', options: ['visual', 'conversation'] },
      ],
      addons: ['thumbnail'],
    });
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    expect(created.name).toBe('sdk0-a');
    expect(created.engines.map((e) => e.name)).toEqual(['marengo2.6', 'pegasus1.1']);
    expect(created.engines[0]!.options).toEqual(['visual', 'conversation']);

    const retrieved = await client.index.retrieve(created.id);
    expect(retrieved.videoCount).toBe(0);
    expect(new Date(retrieved.createdAt).getTime()).not.toBeNaN();

    await client.index.create({ name: 'sdk0-b', engines: [{ name: 'marengo2.6', options: ['visual'] }] });
    await client.index.create({ name: 'sdk0-c', engines: [{ name: 'marengo2.6', options: ['text_in_video'] }] });

    const all = await client.index.list();
    expect(all.map((i) => i.name).sort()).toEqual(['sdk0-a', 'sdk0-b', 'sdk0-c']);
    expect((await client.index.list({ name: 'sdk0-b' })).map((i) => i.name)).toEqual(['sdk0-b']);
    expect((await client.index.list({ engineFamily: 'pegasus' })).map((i) => i.name)).toEqual(['sdk0-a']);
    expect((await client.index.list({ engineOptions: ['conversation'] })).map((i) => i.name)).toEqual(['sdk0-a']);
    // js 0.1/0.2 send date filters camelCased (API-CONTRACT §2.3); they must still filter.
    expect(await client.index.list({ createdAt: { gte: '2000-01-01T00:00:00Z' } })).toHaveLength(3);
    expect(await client.index.list({ createdAt: { lte: '2000-01-01T00:00:00Z' } })).toHaveLength(0);

    const firstPage = await client.index.listPagination({ pageLimit: 2, sortOption: 'asc' });
    expect(firstPage.data.map((i) => i.name)).toEqual(['sdk0-a', 'sdk0-b']);
    expect(firstPage.pageInfo).toMatchObject({ page: 1, limitPerPage: 2, totalPage: 2, totalResults: 3 });
    const second = await firstPage.next();
    expect(second?.map((i) => i.name)).toEqual(['sdk0-c']);
    expect(await firstPage.next()).toBeNull();

    await client.index.update(created.id, 'sdk0-renamed');
    expect((await client.index.retrieve(created.id)).name).toBe('sdk0-renamed');
    await client.index.delete(created.id);
    await expect(client.index.retrieve(created.id)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('lists and retrieves engines', async () => {
    const engines = await v0Client().engine.list();
    expect(engines.map((e) => e.id)).toEqual(expect.arrayContaining(['marengo2.6', 'pegasus1.1']));
    const engine = await v0Client().engine.retrieve('marengo2.6');
    expect(engine.allowedEngineOptions).toEqual(['visual', 'conversation', 'text_in_video', 'logo']);
  });

  it('surfaces our errors through its error classes', async () => {
    const client = v0Client();
    await client.index.create({ name: 'sdk0-dup', engines: [{ name: 'marengo2.6', options: ['visual'] }] });
    await expect(client.index.create({ name: 'sdk0-dup', engines: [{ name: 'marengo2.6', options: ['visual'] }] })).rejects.toMatchObject({
      name: 'BadRequestError',
      message: expect.stringContaining('already exists'),
    });
    await expect(v0Client('tlk_not-a-key').index.list()).rejects.toMatchObject({ name: 'UnauthorizedError' });
  });
});

describe('twelvelabs-js 1.x (v1.3)', () => {
  it('creates, retrieves, lists through every page, updates and deletes indexes', async () => {
    const client = v1Client(await stack.newOrgKey());
    const created = await client.indexes.create({
      indexName: 'sdk1-a',
      // 1.3.4 accepts only marengo3.0 client-side.
      models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
      addons: ['thumbnail'],
    });
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    const retrieved = await client.indexes.retrieve(created.id!);
    expect(retrieved).toMatchObject({
      id: created.id,
      indexName: 'sdk1-a',
      videoCount: 0,
      models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
      addons: ['thumbnail'],
    });

    expect(retrieved.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    for (const name of ['sdk1-b', 'sdk1-c']) {
      await client.indexes.create({ indexName: name, models: [{ modelName: 'marengo3.0', modelOptions: ['visual'] }] });
    }
    // The Fern pager asks for page+1 until a page comes back empty.
    const seen: string[] = [];
    for await (const index of await client.indexes.list({ pageLimit: 2, sortOption: 'asc' })) seen.push(index.indexName!);
    expect(seen).toEqual(['sdk1-a', 'sdk1-b', 'sdk1-c']);

    const filtered: string[] = [];
    for await (const index of await client.indexes.list({ modelOptions: 'audio' })) filtered.push(index.indexName!);
    expect(filtered).toEqual(['sdk1-a']);
    const named: string[] = [];
    for await (const index of await client.indexes.list({ indexName: 'sdk1-c' })) named.push(index.indexName!);
    expect(named).toEqual(['sdk1-c']);

    await client.indexes.update(created.id!, { indexName: 'sdk1-renamed' });
    expect((await client.indexes.retrieve(created.id!)).indexName).toBe('sdk1-renamed');
    await client.indexes.delete(created.id!);
    await expect(client.indexes.retrieve(created.id!)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('surfaces bad input as BadRequestError with our code', async () => {
    const client = v1Client();
    const request = { indexName: 'sdk1-dup', models: [{ modelName: 'marengo3.0' as const, modelOptions: ['visual'] }] };
    await client.indexes.create(request);
    await expect(client.indexes.create(request)).rejects.toMatchObject({
      statusCode: 400,
      body: expect.objectContaining({ code: 'index_name_already_exists' }),
    });
    await expect(v1Client('tlk_not-a-key').indexes.retrieve('6528dde58f9cd95a98cbd075')).rejects.toMatchObject({ statusCode: 401 });
  });
});

// Videos are created the way the indexing worker creates them (CreateVideo, PutVideoArtifacts);
// the SDKs then read and change them over HTTP.
describe('videos through the SDKs', () => {
  it('twelvelabs-js 0.2.8 lists, retrieves, updates, reads artifacts and the thumbnail, and deletes', async () => {
    const { orgId, key: orgKey } = await stack.newOrg();
    const client = v0Client(orgKey);
    const index = await client.index.create({
      name: 'sdk0-videos',
      engines: [{ name: 'marengo2.6', options: ['visual', 'conversation'] }],
      addons: ['thumbnail'],
    });
    const a = await worker.createVideo(orgId, index.id, {
      filename: 'a.mp4',
      duration: 12,
      width: 640,
      height: 360,
      userMetadata: { topic: 'cars' },
    });
    const b = await worker.createVideo(orgId, index.id, { filename: 'b.mp4', duration: 30 });
    await writeThumbnail(stack.blobs!, `thumbnails/${a.id}/0.jpg`, 'green');
    await worker.putArtifacts(orgId, index.id, a.id, {
      transcription: [{ start: 0, end: 2, value: 'Hello from the SDK' }],
      thumbnails: [{ time: 0, blob_key: `thumbnails/${a.id}/0.jpg` }],
    });

    const listed = await client.index.video.list(index.id);
    expect(listed.map((v) => v.id).sort()).toEqual([a.id, b.id].sort());
    const page = await client.index.video.listPagination(index.id, { pageLimit: 1, filename: 'a.mp4' });
    expect(page.pageInfo).toMatchObject({ totalResults: 1 });
    expect((await client.index.video.list(index.id, { duration: { gte: 20 } })).map((v) => v.id)).toEqual([b.id]);

    const video = await client.index.video.retrieve(index.id, a.id);
    expect(video.metadata).toMatchObject({ filename: 'a.mp4', duration: 12, width: 640, height: 360, topic: 'cars' });
    await video.update({ title: 'Renamed', metadata: { topic: null, reviewed: true } });
    const updated = await client.index.video.retrieve(index.id, a.id);
    expect(updated.metadata).toMatchObject({ video_title: 'Renamed', reviewed: true });
    expect(updated.metadata).not.toHaveProperty('topic');

    expect(await video.transcription()).toEqual([{ start: 0, end: 2, value: 'Hello from the SDK' }]);
    expect(await video.textInVideo()).toEqual([]);
    const thumbnail = await video.thumbnail();
    const image = await fetch(thumbnail);
    expect({ status: image.status, type: image.headers.get('content-type') }).toEqual({ status: 200, type: 'image/jpeg' });

    await video.delete();
    await expect(client.index.video.retrieve(index.id, a.id)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('twelvelabs-js 1.x lists with filters, retrieves with the transcription, patches metadata and deletes', async () => {
    const { orgId, key: orgKey } = await stack.newOrg();
    const client = v1Client(orgKey);
    const index = await client.indexes.create({
      indexName: 'sdk1-videos',
      models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
    });
    const a = await worker.createVideo(orgId, index.id!, { filename: 'a.mp4', userMetadata: { topic: 'cars', rank: 5 } });
    const b = await worker.createVideo(orgId, index.id!, { filename: 'b.mp4', userMetadata: { topic: 'boats' } });
    await worker.putArtifacts(orgId, index.id!, a.id, { transcription: [{ start: 1, end: 3, value: 'Fern speaks v1.3' }] });

    const all: string[] = [];
    for await (const video of await client.indexes.videos.list(index.id!, { pageLimit: 1 })) all.push(video.id!);
    expect(all.sort()).toEqual([a.id, b.id].sort());
    const cars: string[] = [];
    for await (const video of await client.indexes.videos.list(index.id!, { userMetadata: { topic: 'cars', rank: 5 } }))
      cars.push(video.id!);
    expect(cars).toEqual([a.id]);

    const retrieved = await client.indexes.videos.retrieve(index.id!, a.id, { transcription: true });
    expect(retrieved).toMatchObject({
      id: a.id,
      systemMetadata: { filename: 'a.mp4', duration: 10, fps: 25, width: 1280, height: 720, size: 1_000_000 },
      userMetadata: { topic: 'cars', rank: 5 },
      transcription: [{ start: 1, end: 3, value: 'Fern speaks v1.3' }],
    });

    await client.indexes.videos.update(index.id!, a.id, { userMetadata: { reviewed: true } });
    expect((await client.indexes.videos.retrieve(index.id!, a.id)).userMetadata).toEqual({ topic: 'cars', rank: 5, reviewed: true });

    await client.indexes.videos.delete(index.id!, b.id);
    await expect(client.indexes.videos.retrieve(index.id!, b.id)).rejects.toMatchObject({ statusCode: 404 });
  });
});

// Last: what every test above received through the SDKs.
it("every answer the SDKs got matches its version's OpenAPI document", async () => {
  expect(recorder.exchanges.filter((e) => e.method === 'DELETE').length).toBeGreaterThan(3);
  expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
});
