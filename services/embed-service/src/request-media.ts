/**
 * The media of an embedding request that the gateway stored for it (an uploaded `video_file`, a
 * base64 `media_source`: keys made by embedMediaKey) is that request's alone: it is removed once
 * the task is done (ready or failed), and a sweep removes what a crash, or a server from before
 * this rule, left behind. An asset's file, which a task may also name by its blob key, is never
 * removed here.
 */
import { EMBED_MEDIA_FOLDER, isEmbedMediaKey, type BlobStore } from '@vus/blob';
import type { Clock, Logger } from '@vus/core';
import { intervalJob, type BackgroundJob } from '@vus/service';
import type { TaskSource } from './tasks';

/**
 * How old an unreferenced blob must be before the sweep removes it: the gateway stores the media
 * before it asks for the task or the synchronous embedding (at most 10 minutes), so a younger blob
 * may still be about to be used.
 */
export const UNUSED_MEDIA_AGE_MS = 60 * 60_000;

/** Removes the request's own stored media, if it has some; a failure is logged (the sweep retries). */
export async function discardRequestMedia(blobs: BlobStore | undefined, source: TaskSource, logger: Logger): Promise<void> {
  const key = source.blobKey;
  if (!blobs || key === undefined || !isEmbedMediaKey(key)) return;
  await blobs.delete(key).catch((error: unknown) => logger.warn({ err: error, key }, 'embed media could not be removed'));
}

/**
 * Removes stored request media that no unfinished task names and that is older than `minAgeMs`:
 * what was left by a crash between a task's end and its cleanup, by a gateway that stopped
 * mid-request, or by servers before media was removed. Returns how many blobs were removed.
 */
export async function sweepRequestMedia(
  blobs: BlobStore,
  inUse: () => Promise<ReadonlySet<string>>,
  now: Date,
  minAgeMs = UNUSED_MEDIA_AGE_MS,
): Promise<number> {
  const used = await inUse();
  const before = now.getTime() - minAgeMs;
  let removed = 0;
  for await (const blob of blobs.list(EMBED_MEDIA_FOLDER)) {
    if (blob.modifiedAt.getTime() >= before || used.has(blob.key)) continue;
    if (await blobs.delete(blob.key)) removed += 1;
  }
  return removed;
}

/** The sweep as a background job: at start (leftovers from before a restart), then hourly. */
export function mediaSweep(blobs: BlobStore, inUse: () => Promise<ReadonlySet<string>>, clock: Clock, logger: Logger): BackgroundJob {
  return intervalJob({
    name: 'sweep-embed-media',
    everyMs: 3_600_000,
    runAtStart: true,
    logger,
    run: async () => {
      const removed = await sweepRequestMedia(blobs, inUse, clock.now());
      if (removed > 0) logger.info({ removed }, 'removed embedding media no task uses');
    },
  });
}
