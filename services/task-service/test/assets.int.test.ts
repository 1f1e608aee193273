import { FileBlobStore } from '@vus/blob';
import { createLogger, ManualClock, newId } from '@vus/core';
import { DEFAULT_FETCH_POLICY } from '@vus/fetch';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { codeOf, errorOf } from '@vus/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createAssetService, MULTIPART_LIMITS, type AssetService } from '../src/assets/assets';
import { AssetProcessor, blobHead } from '../src/assets/processor';
import { joinChunkBlobs, quickCheck } from '../src/assets/start';
import { createIndexedAssetService } from '../src/assets/indexed-assets';
import { createAssetStore, PROCESS_ASSET_JOB } from '../src/assets/store';
import { createTaskStore } from '../src/tasks/store';
import { createTaskService } from '../src/tasks/tasks';
import { taskService } from '../src/main';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

describe.each(DATABASE_KINDS)('assets on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let blobs: FileBlobStore;
  let assets: AssetService;
  let processor: AssetProcessor;
  const dir = mkdtempSync(join(tmpdir(), 'vus-assets-int-'));

  const put = async (content: Buffer | string) => {
    const key = `uploads/${newId()}/file-0`;
    await blobs.put(key, Readable.from([Buffer.from(content)]));
    return key;
  };
  const jobsOf = async (assetId: string) =>
    (await database.db.query('SELECT 1 FROM jobs WHERE kind = $1 AND subject_id = $2', [PROCESS_ASSET_JOB, assetId])).rows.length;

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, taskService);
    clock = new ManualClock('2024-05-01T00:00:00Z');
    blobs = await FileBlobStore.open(dir);
    const store = createAssetStore(database.db);
    assets = createAssetService({
      store,
      blobs,
      head: (key) => blobHead(blobs, key),
      quickCheck,
      joinChunks: joinChunkBlobs(blobs),
      clock,
      chunkBytes: 4,
    });
    processor = new AssetProcessor({
      store,
      blobs,
      fetchPolicy: DEFAULT_FETCH_POLICY,
      clock,
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a direct upload as processing with its processing job, and processing makes it ready', async () => {
    const key = await put(Buffer.concat([PNG, Buffer.alloc(100)]));
    const asset = await assets.create(ORG, { method: 'direct', blobKey: key, filename: ' photo.png ', idempotencyKey: null });
    expect(asset).toMatchObject({ status: 'processing', method: 'direct', filename: 'photo.png', blobKey: key, media: null });
    expect(await jobsOf(asset.id)).toBe(1);
    await processor.process(asset.id, new AbortController().signal);
    expect(await assets.get(ORG, asset.id)).toMatchObject({
      status: 'ready',
      media: { assetType: 'image', mime: 'image/png', size: 116, duration: null },
    });
  });

  it('refuses a playlist upload at once and removes its file', async () => {
    const key = await put('#EXTM3U\n#EXTINF:4,\nhttp://169.254.169.254/latest\n');
    expect(await codeOf(assets.create(ORG, { method: 'direct', blobKey: key, filename: 'a.mp4', idempotencyKey: null }))).toBe(
      'unsupported_file_type',
    );
    expect(await blobs.stat(key)).toBeUndefined();
  });

  it('fails a file that is not media once processed, with a reason and no internals', async () => {
    // Binary noise passes the quick check; the probe refuses it.
    const key = await put(Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 7919) % 256)));
    const asset = await assets.create(ORG, { method: 'direct', blobKey: key, filename: 'noise.mp4', idempotencyKey: null });
    await processor.process(asset.id, new AbortController().signal);
    const failed = await assets.get(ORG, asset.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure?.message).not.toContain(dir);
  });

  it('answers a replayed create (same idempotency key) with the first asset, and drops the second file', async () => {
    const first = await assets.create(ORG, { method: 'direct', blobKey: await put(PNG), filename: 'a.png', idempotencyKey: 'k1' });
    const secondKey = await put(PNG);
    const second = await assets.create(ORG, { method: 'direct', blobKey: secondKey, filename: 'a.png', idempotencyKey: 'k1' });
    expect(second.id).toBe(first.id);
    expect(await blobs.stat(secondKey)).toBeUndefined();
    // Keys are per organization.
    const other = await assets.create(OTHER_ORG, { method: 'direct', blobKey: await put(PNG), filename: 'a.png', idempotencyKey: 'k1' });
    expect(other.id).not.toBe(first.id);
  });

  it("checks URLs, and hides another organization's assets", async () => {
    expect(await codeOf(assets.create(ORG, { method: 'url', url: 'file:///etc/passwd', filename: '', idempotencyKey: null }))).toBe(
      'parameter_invalid',
    );
    const linked = await assets.create(ORG, {
      method: 'url',
      url: 'https://example.com/media/clip%20one.mp4',
      filename: '',
      idempotencyKey: null,
    });
    expect(linked).toMatchObject({ filename: 'clip one.mp4', blobKey: null, sourceUrl: 'https://example.com/media/clip%20one.mp4' });
    expect(await codeOf(assets.get(OTHER_ORG, linked.id))).toBe('resource_not_exist');
    expect(await codeOf(assets.delete(OTHER_ORG, linked.id))).toBe('resource_not_exist');
    expect(await codeOf(assets.get(ORG, 'not-an-id'))).toBe('resource_not_exist');
  });

  it('lists by type and id, newest first, with page info', async () => {
    clock.advance(1000);
    const images = await assets.list(ORG, { types: ['image'] }, { pageLimit: 1 });
    expect(images.data).toHaveLength(1);
    expect(images.pageInfo).toMatchObject({ total_results: 1, limit_per_page: 1 });
    const all = await assets.list(ORG, {}, {});
    expect(all.data.map((a) => a.createdAt.getTime())).toEqual([...all.data.map((a) => a.createdAt.getTime())].sort((a, b) => b - a));
    expect((await assets.list(ORG, { filename: 'PHOTO' }, {})).data.map((a) => a.filename)).toEqual(['photo.png']);
    const one = await assets.list(ORG, { ids: [all.data[0]!.id] }, {});
    expect(one.data.map((a) => a.id)).toEqual([all.data[0]!.id]);
  });

  it('joins a multipart upload once every chunk is reported with its proof', async () => {
    const { asset, upload } = await assets.createUpload(ORG, { filename: 'big.png', type: 'image', totalSize: 10, idempotencyKey: null });
    expect(upload).toMatchObject({ chunkSize: 4, totalChunks: 3, status: 'active', assetId: asset.id });
    expect(await jobsOf(asset.id)).toBe(0);
    const content = Buffer.concat([PNG.subarray(0, 8), Buffer.from([1, 2])]);
    const parts = [content.subarray(0, 4), content.subarray(4, 8), content.subarray(8)];
    const stored: string[] = [];
    for (const [i, part] of parts.entries()) {
      const key = `multipart/${upload.id}/chunk-${i + 1}-${newId()}`;
      await blobs.put(key, Readable.from([part]));
      stored.push(key);
      await assets.recordChunk(ORG, upload.id, { index: i + 1, size: part.length, etag: `etag${i + 1}`, blobKey: key });
    }
    // A chunk of the wrong size is refused and its bytes dropped; one outside the upload's folder too.
    const wrong = `multipart/${upload.id}/chunk-2-${newId()}`;
    await blobs.put(wrong, Readable.from([Buffer.from([1])]));
    expect(await codeOf(assets.recordChunk(ORG, upload.id, { index: 2, size: 1, etag: 'x', blobKey: wrong }))).toBe('parameter_invalid');
    expect(await blobs.stat(wrong)).toBeUndefined();
    expect(await codeOf(assets.recordChunk(ORG, upload.id, { index: 1, size: 4, etag: 'x', blobKey: 'videos/x/file' }))).toBe(
      'parameter_invalid',
    );
    expect(await codeOf(assets.recordChunk(OTHER_ORG, upload.id, { index: 1, size: 4, etag: 'x', blobKey: stored[0]! }))).toBe(
      'resource_not_exist',
    );

    const report = (index: number, proof: string) => ({ index, proof, proofType: 'etag' });
    expect(await codeOf(assets.reportChunks(ORG, upload.id, [report(1, 'not-the-etag')]))).toBe('parameter_invalid');
    expect(await assets.reportChunks(ORG, upload.id, [report(1, '"etag1"'), report(2, 'etag2')])).toMatchObject({
      processed: 2,
      duplicates: 0,
      totalCompleted: 2,
      complete: false,
    });
    // The SDK retries: a chunk reported again is a duplicate.
    expect(await assets.reportChunks(ORG, upload.id, [report(2, 'etag2')])).toMatchObject({ processed: 0, duplicates: 1, complete: false });
    const status = await assets.chunks(await assets.getUpload(ORG, upload.id), {});
    expect(status.totals).toEqual({ stored: 1, completed: 2, completedBytes: 8 });

    const done = await assets.reportChunks(ORG, upload.id, [report(3, 'etag3')]);
    expect(done).toMatchObject({ assetId: asset.id, processed: 1, totalCompleted: 3, complete: true });
    expect((await assets.getUpload(ORG, upload.id)).status).toBe('completed');
    for (const key of stored) expect(await blobs.stat(key)).toBeUndefined();
    const joined = await assets.get(ORG, asset.id);
    expect(joined.blobKey).toBe(`assets/${asset.id}/file`);
    expect(await jobsOf(asset.id)).toBe(1);
    await processor.process(asset.id, new AbortController().signal);
    expect(await assets.get(ORG, asset.id)).toMatchObject({ status: 'ready', method: 'multipart', media: { mime: 'image/png', size: 10 } });
    // Reporting after completion changes nothing.
    expect(await assets.reportChunks(ORG, upload.id, [report(3, 'etag3')])).toMatchObject({ complete: true, processed: 0 });
    expect((await assets.listUploads(ORG, {})).data.map((u) => u.id)).not.toContain(upload.id);
  });

  it('refuses uploads beyond the limits, and expired ones', async () => {
    expect(await codeOf(assets.createUpload(ORG, { filename: 'x', type: 'video', totalSize: 5 * 1024 ** 3, idempotencyKey: null }))).toBe(
      'payload_too_large',
    );
    const { upload } = await assets.createUpload(ORG, { filename: 'x.png', type: 'image', totalSize: 4, idempotencyKey: null });
    expect((await assets.listUploads(ORG, {})).data.map((u) => u.id)).toContain(upload.id);
    clock.advance(25 * 3_600_000);
    expect((await assets.getUpload(ORG, upload.id)).status).toBe('expired');
    expect(await codeOf(assets.recordChunk(ORG, upload.id, { index: 1, size: 4, etag: 'e', blobKey: `multipart/${upload.id}/c` }))).toBe(
      'parameter_invalid',
    );
    expect((await assets.listUploads(ORG, {})).data.map((u) => u.id)).not.toContain(upload.id);
  });

  it('ends an abandoned upload: its asset fails and its chunks go', async () => {
    await assets.expireUploads(); // earlier tests' expired uploads
    const { asset, upload } = await assets.createUpload(ORG, { filename: 'half.png', type: 'image', totalSize: 8, idempotencyKey: null });
    const key = `multipart/${upload.id}/chunk-1-${newId()}`;
    await blobs.put(key, Readable.from([PNG.subarray(0, 4)]));
    await assets.recordChunk(ORG, upload.id, { index: 1, size: 4, etag: 'e1', blobKey: key });
    expect(await assets.expireUploads()).toBe(0);
    clock.advance(25 * 3_600_000);
    expect(await assets.expireUploads()).toBe(1);
    expect(await assets.get(ORG, asset.id)).toMatchObject({ status: 'failed', failure: { code: 'upload_expired' } });
    expect((await assets.getUpload(ORG, upload.id)).status).toBe('expired');
    expect(await blobs.stat(key)).toBeUndefined();
    expect(await assets.expireUploads()).toBe(0);
  });

  describe('issue 28 item 11: open multipart uploads per organization are capped', () => {
    const CAP = MULTIPART_LIMITS.maxOpenUploads;
    const open = (orgId: string, idempotencyKey: string | null = null) =>
      assets.createUpload(orgId, { filename: 'x.png', type: 'image', totalSize: 4, idempotencyKey });
    const assetCount = async (orgId: string) =>
      (await database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM assets WHERE org_id = $1', [orgId])).rows[0]!.n;

    it(`holds at most ${CAP} at once; beyond, 429 with what to do, and nothing is stored`, async () => {
      expect(CAP).toBeGreaterThanOrEqual(10);
      expect(CAP).toBeLessThanOrEqual(20);
      const org = newId();
      const first = await open(org, 'first-upload');
      for (let i = 1; i < CAP; i++) await open(org);
      const refused = await errorOf(open(org));
      expect(refused && [refused.code, refused.message]).toEqual([
        'usage_limit_exceeded',
        expect.stringMatching(new RegExp(`^This organization already has ${CAP} multipart uploads open`)),
      ]);
      expect(await assetCount(org)).toBe(CAP);
      // A replayed create (same idempotency key) is the earlier upload, not a new one: answered as before.
      expect((await open(org, 'first-upload')).upload.id).toBe(first.upload.id);
      // Another organization is not concerned.
      await open(newId());
    });

    it('a completed upload frees its place, and so does an expired one', async () => {
      const org = newId();
      const uploads = [];
      for (let i = 0; i < CAP; i++) uploads.push((await open(org)).upload);
      expect(await codeOf(open(org))).toBe('usage_limit_exceeded');
      const done = uploads[0]!;
      const key = `multipart/${done.id}/chunk-1-${newId()}`;
      await blobs.put(key, Readable.from([PNG.subarray(0, 4)]));
      await assets.recordChunk(org, done.id, { index: 1, size: 4, etag: 'e1', blobKey: key });
      expect(await assets.reportChunks(org, done.id, [{ index: 1, proof: 'e1', proofType: 'etag' }])).toMatchObject({ complete: true });
      await open(org);
      expect(await codeOf(open(org))).toBe('usage_limit_exceeded');
      // Past their 24 h, the open ones no longer count, even before the sweep marks them expired.
      clock.advance(MULTIPART_LIMITS.ttlMs + 1);
      await open(org);
    });

    it("deleting an upload's asset frees its place and removes the chunks it received", async () => {
      const org = newId();
      const uploads = [];
      for (let i = 0; i < CAP; i++) uploads.push(await open(org));
      const { asset, upload } = uploads[0]!;
      const key = `multipart/${upload.id}/chunk-1-${newId()}`;
      await blobs.put(key, Readable.from([PNG.subarray(0, 4)]));
      await assets.recordChunk(org, upload.id, { index: 1, size: 4, etag: 'e1', blobKey: key });
      await assets.delete(org, asset.id);
      expect(await blobs.stat(key)).toBeUndefined();
      await open(org);
    });

    it('concurrent creates do not overshoot the cap', async () => {
      const org = newId();
      const results = await Promise.allSettled(Array.from({ length: CAP + 5 }, () => open(org)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(CAP);
      const reasons = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : []));
      expect(reasons).toEqual(Array(5).fill('usage_limit_exceeded'));
      expect(await assetCount(org)).toBe(CAP);
    });
  });

  const indexedTask = async (assetId: string, blobKey: string, status: string) => {
    const task = { id: newId(), indexId: newId(), videoId: newId() };
    await database.db.query(
      `INSERT INTO tasks (id, org_id, index_id, video_id, status, source_kind, media_blob_key, filename, created_at, updated_at, asset_id)
       VALUES ($1, $2, $3, $4, $5, 'upload', $6, 'a.png', now(), now(), $7)`,
      [task.id, ORG, task.indexId, task.videoId, status, blobKey, assetId],
    );
    return task;
  };

  it('refuses (asset_in_use, 409) to delete an asset indexed assets reference unless forced, and keeps the file while a video uses it', async () => {
    const key = await put(PNG);
    const asset = await assets.create(ORG, { method: 'direct', blobKey: key, filename: 'a.png', idempotencyKey: null });
    const task = await indexedTask(asset.id, key, 'indexing');
    const refused = await errorOf(assets.delete(ORG, asset.id));
    expect(refused && [refused.code, refused.message]).toEqual([
      'asset_in_use',
      `1 indexed asset references the asset (GET /assets/${asset.id}/indexed-assets lists them). Delete them first, or send force=true.`,
    ]);
    // A ready (or failed) indexed asset still references it.
    await database.db.query("UPDATE tasks SET status = 'ready' WHERE id = $1", [task.id]);
    expect(await codeOf(assets.delete(ORG, asset.id))).toBe('asset_in_use');
    expect(await codeOf(assets.delete(ORG, asset.id, false))).toBe('asset_in_use');
    await assets.delete(ORG, asset.id, true);
    expect(await codeOf(assets.get(ORG, asset.id))).toBe('resource_not_exist');
    expect(await blobs.stat(key)).toBeDefined();
    // Without any task, the file goes with the asset.
    const alone = await assets.create(ORG, { method: 'direct', blobKey: await put(PNG), filename: 'b.png', idempotencyKey: null });
    await assets.delete(ORG, alone.id);
    expect(await blobs.stat(alone.blobKey!)).toBeUndefined();
  });

  it('replaces, merges and clears user metadata as the reference documents, bounded like videos', async () => {
    const asset = await assets.create(ORG, { method: 'direct', blobKey: await put(PNG), filename: 'm.png', idempotencyKey: null });
    expect(asset.userMetadata ?? null).toBeNull();
    let stored = await assets.setUserMetadata(
      ORG,
      asset.id,
      { category: 'recentlyAdded', batchNumber: 5, skip: '', gone: null },
      'replace',
    );
    expect(stored.userMetadata).toEqual({ category: 'recentlyAdded', batchNumber: 5 });
    stored = await assets.setUserMetadata(ORG, asset.id, { rating: 9.3, category: null, batchNumber: '' }, 'merge');
    expect(stored.userMetadata).toEqual({ batchNumber: 5, rating: 9.3 });
    expect((await assets.get(ORG, asset.id)).userMetadata).toEqual({ batchNumber: 5, rating: 9.3 });
    // Replacing with nothing, or clearing, leaves no metadata at all.
    expect((await assets.setUserMetadata(ORG, asset.id, {}, 'replace')).userMetadata).toBeNull();
    await assets.setUserMetadata(ORG, asset.id, { needsReview: true }, 'merge');
    expect((await assets.setUserMetadata(ORG, asset.id, {}, 'clear')).userMetadata).toBeNull();
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    expect(await errorOf(assets.setUserMetadata(ORG, asset.id, tooMany, 'replace'))).toMatchObject({
      code: 'parameter_invalid',
      message: 'The user_metadata parameter is invalid. It may hold at most 100 keys.',
    });
    // Merging may not grow it past 100 keys either.
    await assets.setUserMetadata(ORG, asset.id, Object.fromEntries(Object.entries(tooMany).slice(0, 100)), 'replace');
    expect(await codeOf(assets.setUserMetadata(ORG, asset.id, { one: 'more' }, 'merge'))).toBe('parameter_invalid');
    expect(await codeOf(assets.setUserMetadata(OTHER_ORG, asset.id, { a: 1 }, 'merge'))).toBe('resource_not_exist');
  });

  it("keeps POST /assets's user_metadata with the new asset, checked as a replacing PUT", async () => {
    const asset = await assets.create(ORG, {
      method: 'direct',
      blobKey: await put(PNG),
      filename: 'c.png',
      idempotencyKey: null,
      userMetadata: { category: 'new', count: 2, skipped: '' },
    });
    expect((await assets.get(ORG, asset.id)).userMetadata).toEqual({ category: 'new', count: 2 });
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    expect(
      await codeOf(
        assets.create(ORG, { method: 'url', url: 'https://example.com/a.mp4', filename: '', idempotencyKey: null, userMetadata: tooMany }),
      ),
    ).toBe('parameter_invalid');
  });

  it("lists an asset's indexed assets, and a video deleted through the videos API no longer references it", async () => {
    const key = await put(PNG);
    const asset = await assets.create(ORG, { method: 'direct', blobKey: key, filename: 'v.png', idempotencyKey: null });
    const kept = await indexedTask(asset.id, key, 'ready');
    const deletedVideo = await indexedTask(asset.id, key, 'ready');
    const running = await indexedTask(asset.id, key, 'indexing');
    const videos = new Set([kept.videoId]);
    const tasks = createTaskService({
      store: createTaskStore(database.db),
      indexes: { indexExists: async () => true, videoExists: async () => true },
      clock,
      eventsWritten: () => undefined,
    });
    const indexed = createIndexedAssetService({
      assets,
      tasks,
      taskStore: createTaskStore(database.db),
      videos: {
        userMetadata: async (_org, _index, videoId) => (videos.has(videoId) ? {} : undefined),
        updateUserMetadata: async () => undefined,
        delete: async () => false,
      },
    });
    const page = await indexed.listByAsset(ORG, asset.id, { page: 1, pageLimit: 10 });
    expect(page.data.map((v) => [v.task.videoId, v.status]).sort()).toEqual(
      [
        [kept.videoId, 'ready'],
        [running.videoId, 'indexing'],
      ].sort(),
    );
    expect(page.pageInfo.total_results).toBe(2);
    expect(deletedVideo.id).toBeDefined();
    expect(await codeOf(indexed.listByAsset(OTHER_ORG, asset.id, {}))).toBe('resource_not_exist');
    expect(await codeOf(indexed.deleteAsset(ORG, asset.id, false))).toBe('asset_in_use');
    // Once the other video is deleted too and the running one is removed, nothing references it.
    videos.delete(kept.videoId);
    await database.db.query('DELETE FROM tasks WHERE id = $1', [running.id]);
    await indexed.deleteAsset(ORG, asset.id, false);
    expect(await codeOf(assets.get(ORG, asset.id))).toBe('resource_not_exist');
  });
});
