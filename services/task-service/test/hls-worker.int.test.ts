/*
 * The worker's video stream (HLS): made when the task asks for one, stored under the video's
 * folder and recorded on the task and on the video; absent when the task declined it; ERROR, with
 * the video indexed all the same, when it cannot be made.
 */
import type { BlobInfo, BlobStore } from '@vus/blob';
import { newId } from '@vus/core';
import { InProcessEventBus } from '@vus/events';
import { fromTimestamp } from '@vus/grpc';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { parseHlsPlaylist } from '@vus/media';
import { textScenesVideo } from '@vus/testing';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { startTaskStack, type TaskStack } from './stack';

const ORG = newId();

let stack: TaskStack;
let blobs: BlobStore;
/** Videos whose stream cannot be stored (a full disk, say). */
const failingStreams = new Set<string>();
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
  stack = await startTaskStack({
    name: 'hls-worker',
    bus: new InProcessEventBus(),
    worker: ({ blobs }) => ({ blobs: withFailingStreams(blobs) }),
  });
  blobs = stack.blobs;
  // Conversation only, without Whisper: the cheapest index (the frame pass still runs for stills).
  indexId = await stack.createIndex(ORG, ['conversation']);
  upload = await stack.upload((await textScenesVideo()).path);
}, 60_000);

afterAll(() => stack?.stop());

async function indexed(enableVideoStream: boolean | undefined, beforeStart?: (task: Task) => void): Promise<{ task: Task; video: Video }> {
  const request = {
    index_id: indexId,
    video_blob_key: upload,
    filename: 'scenes.mp4',
    ...(enableVideoStream === undefined ? {} : { enable_video_stream: enableVideoStream }),
  };
  const created = await stack.rpc<Task>(ORG, (md, opts, cb) => stack.tasks.CreateTask(request, md, opts, cb));
  beforeStart?.(created);
  const task = await stack.waitForTask(ORG, created.id);
  expect(task).toMatchObject({ status: 'ready', failure: null });
  const video = await stack.rpc<Video>(ORG, (md, opts, cb) =>
    stack.indexes.GetVideo({ index_id: indexId, video_id: task.video_id }, md, opts, cb),
  );
  return { task, video };
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
