/*
 * A deleted video's blobs go: index-service writes `video.deleted` (outbox → in-process bus); on it,
 * task-service removes the media file (its upload) and index-service the video's folder (the
 * thumbnails and whatever else is under it). Which key is whose: libs/blob's deletedVideoBlobs.
 */
import { FileBlobStore, type BlobStore } from '@vus/blob';
import { createIndexClient, type IndexClient } from '@vus/clients';
import { createLogger, newId } from '@vus/core';
import { createMemoryDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { buildEvent, InProcessEventBus, type EventEnvelope, type VideoDeletedPayload } from '@vus/events';
import { migrateService } from '@vus/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { taskService } from '../src/main';
import { videoBlobCleanup } from '../src/video-blobs';
import { thumbnailKey } from '../src/worker/stages/store';
import { startTaskStack, type TaskStack } from './stack';

const logger = createLogger({ service: 'video-blobs-test', level: 'silent' });

const payload = (overrides: Partial<VideoDeletedPayload>): VideoDeletedPayload => ({
  index_id: 'i1',
  video_id: 'v1',
  blob_keys: [],
  reason: 'video_deleted',
  ...overrides,
});

describe('video.deleted through index-service', () => {
  let stack: TaskStack;
  let blobs: BlobStore;
  let bus: InProcessEventBus;
  let index: IndexClient;
  const orgId = newId();

  beforeAll(async () => {
    bus = new InProcessEventBus({ logger, retryDelayMs: 10 });
    stack = await startTaskStack({ name: 'video-blobs', bus });
    blobs = stack.blobs;
    index = createIndexClient(stack.indexService.address);
  }, 60_000);

  afterAll(async () => {
    index?.close();
    await stack?.stop();
  });

  const ctx = () => ({ orgId, requestId: 'test', deadline: new Date(Date.now() + 10_000) });
  const put = (key: string) => blobs.put(key, Readable.from([Buffer.from(key)]));
  const present = async (keys: string[]) =>
    (await Promise.all(keys.map(async (k) => ((await blobs.stat(k)) ? k : undefined)))).filter(Boolean);
  const waitUntilGone = async (keys: string[]) => {
    for (const deadline = Date.now() + 10_000; (await present(keys)).length > 0; await new Promise((r) => setTimeout(r, 25))) {
      if (Date.now() > deadline) throw new Error(`still there: ${(await present(keys)).join(', ')}`);
    }
  };

  /** A video as the worker leaves it: media upload, thumbnails recorded in index-service, one the worker wrote but never recorded. */
  async function indexedVideo(indexId: string): Promise<{ id: string; keys: string[] }> {
    const id = newId();
    const media = `uploads/${newId()}/video_file-0`;
    const thumbnails = [thumbnailKey(id, 0), thumbnailKey(id, 5)];
    const unrecorded = thumbnailKey(id, 9.5);
    for (const key of [media, ...thumbnails, unrecorded]) await put(key);
    await index.createVideo(ctx(), {
      index_id: indexId,
      video_id: id,
      media_blob_key: media,
      extractors_run: ['visual'],
      system_metadata: { filename: 'clip.mp4', duration: 10, fps: 25, width: 1280, height: 720, size: 1000 },
    });
    await index.putVideoArtifacts(ctx(), {
      index_id: indexId,
      video_id: id,
      artifacts: { thumbnails: thumbnails.map((key, i) => ({ time: i * 5, blob_key: key, content_type: 'image/jpeg' })) },
    });
    return { id, keys: [media, ...thumbnails, unrecorded] };
  }

  const newIndex = () => stack.createIndex(orgId, ['visual']);

  it('deleting a video removes its media, its thumbnails and its folder, and nothing else', async () => {
    const indexId = await newIndex();
    const gone = await indexedVideo(indexId);
    const kept = await indexedVideo(indexId);
    await index.deleteVideo(ctx(), indexId, gone.id);
    await waitUntilGone(gone.keys);
    expect(await present(kept.keys)).toEqual(kept.keys);
    expect(bus.deadLetters).toEqual([]);
  });

  it('deleting an index removes the blobs of each of its videos', async () => {
    const indexId = await newIndex();
    const videos = [await indexedVideo(indexId), await indexedVideo(indexId)];
    await index.deleteIndex(ctx(), indexId);
    await waitUntilGone(videos.flatMap((v) => v.keys));
    expect(bus.deadLetters).toEqual([]);
  });

  it('an event delivered again, or naming blobs already gone, is fine', async () => {
    const video = await indexedVideo(await newIndex());
    const event = buildEvent<VideoDeletedPayload>(
      'video.deleted',
      video.id,
      orgId,
      payload({ video_id: video.id, blob_keys: [...video.keys, 'uploads/never/there'] }),
    );
    await bus.publish([event]);
    await waitUntilGone(video.keys);
    await put(thumbnailKey(video.id, 1));
    await bus.publish([event]);
    await bus.publish([{ ...event, id: newId() }]);
    await waitUntilGone([thumbnailKey(video.id, 1)]);
    expect(bus.deadLetters).toEqual([]);
  });
});

describe('videoBlobCleanup', () => {
  let database: ThrowawayDatabase;
  let dir: string;
  let blobs: FileBlobStore;

  beforeAll(async () => {
    database = await createMemoryDatabase();
    await migrateService(database.db, taskService);
    dir = mkdtempSync(join(tmpdir(), 'vus-video-blobs-'));
    blobs = await FileBlobStore.open(dir);
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const event = (p: Record<string, unknown>): EventEnvelope => buildEvent('video.deleted', 'v', 'org', p);

  it('a store failure leaves the event unhandled, so the redelivery does the work', async () => {
    const media = 'uploads/u9/video_file-0';
    await blobs.put(media, Readable.from([Buffer.from('x')]));
    let failures = 1;
    const flaky: BlobStore = Object.assign(Object.create(blobs) as FileBlobStore, {
      delete: async (key: string) => {
        if (failures-- > 0) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        return blobs.delete(key);
      },
    });
    const handle = videoBlobCleanup({ db: database.db, blobs: flaky, logger });
    const deleted = event(payload({ video_id: 'v9', blob_keys: [media] }));
    await expect(handle(deleted)).rejects.toThrow('EIO');
    expect(await blobs.stat(media)).toBeDefined();
    await expect(handle(deleted)).resolves.toBe('done');
    expect(await blobs.stat(media)).toBeUndefined();
    await expect(handle(deleted)).resolves.toBe('skipped');
  });

  it("leaves the video's own folder to index-service", async () => {
    await blobs.put('videos/v8/thumbnails/0.jpg', Readable.from([Buffer.from('x')]));
    const handle = videoBlobCleanup({ db: database.db, blobs, logger });
    await expect(handle(event(payload({ video_id: 'v8', blob_keys: ['videos/v8/thumbnails/0.jpg'] })))).resolves.toBe('done');
    expect(await blobs.stat('videos/v8/thumbnails/0.jpg')).toBeDefined();
  });

  it('skips a payload that is not a video.deleted payload', async () => {
    await expect(videoBlobCleanup({ db: database.db, blobs, logger })(event({ video_id: 'v1' }))).resolves.toBe('skipped');
  });
});
