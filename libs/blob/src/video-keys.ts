import { isValidBlobKey } from './keys';

/**
 * Where a video's own blobs live, one folder per video: the indexing worker (task-service) writes
 * its thumbnails and HLS stream there, index-service owns them (reads them, removes the folder
 * with the video). The media file a video was made from is an upload, elsewhere (task-service's).
 */
export function videoBlobPrefix(videoId: string): string {
  return `videos/${videoId}/`;
}

/** The folder of a video's HLS stream: playlist, segments and a still. */
export function videoStreamFolder(videoId: string): string {
  return `${videoBlobPrefix(videoId)}hls/`;
}

/** One plain name: a valid key without a slash (so never '', '.', '..'). */
const isPlainName = (name: string) => isValidBlobKey(name) && !name.includes('/');

/** The video whose stream folder `folder` is, or undefined when it is not one. */
export function videoOfStreamFolder(folder: string): string | undefined {
  const videoId = /^videos\/([^/]+)\/hls\/$/.exec(folder)?.[1];
  return videoId !== undefined && isPlainName(videoId) ? videoId : undefined;
}

/** A deleted video's blobs, by owner. */
export interface DeletedVideoBlobs {
  /**
   * The video's folder: its artifacts (thumbnails, stream, and what was never recorded, such as a
   * crashed run's thumbnails), index-service's to remove. Undefined for a video id that is not one
   * plain name ('' would make it every video's folder).
   */
  folder: string | undefined;
  /** Keys outside the folder: the media file the video was made from, task-service's upload. */
  media: string[];
  /** Not blob keys: never passed to a store. */
  invalid: string[];
}

/** Splits what a `video.deleted` event names between the services that own it (each key once). */
export function deletedVideoBlobs(videoId: string, keys: readonly string[]): DeletedVideoBlobs {
  const unique = [...new Set(keys)];
  const folder = isPlainName(videoId) ? videoBlobPrefix(videoId) : undefined;
  return {
    folder,
    media: unique.filter((key) => isValidBlobKey(key) && !(folder !== undefined && key.startsWith(folder))),
    invalid: unique.filter((key) => !isValidBlobKey(key)),
  };
}
