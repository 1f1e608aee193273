/*
 * The worker's video stream (HLS): made when the task asks for one, stored under the video's
 * folder and recorded on the task and on the video; absent when the task declined it; ERROR, with
 * the video indexed all the same, when it cannot be made.
 */
import { FileBlobStore, type BlobInfo, type BlobStore } from '@vus/blob';
import { createLogger, newId } from '@vus/core';
import { InProcessEventBus } from '@vus/events';
import { callUnary, createClient, fromTimestamp, loadProto } from '@vus/grpc';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { parseHlsPlaylist } from '@vus/media';
import { createModelRegistry, type ModelRegistry } from '@vus/models';
import { textScenesVideo } from '@vus/testing';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { startTaskService, type RunningTaskService } from '../src/main';

const logger = createLogger({ service: 'hls-worker-test', level: 'silent' });
const ORG = newId();

let dir: string;
let blobs: BlobStore;
/** Videos whose stream cannot be stored (a full disk, say). */
const failingStreams = new Set<string>();
let bus: InProcessEventBus;
let models: ModelRegistry;
let indexService: RunningIndexService;
let taskService: RunningTaskService;
let indexes: IndexServiceClient;
let tasks: TaskServiceClient;
let indexId: string;
let upload: string;

/** The store, but puts under a failing video's hls/ folder throw. */
function withFailingStreams(store: BlobStore): BlobStore {
  return Object.assign(Object.create(store) as BlobStore, {
    put(key: string, source: Readable | AsyncIterable<Uint8Array>, options?: Parameters<BlobStore['put']>[2]): Promise<BlobInfo> {
      const videoId = /^videos\/([0-9a-f]{24})\/hls\//.exec(key)?.[1];
      if (videoId && failingStreams.has(videoId)) return Promise.reject(new Error('ENOSPC: no space left on device'));
      return store.put(key, source, options);
    },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vus-hls-worker-'));
  blobs = await FileBlobStore.open(join(dir, 'blobs'));
  bus = new InProcessEventBus();
  models = createModelRegistry({ modelsDir: join(dir, 'no-models'), allowDownload: false, clipModel: 'none/clip', whisperModel: 'none/whisper' });
  indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, bus, logger, blobs });
  const workerBlobs = withFailingStreams(blobs);
  taskService = await startTaskService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus,
    logger,
    indexServiceAddress: indexService.address,
    blobs,
    worker: { blobs: workerBlobs, models, workRoot: join(dir, 'work'), concurrency: 1, pollMs: 200 },
  });
  indexes = createClient(loadProto().proto.vus.index.v1.IndexService, indexService.address);
  tasks = createClient(loadProto().proto.vus.task.v1.TaskService, taskService.address);
  // Conversation only, without Whisper: the cheapest index (the frame pass still runs for stills).
  indexId = (await rpc<{ id: string }>((md, opts, cb) => indexes.CreateIndex({ name: 'hls', models: [{ name: 'marengo2.6', options: ['conversation'] }], addons: [] }, md, opts, cb))).id;
  upload = `uploads/${newId()}/video_file-0`;
  await blobs.put(upload, createReadStream((await textScenesVideo()).path));
}, 60_000);

afterAll(async () => {
  indexes?.close();
  tasks?.close();
  await taskService?.stop();
  await indexService?.stop();
  await models?.dispose();
  await bus?.close();
  rmSync(dir, { recursive: true, force: true });
});

function rpc<T>(invoke: Parameters<typeof callUnary<T>>[0]): Promise<T> {
  return callUnary<T>(invoke, { orgId: ORG });
}

async function indexed(enableVideoStream: boolean | undefined, beforeStart?: (task: Task) => void): Promise<{ task: Task; video: Video }> {
  const request = { index_id: indexId, video_blob_key: upload, filename: 'scenes.mp4', ...(enableVideoStream === undefined ? {} : { enable_video_stream: enableVideoStream }) };
  const created = await rpc<Task>((md, opts, cb) => tasks.CreateTask(request, md, opts, cb));
  beforeStart?.(created);
  for (;;) {
    const task = await rpc<Task>((md, opts, cb) => tasks.GetTask({ task_id: created.id }, md, opts, cb));
    if (task.status === 'ready' || task.status === 'failed') {
      expect(task).toMatchObject({ status: 'ready', failure: null });
      const video = await rpc<Video>((md, opts, cb) => indexes.GetVideo({ index_id: indexId, video_id: task.video_id }, md, opts, cb));
      return { task, video };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const readBlob = async (key: string) => text(await blobs.get(key));

it('makes the stream by default, stores it under the video and records it on the task and the video', async () => {
  const { task, video } = await indexed(undefined);
  const prefix = `videos/${task.video_id}/hls/`;
  expect(task.hls).toEqual({
    video_url: `${prefix}index.m3u8`,
    thumbnail_urls: [`${prefix}thumbnail.jpg`],
    status: 'COMPLETE',
    updated_at: expect.anything(),
  });
  expect(video.hls).toEqual(task.hls);
  expect(fromTimestamp(task.hls!.updated_at)!.getTime()).toBeGreaterThanOrEqual(fromTimestamp(task.created_at)!.getTime());

  const playlist = parseHlsPlaylist(await readBlob(task.hls!.video_url));
  expect(playlist).toMatchObject({ ended: true, playlistType: 'VOD' });
  expect(playlist.segments.reduce((sum, s) => sum + s.durationSec, 0)).toBeCloseTo(12, 0);
  for (const segment of playlist.segments) expect((await blobs.stat(`${prefix}${segment.uri}`))?.size).toBeGreaterThan(0);
  const still = await blobs.get(`${prefix}thumbnail.jpg`);
  const jpeg = Buffer.concat(await still.toArray());
  expect(jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
}, 60_000);

it('makes no stream when the task declined one', async () => {
  const { task, video } = await indexed(false);
  expect(task.hls).toBeNull();
  expect(video.hls).toBeNull();
  expect(await blobs.stat(`videos/${task.video_id}/hls/index.m3u8`)).toBeUndefined();
}, 60_000);

it('indexes the video all the same when the stream cannot be made, and says ERROR', async () => {
  const { task, video } = await indexed(true, (created) => failingStreams.add(created.video_id));
  expect(task.hls).toEqual({ video_url: '', thumbnail_urls: [], status: 'ERROR', updated_at: expect.anything() });
  expect(video.hls).toEqual(task.hls);
}, 60_000);
