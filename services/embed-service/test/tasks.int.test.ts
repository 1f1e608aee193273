/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 *
 * Video embed tasks over gRPC: a generated video (a cat photo, then the word MOTORBIKE on screen)
 * fetched by URL, embedded per clip and as a whole by the job queue's runner; cross-modal ranking
 * on its clips, idempotent creation, limits and other organizations.
 */
import { embedMediaKey, FileBlobStore } from '@vus/blob';
import { createEmbedClient, type EmbedClient } from '@vus/clients';
import { createLogger, isApiError, newId } from '@vus/core';
import type { EmbedTask } from '@vus/grpc/types/embed/v1/EmbedTask';
import { cocoDetectorProvider, cosine, ModelRegistry, paddleOcrProvider } from '@vus/models';
import { generateVideo, serveFiles, type FileServer } from '@vus/testing';
import { mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedService, type RunningEmbedService } from '../src/main';
import { sweepRequestMedia } from '../src/request-media';
import { clipWindows, taskOptions } from '../src/tasks';

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe('embed task rules', () => {
  it.each([
    [
      0,
      12,
      6,
      [
        [0, 6],
        [6, 12],
      ],
    ],
    [
      1,
      8,
      3,
      [
        [1, 4],
        [4, 7],
        [7, 8],
      ],
    ],
    [0, 6.05, 6, [[0, 6]]],
  ])('clipWindows(%d, %d, %d)', (start, end, length, expected) => {
    expect(clipWindows(start, end, length).map((w) => [w.start, w.end])).toEqual(expected);
  });

  it.each([
    [{ clipLength: 1, scopes: [] }, 'video_clip_length'],
    [{ clipLength: 11, scopes: [] }, 'video_clip_length'],
    [{ startSec: -1, scopes: [] }, 'video_start_offset_sec'],
    [{ startSec: 5, endSec: 5, scopes: [] }, 'video_end_offset_sec'],
    [{ scopes: ['frame'] }, 'video_embedding_scope'],
  ])('refuses %j naming %s', (request, param) => {
    expect(() => taskOptions(request)).toThrow(expect.objectContaining({ code: 'parameter_invalid', details: { param } }));
  });

  it('defaults to 6 s clips from the start, clip scope; asset means video', () => {
    expect(taskOptions({ scopes: [] })).toEqual({
      inputType: 'video',
      embeddingOptions: ['visual', 'audio'],
      embeddingTypes: ['separate'],
      startSec: 0,
      clipLength: 6,
      scopes: ['clip'],
    });
    expect(taskOptions({ scopes: ['asset', 'clip'] }).scopes).toEqual(['video', 'clip']);
  });
});

describe('embed tasks over gRPC', () => {
  let dir: string;
  let service: RunningEmbedService;
  let client: EmbedClient;
  let files: FileServer;
  let blobs: FileBlobStore;
  let videoBytes: Buffer;
  const models = new ModelRegistry([cocoDetectorProvider(), paddleOcrProvider()]);
  const ctx = { orgId: newId() };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'embed-tasks-'));
    const video = await generateVideo('embed-cat-motorbike', {
      width: 640,
      height: 360,
      fps: 10,
      audio: 'none',
      container: 'mp4',
      scenes: [
        { durationSec: 4, background: '0x1f3b73', photos: ['cat'] },
        { durationSec: 4, background: '0xf4f1ea', texts: [{ text: 'MOTORBIKE', y: 160, fontSize: 64 }] },
      ],
    });
    files = await serveFiles({ 'video.mp4': video.path });
    videoBytes = await readFile(video.path);
    blobs = await FileBlobStore.open(join(dir, 'blobs'));
    service = await startEmbedService({
      blobs,
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: join(dir, 'db') },
      logger,
      models,
      fetchAllowHosts: ['127.0.0.1'],
      taskPollMs: 200,
    });
    client = createEmbedClient(service.address);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await service?.stop();
    await files?.close();
    await models.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  async function waitForDone(id: string): Promise<EmbedTask> {
    for (let i = 0; i < 600; i += 1) {
      const task = await client.getEmbedTaskStatus(ctx, { embed_task_id: id });
      if (task.status !== 'processing') return task;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the task did not finish');
  }

  it('embeds each 4 s clip and the whole video; a text finds the clip that shows it', async () => {
    const created = await client.createEmbedTask(ctx, {
      model_name: 'Marengo-retrieval-2.7',
      media: { url: files.url('video.mp4') },
      clip_length: 4,
      embedding_scopes: ['clip', 'video'],
      idempotency_key: 'k1',
    });
    expect(created.status).toBe('processing');
    const again = await client.createEmbedTask(ctx, {
      model_name: 'Marengo-retrieval-2.7',
      media: { url: files.url('video.mp4') },
      clip_length: 4,
      idempotency_key: 'k1',
    });
    expect(again.id).toBe(created.id);
    expect((await waitForDone(created.id)).status).toBe('ready');
    const all = (await client.getEmbedTask(ctx, { embed_task_id: created.id })).embedding?.segments ?? [];
    expect(all.map((s) => s.embedding_option)).toEqual(['visual', 'visual', 'visual', 'audio', 'audio', 'audio']);
    const task = await client.getEmbedTask(ctx, { embed_task_id: created.id, embedding_options: ['visual-text'] });
    const segments = task.embedding?.segments ?? [];
    expect(segments.map((s) => [s.embedding_scope, s.start, Math.round((s.end ?? 0) * 10) / 10])).toEqual([
      ['clip', 0, 4],
      ['clip', 4, 8],
      ['video', 0, 8],
    ]);
    expect(task.embedding?.metadata?.duration).toBeCloseTo(8, 0);
    const text = async (value: string) =>
      Float32Array.from(
        (await client.createEmbedding(ctx, { model_name: 'Marengo-retrieval-2.7', text: value })).text_embedding?.segments[0]?.vector ?? [],
      );
    const [catClip, motorbikeClip] = segments.map((s) => Float32Array.from(s.vector));
    const cat = await text('cat');
    const motorcycle = await text('motorcycle');
    expect(cosine(cat, catClip!)).toBeGreaterThan(cosine(cat, motorbikeClip!) + 0.2);
    expect(cosine(motorcycle, motorbikeClip!)).toBeGreaterThan(cosine(motorcycle, catClip!) + 0.2);
  }, 180_000);

  it("lists the organization's tasks; another organization sees none of them", async () => {
    const list = await client.listEmbedTasks(ctx, {});
    expect(list.data.length).toBeGreaterThan(0);
    const other = { orgId: newId() };
    expect((await client.listEmbedTasks(other, {})).data).toEqual([]);
    const code = await client.getEmbedTask(other, { embed_task_id: list.data[0]!.id }).then(
      () => 'found',
      (e: unknown) => (isApiError(e) ? e.code : String(e)),
    );
    expect(code).toBe('resource_not_exist');
  });

  it('fails a task whose URL is not a video, with a reason', async () => {
    const created = await client.createEmbedTask(ctx, {
      model_name: 'Marengo-retrieval-2.7',
      media: { url: `${files.baseUrl}/missing.mp4` },
    });
    const done = await waitForDone(created.id);
    expect(done.status).toBe('failed');
    expect(done.error_message).not.toBe('');
  }, 60_000);

  describe('issue 28 item 8: the media the gateway stored for a task is removed once the task is done', () => {
    const store = async (bytes: Buffer) => {
      const key = embedMediaKey(ctx.orgId, newId());
      await blobs.put(key, Readable.from([bytes]));
      return key;
    };
    const create = (blobKey: string, idempotencyKey = '') =>
      client.createEmbedTask(ctx, {
        model_name: 'Marengo-retrieval-2.7',
        media: { blob_key: blobKey },
        clip_length: 4,
        idempotency_key: idempotencyKey,
      });

    it('ready, failed, or made by an idempotency key already used: nothing is left; an asset file is kept', async () => {
      const embedded = await store(videoBytes);
      const broken = await store(Buffer.from('not a video'));
      const ready = await create(embedded, 'media-1');
      const replay = await store(videoBytes);
      expect((await create(replay, 'media-1')).id).toBe(ready.id);
      expect(await blobs.stat(replay)).toBeUndefined();
      const failed = await create(broken);
      // An asset's file is named by its own key (not a request's media): it stays.
      const asset = 'uploads/asset-file/video';
      await blobs.put(asset, Readable.from([videoBytes]));
      const fromAsset = await create(asset);
      expect((await waitForDone(ready.id)).status).toBe('ready');
      expect((await waitForDone(failed.id)).status).toBe('failed');
      expect((await waitForDone(fromAsset.id)).status).toBe('ready');
      // The media goes just after the status is written.
      const gone = async (key: string) => {
        for (let i = 0; i < 50 && (await blobs.stat(key)); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
        return (await blobs.stat(key)) === undefined;
      };
      expect(await gone(embedded)).toBe(true);
      expect(await gone(broken)).toBe(true);
      expect(await blobs.stat(asset)).toBeDefined();
    }, 120_000);

    it('the sweep removes old media no unfinished task uses, and keeps recent or used media', async () => {
      const old = new Date(Date.now() - 2 * 3600_000);
      const leftover = await store(Buffer.from('left by a crash'));
      const recent = await store(Buffer.from('about to be used'));
      const used = await store(Buffer.from('an unfinished task'));
      await utimes(blobs.pathOf(leftover), old, old);
      await utimes(blobs.pathOf(used), old, old);
      expect(await sweepRequestMedia(blobs, async () => new Set([used]), new Date())).toBe(1);
      expect(await blobs.stat(leftover)).toBeUndefined();
      expect(await blobs.stat(recent)).toBeDefined();
      expect(await blobs.stat(used)).toBeDefined();
    });
  });
});
