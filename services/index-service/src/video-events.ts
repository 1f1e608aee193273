import type { Clock } from '@vus/core';
import { buildEvent, type EventEnvelope } from '@vus/events';

/** What a deleted video leaves behind: enough for its consumers to remove segments and blobs. */
export interface DeletedVideo {
  id: string;
  indexId: string;
  /** The media file and every thumbnail. */
  blobKeys: string[];
}

export type VideoDeletedReason = 'video_deleted' | 'index_deleted';

/**
 * The `video.deleted` event, keyed by the video id. Its payload is the contract with the
 * consumers: search-service drops the video's segments, index-service itself removes the video's
 * folder of blobs (video-blobs.ts), task-service the media file among `blob_keys`.
 */
export function videoDeletedEvent(orgId: string, video: DeletedVideo, reason: VideoDeletedReason, clock: Clock): EventEnvelope {
  return buildEvent(
    'video.deleted',
    video.id,
    orgId,
    { index_id: video.indexId, video_id: video.id, blob_keys: video.blobKeys, reason },
    clock,
  );
}
