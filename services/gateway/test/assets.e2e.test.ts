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
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let fixture: GeneratedVideo;
let files: FileServer;
let client: TwelveLabs;
let key: string;
let indexId: string;
// The SDK talks through it: its answers are checked against the v1.3 OpenAPI document at the end.
let recorder: RecordingProxy;
const dir = mkdtempSync(join(tmpdir(), 'vus-assets-'));
const playlist = join(dir, 'clip.mp4');
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

beforeAll(async () => {
  [stack, fixture] = await Promise.all([startIndexingStack({ worker: true }), wordsAndSubtitlesVideo()]);
  writeFileSync(playlist, '#EXTM3U\n#EXT-X-VERSION:3\n#EXTINF:10,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n');
  files = await serveFiles({ 'clip.mp4': fixture.path, 'list.mp4': playlist });
  ({ key } = await stack.newOrg());
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
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
  await recorder?.stop();
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
    const named = await request(stack.url).get('/v1.3/assets?filename=CLIP').set('x-api-key', key).expect(200);
    expect(named.body.data.map((a: { filename: string }) => a.filename)).toEqual(['clip.mp4', 'clip.mp4']);
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

  it('uploads a file of several chunks; the chunks are joined in order', async () => {
    // A PNG signature and 17 MiB of noise: three 8 MiB chunks, sniffed as an image once joined.
    const big = join(dir, 'big.png');
    const noise = Buffer.alloc(17 * 1024 * 1024);
    for (let i = 0; i < noise.length; i += 4096) noise[i] = i % 251;
    writeFileSync(big, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), noise]));
    const result = await client.multipartUpload.uploadFile(big, { fileType: 'image', batchSize: 2 });
    const asset = await settled(result.assetId);
    expect(asset).toMatchObject({ status: 'ready', fileType: 'image/png', size: noise.length + 8 });
  }, 60_000);

  it('refuses a chunk PUT beyond its size or with a changed URL', async () => {
    const created = await request(stack.url)
      .post('/v1.3/assets/multipart-uploads')
      .set('x-api-key', key)
      .send({ filename: 'x.mp4', type: 'video', total_size: 10 })
      .expect(201);
    const url = new URL(created.body.upload_urls[0].url as string);
    const tooLarge = await request(stack.url).put(`${url.pathname}${url.search}`).send(Buffer.alloc(11));
    expect([tooLarge.status, tooLarge.body.code]).toEqual([413, 'payload_too_large']);
    const forged = await request(stack.url)
      .put(`${url.pathname}${url.search.replace(/max=\d+/, 'max=99999999')}`)
      .send(Buffer.alloc(10));
    expect([forged.status, forged.body.code]).toEqual([403, 'api_not_allowed']);
    const put = await request(stack.url).put(`${url.pathname}${url.search}`).send(Buffer.alloc(10));
    expect(put.status).toBe(200);
    expect(put.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    const wrongProof = await request(stack.url)
      .post(`/v1.3/assets/multipart-uploads/${created.body.upload_id}`)
      .set('x-api-key', key)
      .send({ completed_chunks: [{ chunk_index: 1, proof: 'bogus', proof_type: 'etag', chunk_size: 10 }] });
    expect([wrongProof.status, wrongProof.body.code]).toEqual([400, 'parameter_invalid']);
    const status = await request(stack.url)
      .get(`/v1.3/assets/multipart-uploads/${created.body.upload_id}`)
      .set('x-api-key', key)
      .expect(200);
    expect(status.body).toMatchObject({ status: 'active', chunks_completed: 0, uploaded_chunks: [{ index: 1, status: 'pending' }] });
  });

  it('indexes an asset into an index, lists, retrieves and deletes the indexed asset; the asset stays', async () => {
    const created = await client.indexes.indexedAssets.create(indexId, { assetId: videoAssetId });
    const id = created.id!;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    // A replayed POST with the same Idempotency-Key makes no second task.
    const replay = () =>
      request(stack.url)
        .post(`/v1.3/indexes/${indexId}/indexed-assets`)
        .set('x-api-key', key)
        .set('idempotency-key', 'index-once')
        .send({ asset_id: videoAssetId });
    const first = await replay();
    expect(first.status).toBe(202);
    expect((await replay()).body._id).toBe(first.body._id);
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
    expect(listed).toContain(id);
    expect(listed).toHaveLength(2);
    const filtered = (query: string) =>
      request(stack.url).get(`/v1.3/indexes/${indexId}/indexed-assets?${query}`).set('x-api-key', key).expect(200);
    expect((await filtered('width[gte]=1280&status=ready')).body.data.map((a: { _id: string }) => a._id)).toContain(id);
    expect((await filtered('duration[lt]=1')).body.data).toEqual([]);
    expect((await filtered('filename=other.mp4')).body.data).toEqual([]);
    const bogus = await request(stack.url).get(`/v1.3/indexes/${indexId}/indexed-assets?status=bogus`).set('x-api-key', key);
    expect([bogus.status, bogus.body.code]).toEqual([400, 'parameter_invalid']);
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
    // Deleting the video through the videos API takes the indexed asset with it.
    await client.indexes.videos.delete(indexId, again.id!);
    expect((await request(stack.url).get(`/v1.3/indexes/${indexId}/indexed-assets/${again.id}`).set('x-api-key', key)).status).toBe(404);
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

// Last: what the SDK received through the recorder.
it('every answer the SDK got matches the v1.3 OpenAPI document', async () => {
  expect(recorder.exchanges.length).toBeGreaterThan(10);
  expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
});
