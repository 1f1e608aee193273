import { isValidBlobKey, videoOfStreamFolder } from '@vus/blob';
import { ApiError, isApiError } from '@vus/core';
import { extname } from 'node:path';

/** What a stream folder holds: the playlist, its MPEG-TS segments, a still. */
export const STREAM_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.jpg': 'image/jpeg',
};

/** The most bytes one message of a streamed file carries (gRPC messages stay small; memory stays flat). */
export const STREAM_CHUNK_BYTES = 64 * 1024;

/** What serving stream files needs from storage. */
export interface StreamStore {
  /**
   * The blob keys the video's stream was recorded with (playlist, stills), whichever organization
   * holds the video: the caller checked a signed URL, which names no organization. Undefined when
   * there is no such video; empty when it has no stream.
   */
  streamKeysOf(videoId: string): Promise<string[] | undefined>;
}

/** The blob reads it needs (libs/blob's BlobStore has them). */
export interface StreamBlobs {
  stat(key: string): Promise<{ size: number } | undefined>;
  get(key: string): Promise<AsyncIterable<Uint8Array>>;
}

export interface StreamFile {
  contentType: string;
  size: number;
  /** The bytes, no chunk over STREAM_CHUNK_BYTES; stopping the iteration early closes the blob. */
  chunks: AsyncIterable<Buffer>;
}

/** Re-cuts a byte stream into chunks of at most `max` bytes (a file stream's chunks may be larger). */
export async function* boundedChunks(source: AsyncIterable<Uint8Array>, max: number): AsyncIterable<Buffer> {
  for await (const chunk of source) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    for (let at = 0; at < bytes.length; at += max) yield bytes.subarray(at, at + max);
  }
}

const noSuchFile = () => new ApiError('resource_not_exist', 'This video stream has no such file.');

/** The folder part of a blob key, with its trailing slash. */
const folderOf = (key: string) => key.slice(0, key.lastIndexOf('/') + 1);

/**
 * Stream files, read for the gateway's signed stream URLs: only a plain file name of a known type,
 * only from the folder a video's stream was recorded in, only while that video exists. Every
 * refusal reads the same (a file of a deleted video is as absent as a misspelt one).
 */
export function createStreamService({ store, blobs }: { store: StreamStore; blobs: StreamBlobs | undefined }) {
  return {
    async open(folder: string, file: string): Promise<StreamFile> {
      const contentType = STREAM_CONTENT_TYPES[extname(file)];
      const key = `${folder}${file}`;
      const videoId = videoOfStreamFolder(folder);
      if (!contentType || file.includes('/') || !isValidBlobKey(key) || !videoId) throw noSuchFile();
      const recorded = await store.streamKeysOf(videoId);
      if (!recorded?.some((k) => folderOf(k) === folder)) throw noSuchFile();
      if (!blobs) throw new ApiError('service_unavailable', 'Video streams cannot be read: no blob store is configured.');
      const info = await blobs.stat(key);
      if (!info) throw noSuchFile();
      const source = await blobs.get(key).catch((error: unknown) => {
        // Deleted between the two reads.
        throw isApiError(error) && error.code === 'resource_not_exist' ? noSuchFile() : error;
      });
      return { contentType, size: info.size, chunks: boundedChunks(source, STREAM_CHUNK_BYTES) };
    },
  };
}

export type StreamService = ReturnType<typeof createStreamService>;
