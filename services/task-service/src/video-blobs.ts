import { deletedVideoBlobs, type BlobStore } from '@vus/blob';
import type { Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { handleOnce, payloadOf, type EventHandler } from '@vus/events';
import { assetFilesAmong } from './assets/store';

// The worker writes a video's thumbnails and stream under this folder (index-service owns and removes it).
export { videoBlobPrefix } from '@vus/blob';

/** The consumer group (and handled-ids name) that removes a deleted video's media file. */
export const VIDEO_BLOBS_GROUP = 'task-service.video-blobs';

/** The consumer that removes deleted videos' media files; none without a blob store. */
export function videoBlobConsumers(deps: { db: Database; blobs: Pick<BlobStore, 'delete'> | undefined; logger: Logger }) {
  const { blobs } = deps;
  return blobs ? [{ group: VIDEO_BLOBS_GROUP, types: ['video.deleted'] as const, handler: videoBlobCleanup({ ...deps, blobs }) }] : [];
}

/**
 * Removes the media file a deleted video was made from: the task's upload (or fetched video_url),
 * task-service's to remove. The video's own blobs (thumbnails, stream: its folder) are
 * index-service's, removed there on the same event. Deleting is idempotent (an absent blob is
 * fine), so a redelivery only repeats harmless work; a store failure throws and the bus delivers
 * the event again.
 */
export function videoBlobCleanup(deps: { db: Database; blobs: Pick<BlobStore, 'delete'>; logger: Logger }): EventHandler {
  const { db, blobs, logger } = deps;
  return handleOnce(db, VIDEO_BLOBS_GROUP, async (event, tx) => {
    const deleted = payloadOf('video.deleted', event);
    if (!deleted) {
      logger.warn({ eventId: event.id }, 'video.deleted event without index_id, video_id and blob_keys; skipped');
      return 'skipped';
    }
    const { media, invalid } = deletedVideoBlobs(deleted.video_id, deleted.blob_keys);
    if (invalid.length > 0) logger.warn({ eventId: event.id, invalid }, 'video.deleted names keys that are not blob keys; left alone');
    let removed = 0;
    // A video indexed from an asset was made from the asset's file, which stays the asset's.
    // (In the handler's transaction: on PGlite a query beside it would wait for it forever.)
    const assetFiles = await assetFilesAmong(tx, media);
    for (const key of media) if (!assetFiles.has(key) && (await blobs.delete(key))) removed++;
    logger.info({ videoId: deleted.video_id, deleted: removed }, "deleted a video's media file");
    return 'done';
  });
}
