import { deletedVideoBlobs } from '@vus/blob';
import type { Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { handleOnce, payloadOf, type EventHandler } from '@vus/events';

/** The consumer group (and handled-ids name) that removes a deleted video's artifact blobs. */
export const VIDEO_ARTIFACTS_GROUP = 'index-service.video-artifacts';

/** The blob delete it needs (libs/blob's BlobStore has it). */
export interface ArtifactBlobs {
  deletePrefix(prefix: string): Promise<number>;
}

/**
 * Removes a deleted video's artifacts from the blob store: its thumbnails, its stream and anything
 * else under its folder (a crashed run's thumbnails). Run on index-service's own `video.deleted`
 * (written in the delete's transaction, so a video or index delete always reaches it); the media
 * file the video was made from is task-service's upload and task-service's to remove. Deleting is
 * idempotent, so a redelivery only repeats harmless work; a store failure throws and the bus
 * delivers the event again.
 */
export function videoArtifactCleanup(deps: { db: Database; blobs: ArtifactBlobs; logger: Logger }): EventHandler {
  const { db, blobs, logger } = deps;
  return handleOnce(db, VIDEO_ARTIFACTS_GROUP, async (event) => {
    const deleted = payloadOf('video.deleted', event);
    if (!deleted) {
      logger.warn({ eventId: event.id }, 'video.deleted event without index_id, video_id and blob_keys; skipped');
      return 'skipped';
    }
    // Every artifact (the thumbnails the event names among them) lives in the video's folder.
    const { folder } = deletedVideoBlobs(deleted.video_id, deleted.blob_keys);
    if (!folder) {
      logger.warn({ eventId: event.id }, 'video.deleted names a video id that is not a plain name; its folder is left alone');
      return 'skipped';
    }
    const removed = await blobs.deletePrefix(folder);
    logger.info({ videoId: deleted.video_id, deleted: removed }, 'deleted video artifact blobs');
    return 'done';
  });
}
