import type { Database } from '@vus/db';
import { handleOnce, payloadOf } from '@vus/events';
import type { Consumer } from '@vus/service';
import { createFaceTrackStore } from './face-track-store';
import type { SegmentStore } from './store';

/** The consumer group (and handled-events name) of search-service. */
export const SEARCH_CONSUMER = 'search-service';

/** `video.deleted` drops the video's segments and face tracks (once per event). */
export function segmentCleanup(db: Database, store: Pick<SegmentStore, 'deleteVideo'>): Consumer {
  const faceTracks = createFaceTrackStore(db);
  return {
    group: SEARCH_CONSUMER,
    types: ['video.deleted'],
    handler: handleOnce(db, SEARCH_CONSUMER, async (event, tx) => {
      const deleted = payloadOf('video.deleted', event);
      if (!event.org_id || !deleted) return 'skipped';
      await store.deleteVideo(event.org_id, deleted.index_id, deleted.video_id, tx);
      await faceTracks.deleteVideo(event.org_id, deleted.index_id, deleted.video_id, tx);
      return 'done';
    }),
  };
}
