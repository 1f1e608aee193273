/*
 * A task that fails while indexing removes the blobs it stored for its video (thumbnails, the
 * stream) when index-service has no such video — nothing else would ever delete them — and keeps
 * them when the video exists or when index-service cannot say.
 */
import { FileBlobStore } from '@vus/blob';
import { ApiError, createLogger, newId } from '@vus/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { PipelineDeps } from '../src/worker/pipeline-deps';
import { dropBlobsOfUnwrittenVideo } from '../src/worker/stages/store';

const logger = createLogger({ service: 'unwritten-video-test', level: 'silent' });
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vus-unwritten-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const unused = async (): Promise<never> => {
  throw new Error('not called');
};

it.each([
  ['index-service has no such video', () => Promise.reject(new ApiError('resource_not_exist', 'no video')), false],
  ['the video exists', () => Promise.resolve({}), true],
  ['index-service cannot be reached', () => Promise.reject(new Error('connect ECONNREFUSED')), true],
  ['index-service fails otherwise', () => Promise.reject(new ApiError('internal_error', 'boom')), true],
])('%s: the video’s blobs kept = %s', async (_case, getVideo, kept) => {
  const blobs = await FileBlobStore.open(join(dir, newId()));
  const videoId = newId();
  const other = newId();
  const put = (key: string) => blobs.put(key, Readable.from([Buffer.from('x')]));
  await put(`videos/${videoId}/thumbnails/0.jpg`);
  await put(`videos/${videoId}/hls/index.m3u8`);
  await put(`videos/${other}/thumbnails/0.jpg`);
  const index = { getVideo, getIndex: unused, createVideo: unused, putVideoArtifacts: unused } as unknown as PipelineDeps['index'];

  await dropBlobsOfUnwrittenVideo({ index, blobs, logger }, { id: newId(), orgId: newId(), indexId: newId(), videoId });

  expect(Boolean(await blobs.stat(`videos/${videoId}/thumbnails/0.jpg`))).toBe(kept);
  expect(Boolean(await blobs.stat(`videos/${videoId}/hls/index.m3u8`))).toBe(kept);
  // Another video's folder is never touched.
  expect(await blobs.stat(`videos/${other}/thumbnails/0.jpg`)).toBeTruthy();
});
