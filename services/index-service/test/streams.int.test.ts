/*
 * What index-service owns in the blob store, over gRPC: a video's stream files are read through
 * ReadVideoStreamFile (a header, then bounded chunks; a cancelled read ends quietly), and a deleted
 * video's folder goes on the service's own video.deleted (outbox → in-process bus).
 */
import { FileBlobStore } from '@vus/blob';
import { createIndexClient, type IndexClient } from '@vus/clients';
import { createLogger, newId } from '@vus/core';
import { InProcessEventBus } from '@vus/events';
import type { FileChunk } from '@vus/grpc/types/index/v1/FileChunk';
import { codeOf } from '@vus/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startIndexService, type RunningIndexService } from '../src/main';
import { STREAM_CHUNK_BYTES } from '../src/streams';

const logger = createLogger({ service: 'index-streams-test', level: 'silent' });
const ORG = newId();

let dir: string;
let blobs: FileBlobStore;
let bus: InProcessEventBus;
let service: RunningIndexService;
let index: IndexClient;
let indexId: string;

const ctx = (orgId: string | undefined = ORG) => ({ orgId, requestId: 'test', deadline: new Date(Date.now() + 10_000) });
const put = (key: string, bytes: Buffer) => blobs.put(key, Readable.from([bytes]));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vus-index-streams-'));
  blobs = await FileBlobStore.open(dir);
  bus = new InProcessEventBus({ logger, retryDelayMs: 10 });
  service = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, bus, logger, blobs });
  index = createIndexClient(service.address);
  indexId = (await index.createIndex(ctx(), { name: 'streams', models: [{ name: 'marengo2.7', options: ['visual'] }], addons: [] })).id;
}, 60_000);

afterAll(async () => {
  index?.close();
  await service?.stop();
  await bus?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A video as the worker stores it: its media upload, a stream (playlist, a segment of `segmentBytes`, a still), a thumbnail. */
async function streamedVideo(segmentBytes: number): Promise<{ id: string; folder: string; segment: Buffer; media: string }> {
  const id = newId();
  const folder = `videos/${id}/hls/`;
  const media = `uploads/${newId()}/video_file-0`;
  await put(media, Buffer.from('media'));
  const segment = Buffer.alloc(segmentBytes);
  for (let i = 0; i < segment.length; i++) segment[i] = i % 251;
  await put(`${folder}index.m3u8`, Buffer.from('#EXTM3U\n#EXTINF:2.0,\nseg0.ts\n#EXT-X-ENDLIST\n'));
  await put(`${folder}seg0.ts`, segment);
  await put(`${folder}thumbnail.jpg`, Buffer.from([0xff, 0xd8, 0xff]));
  await put(`videos/${id}/thumbnails/0.jpg`, Buffer.from([0xff, 0xd8, 0xff]));
  await index.createVideo(ctx(), {
    index_id: indexId,
    video_id: id,
    media_blob_key: media,
    extractors_run: ['visual'],
    system_metadata: { filename: 'clip.mp4', duration: 2, fps: 25, width: 320, height: 240, size: 1000 },
    hls: { video_url: `${folder}index.m3u8`, thumbnail_urls: [`${folder}thumbnail.jpg`], status: 'COMPLETE' },
  });
  return { id, folder, segment, media };
}

async function read(folder: string, file: string, signal?: AbortSignal): Promise<FileChunk[]> {
  const chunks: FileChunk[] = [];
  // No organization: the gateway's signed URL names none.
  for await (const chunk of index.readVideoStreamFile(ctx(undefined), { folder, file }, signal)) chunks.push(chunk);
  return chunks;
}

it('streams a file as a header and chunks of at most 64 KiB', async () => {
  const video = await streamedVideo(3 * STREAM_CHUNK_BYTES + 100);
  const [header, ...rest] = await read(video.folder, 'seg0.ts');
  expect(header).toMatchObject({ content_type: 'video/mp2t', size: video.segment.length });
  expect(header!.data.length).toBe(0);
  expect(rest.map((c) => c.data.length)).toEqual([STREAM_CHUNK_BYTES, STREAM_CHUNK_BYTES, STREAM_CHUNK_BYTES, 100]);
  expect(Buffer.concat(rest.map((c) => c.data)).equals(video.segment)).toBe(true);
  const [playlist] = await read(video.folder, 'index.m3u8');
  expect(playlist!.content_type).toBe('application/vnd.apple.mpegurl');
});

it('answers resource_not_exist for what is not a stream file of an existing video', async () => {
  const video = await streamedVideo(10);
  expect(await codeOf(read(video.folder, 'seg1.ts'))).toBe('resource_not_exist');
  expect(await codeOf(read(`videos/${video.id}/thumbnails/`, '0.jpg'))).toBe('resource_not_exist');
  expect(await codeOf(read(`videos/${newId()}/hls/`, 'index.m3u8'))).toBe('resource_not_exist');
});

it('a reader that goes away cancels the read', async () => {
  const video = await streamedVideo(64 * STREAM_CHUNK_BYTES);
  const gone = new AbortController();
  let received = 0;
  for await (const chunk of index.readVideoStreamFile(ctx(undefined), { folder: video.folder, file: 'seg0.ts' }, gone.signal)) {
    received += chunk.data.length;
    if (received > 0) gone.abort();
  }
  expect(received).toBeLessThan(video.segment.length);
  // The service still answers.
  expect((await read(video.folder, 'index.m3u8')).length).toBeGreaterThan(1);
});

it("deleting the video removes its folder and stops its stream; its media file is task-service's", async () => {
  const video = await streamedVideo(10);
  await index.deleteVideo(ctx(), indexId, video.id);
  // The folder goes file by file, on the service's own video.deleted event: wait for the last of them.
  const left = async () =>
    (await Promise.all([blobs.stat(`${video.folder}index.m3u8`), blobs.stat(`videos/${video.id}/thumbnails/0.jpg`)])).filter(Boolean);
  for (const deadline = Date.now() + 10_000; (await left()).length > 0;) {
    if (Date.now() > deadline) throw new Error(`the folder is still there: ${JSON.stringify(await left())}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(await blobs.stat(video.media)).toBeDefined();
  expect(await codeOf(read(video.folder, 'index.m3u8'))).toBe('resource_not_exist');
  expect(bus.deadLetters).toEqual([]);
});
