import { isValidBlobKey, type BlobStore } from '@vus/blob';
import type { Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { handleOnce, isVideoDeleted, type EventHandler, type VideoDeletedPayload } from '@vus/events';
import { assetFilesAmong } from './assets/store';

/** The consumer group (and handled-ids name) that removes a deleted video's blobs. */
export const VIDEO_BLOBS_GROUP = 'task-service.video-blobs';

/** Where the worker writes a video's own blobs (thumbnails; see thumbnailKey). */
export function videoBlobPrefix(videoId: string): string {
  return `videos/${videoId}/`;
}

export interface VideoBlobs {
  /** The blobs the event names (media file, thumbnails), each a valid key, once. */
  keys: string[];
  /** The video's folder, which also holds what index-service never heard of (a crashed run's thumbnails). */
  prefix: string | undefined;
  /** Keys that are not blob keys: never passed to the store. */
  invalid: string[];
}

/** What to delete for a `video.deleted` payload. */
export function videoBlobsOf(payload: VideoDeletedPayload): VideoBlobs {
  const unique = [...new Set(payload.blob_keys)];
  // One plain name, never '' (which would make the prefix every video's folder).
  const folderSafe = isValidBlobKey(payload.video_id) && !payload.video_id.includes('/');
  return {
    keys: unique.filter((key) => isValidBlobKey(key)),
    invalid: unique.filter((key) => !isValidBlobKey(key)),
    prefix: folderSafe ? videoBlobPrefix(payload.video_id) : undefined,
  };
}

/**
 * Removes a deleted video's blobs: its media file, its thumbnails and anything else under its
 * folder. Deleting is idempotent (an absent blob is fine), so a redelivery or a crash between the
 * deletes and the handled mark only repeats harmless work; a store failure throws and the bus
 * delivers the event again.
 */
export function videoBlobCleanup(deps: { db: Database; blobs: BlobStore; logger: Logger }): EventHandler {
  const { db, blobs, logger } = deps;
  return handleOnce(db, VIDEO_BLOBS_GROUP, async (event) => {
    if (!isVideoDeleted(event.payload)) {
      logger.warn({ eventId: event.id }, 'video.deleted event without index_id, video_id and blob_keys; skipped');
      return 'skipped';
    }
    const { keys, prefix, invalid } = videoBlobsOf(event.payload);
    if (invalid.length > 0) logger.warn({ eventId: event.id, invalid }, 'video.deleted names keys that are not blob keys; left alone');
    let deleted = 0;
    // A video indexed from an asset was made from the asset's file, which stays the asset's.
    const assetFiles = await assetFilesAmong(db, keys);
    for (const key of keys) if (!assetFiles.has(key) && (await blobs.delete(key))) deleted++;
    if (prefix) deleted += await blobs.deletePrefix(prefix);
    logger.info({ videoId: event.payload.video_id, deleted }, 'deleted video blobs');
    return 'done';
  });
}
