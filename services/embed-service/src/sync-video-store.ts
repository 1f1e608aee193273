import type { Database } from '@vus/db';
import { enqueueEvents, usageRecorded } from '@vus/events';
import type { VideoUsageStore } from './sync-video';

/** A synchronous video embedding's seconds go out as usage.recorded through the outbox, as an embed task's do (task-store finish). */
export function createVideoUsageStore(db: Database, eventsWritten: () => void = () => undefined): VideoUsageStore {
  return {
    async recordVideoSeconds(orgId, { key, seconds, at }) {
      await db.withTx((tx) =>
        enqueueEvents(tx, [
          usageRecorded(orgId, { kind: 'media_seconds', quantity: seconds, idempotencyKey: key, occurredAt: at, category: 'embed_video' }),
        ]),
      );
      eventsWritten();
    },
  };
}
