import type { Readable } from 'node:stream';

export interface BlobInfo {
  key: string;
  size: number;
  modifiedAt: Date;
}

export interface PutOptions {
  /** Abort when the source is longer than this (ApiError `payload_too_large`); nothing is stored. */
  maxBytes?: number;
  /** Abort when this fires; nothing is stored. */
  signal?: AbortSignal;
}

/** Inclusive byte range, as HTTP Range gives it. `end` defaults to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

/**
 * Where uploads, extracted audio, thumbnails and other large bytes live. Keys are validated
 * (see isValidBlobKey) by every implementation. A put is all or nothing: readers see the old
 * content or the new, never a part, and a failed or aborted put leaves nothing behind.
 */
export interface BlobStore {
  /** Streams `source` into `key` (replacing it), never holding it whole in memory. */
  put(key: string, source: Readable | AsyncIterable<Uint8Array>, options?: PutOptions): Promise<BlobInfo>;
  /** A stream of the content (or a range of it). ApiError `resource_not_exist` if absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size and time, or undefined if absent. */
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Copies the blob to a local file (ffmpeg needs a seekable file). `resource_not_exist` if absent. */
  download(key: string, destPath: string): Promise<BlobInfo>;
  /** True if something was deleted. */
  delete(key: string): Promise<boolean>;
  /**
   * Deletes every blob whose key starts with `prefix` (`videos/abc/` for a folder, `videos/abc`
   * also matches `videos/abc.mp4`). Returns how many were deleted.
   */
  deletePrefix(prefix: string): Promise<number>;
  /** Every blob under a folder prefix (`embed-tasks/`), with its size and time; for sweeps of leftovers. */
  list(folder: string): AsyncIterable<BlobInfo>;
}
