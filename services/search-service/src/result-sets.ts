import type { Clock, Logger } from '@vus/core';
import { intervalJob, type BackgroundJob } from '@vus/service';
import type { SegmentStore } from './store';

/** Expired result sets are kept a day, so that an old token reads "expired" rather than "unknown". */
const EXPIRED_KEPT_MS = 86_400_000;

/** The background job that deletes result sets a day past their expiry, every ten minutes. */
export function purgeResultSetsJob(store: SegmentStore, clock: Clock, logger: Logger): BackgroundJob {
  return intervalJob({
    name: 'purge-result-sets',
    everyMs: 600_000,
    logger,
    run: () => store.purgeResultSets(new Date(clock.now().getTime() - EXPIRED_KEPT_MS)),
  });
}
