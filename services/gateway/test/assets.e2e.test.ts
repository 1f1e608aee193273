/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Assets and indexed assets end to end with the official 1.x SDK, unchanged (v1.3): direct, URL
 * and multipart uploads become ready once sniffed and probed; an asset indexed into an index goes
 * through the indexing pipeline and is then the index's video; bad media, private URLs and another
 * organization's assets are refused.
 */
import { photoPath, serveFiles, wordsAndSubtitlesVideo, type FileServer, type GeneratedVideo } from '@vus/testing';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

let stack: IndexingStack;
let fixture: GeneratedVideo;
let files: FileServer;
let client: TwelveLabs;
let key: string;
let indexId: string;
const dir = mkdtempSync(join(tmpdir(), 'vus-assets-'));
const playlist = join(dir, 'clip.mp4');
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

beforeAll(async () => {
  [stack, fixture] = await Promise.all([startIndexingStack({ worker: true }), wordsAndSubtitlesVideo()]);
  writeFileSync(playlist, '#EXTM3U\n#EXT-X-VERSION:3\n#EXTINF:10,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n');
  files = await serveFiles({ 'clip.mp4': fixture.path, 'list.mp4': playlist });
  ({ key } = await stack.newOrg());
  process.env.TWELVELABS_BASE_URL = `${stack.url}/v1.3`;
  client = new TwelveLabs({ apiKey: key });
  const index = await client.indexes.create({
    indexName: 'assets-v13',
    models: [{ modelName: 'marengo3.0', modelOptions: ['visual', 'audio'] }],
  });
  indexId = index.id!;
}, 120_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await files?.close();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function settled(assetId: string): Promise<Awaited<ReturnType<TwelveLabs['assets']['retrieve']>>> {
  for (;;) {
    const asset = await client.assets.retrieve(assetId);
    if (asset.status !== 'processing') return asset;
    await sleep(200);
  }
}

describe('assets (twelvelabs-js 1.x)', () => {
  let videoAssetId: string;

  it('uploads a file directly; it becomes a ready video asset', async () => {
    const created = await client.assets.create({ method: 'direct', file: createReadStream(fixture.path), filename: 'clip.mp4' });
    expect(created).toMatchObject({ method: 'direct', filename: 'clip.mp4' });
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    const asset = await settled(created.id!);
    expect(asset).toMatchObject({ status: 'ready', fileType: 'video/mp4' });
    videoAssetId = asset.id!;
  }, 60_000);

  it('uploads from a URL on an allowed host, and an image is an image', async () => {
    const fromUrl = await client.assets.create({ method: 'url', url: files.url('clip.mp4') });
    expect(await settled(fromUrl.id!)).toMatchObject({ status: 'ready', method: 'url', fileType: 'video/mp4', filename: 'clip.mp4' });
    const image = await client.assets.create({ method: 'direct', file: createReadStream(await photoPath('people')) });
    expect(await settled(image.id!)).toMatchObject({ status: 'ready', fileType: 'image/jpeg' });
    const images = [];
    for await (const item of await client.assets.list({ assetTypes: ['image'] })) images.push(item.id);
    expect(images).toEqual([image.id]);
  }, 60_000);

  it('lists assets newest first, pages past the end are empty', async () => {
    const page = await request(stack.url).get('/v1.3/assets?page_limit=2').set('x-api-key', key).expect(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.page_info).toMatchObject({ page: 1, limit_per_page: 2, total_results: 3, total_page: 2 });
    const past = await request(stack.url).get('/v1.3/assets?page=5').set('x-api-key', key).expect(200);
    expect(past.body.data).toEqual([]);
  });

  it('refuses a playlist dressed as a video, uploaded or linked', async () => {
    const direct = await request(stack.url).post('/v1.3/assets').set('x-api-key', key).field('method', 'direct').attach('file', playlist);
    expect(direct.status).toBe(400);
    expect(direct.body.code).toBe('unsupported_file_type');
    const linked = await client.assets.create({ method: 'url', url: files.url('list.mp4') });
    expect(await settled(linked.id!)).toMatchObject({ status: 'failed' });
  }, 30_000);

  it('never fetches a private address', async () => {
    const created = await client.assets.create({ method: 'url', url: 'http://10.0.0.1/video.mp4' });
    const asset = await request(stack.url).get(`/v1.3/assets/${created.id}`).set('x-api-key', key);
    let body = asset.body as { status: string; error?: { message: string } };
    while (body.status === 'processing') {
      await sleep(200);
      body = (await request(stack.url).get(`/v1.3/assets/${created.id}`).set('x-api-key', key)).body;
    }
    expect(body.status).toBe('failed');
    expect(JSON.stringify(body)).not.toMatch(/blob|uploads\//);
  }, 30_000);

  it('checks its inputs', async () => {
    const noFile = await request(stack.url).post('/v1.3/assets').set('x-api-key', key).field('method', 'direct');
    expect([noFile.status, noFile.body.code]).toEqual([400, 'parameter_not_provided']);
    const badMethod = await request(stack.url).post('/v1.3/assets').set('x-api-key', key).send({ method: 'carrier-pigeon' });
    expect([badMethod.status, badMethod.body.code]).toEqual([400, 'parameter_invalid']);
    const badScheme = await request(stack.url)
      .post('/v1.3/assets')
      .set('x-api-key', key)
      .send({ method: 'url', url: 'file:///etc/passwd' });
    expect(badScheme.status).toBe(400);
    const older = await request(stack.url).get('/v1.2/assets').set('x-api-key', key);
    expect([older.status, older.body.code]).toEqual([400, 'api_upgrade_required']);
  });

  it("hides another organization's assets", async () => {
    const other = await stack.newOrg();
    const got = await request(stack.url).get(`/v1.3/assets/${videoAssetId}`).set('x-api-key', other.key);
    expect([got.status, got.body.code]).toEqual([404, 'resource_not_exist']);
    const index = await request(stack.url)
      .post('/v1.3/indexes')
      .set('x-api-key', other.key)
      .send({ index_name: 'other', models: [{ model_name: 'marengo3.0', model_options: ['visual'] }] });
    const indexed = await request(stack.url)
      .post(`/v1.3/indexes/${index.body._id}/indexed-assets`)
      .set('x-api-key', other.key)
      .send({ asset_id: videoAssetId });
    expect([indexed.status, indexed.body.code]).toEqual([404, 'resource_not_exist']);
    const deleted = await request(stack.url).delete(`/v1.3/assets/${videoAssetId}`).set('x-api-key', other.key);
    expect(deleted.status).toBe(404);
  });

  it('uploads in chunks with the multipart wrapper', async () => {
    const result = await client.multipartUpload.uploadFile(fixture.path, { filename: 'chunked.mp4', fileType: 'video' });
    expect(result.assetId).toMatch(/^[0-9a-f]{24}$/);
    expect(await settled(result.assetId)).toMatchObject({ status: 'ready', method: 'multipart', fileType: 'video/mp4' });
  }, 60_000);

  it('indexes an asset into an index, lists, retrieves and deletes the indexed asset; the asset stays', async () => {
    const created = await client.indexes.indexedAssets.create(indexId, { assetId: videoAssetId });
    const id = created.id!;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    let item = await client.indexes.indexedAssets.retrieve(indexId, id);
    while (item.status !== 'ready' && item.status !== 'failed') {
      await sleep(300);
      item = await client.indexes.indexedAssets.retrieve(indexId, id);
    }
    expect(item).toMatchObject({ status: 'ready', systemMetadata: { width: 1280, height: 720 } });
    // It is the index's video now.
    const video = await client.indexes.videos.retrieve(indexId, id);
    expect(video.systemMetadata).toMatchObject({ filename: 'clip.mp4' });
    const listed = [];
    for await (const entry of await client.indexes.indexedAssets.list(indexId)) listed.push(entry.id);
    expect(listed).toEqual([id]);
    await client.indexes.indexedAssets.update(indexId, id, { userMetadata: { topic: 'words' } });
    expect(
      (await request(stack.url).get(`/v1.3/indexes/${indexId}/indexed-assets/${id}`).set('x-api-key', key)).body.user_metadata,
    ).toEqual({
      topic: 'words',
    });
    await client.indexes.indexedAssets.delete(indexId, id);
    const gone = await request(stack.url).get(`/v1.3/indexes/${indexId}/indexed-assets/${id}`).set('x-api-key', key);
    expect(gone.status).toBe(404);
    // The file is the asset's: indexing it again still works once the deleted video's blobs are gone.
    await sleep(500);
    expect((await client.assets.retrieve(videoAssetId)).status).toBe('ready');
    const again = await client.indexes.indexedAssets.create(indexId, { assetId: videoAssetId });
    let second = await client.indexes.indexedAssets.retrieve(indexId, again.id!);
    while (second.status !== 'ready' && second.status !== 'failed') {
      await sleep(300);
      second = await client.indexes.indexedAssets.retrieve(indexId, again.id!);
    }
    expect(second.status).toBe('ready');
  }, 180_000);

  it('refuses to index what is not a ready video, and deletes assets', async () => {
    const image = (await request(stack.url).get('/v1.3/assets?asset_types=image').set('x-api-key', key)).body.data[0]._id as string;
    const refused = await request(stack.url)
      .post(`/v1.3/indexes/${indexId}/indexed-assets`)
      .set('x-api-key', key)
      .send({ asset_id: image });
    expect([refused.status, refused.body.code]).toEqual([400, 'parameter_invalid']);
    await client.assets.delete(image);
    expect((await request(stack.url).get(`/v1.3/assets/${image}`).set('x-api-key', key)).status).toBe(404);
  });
});
