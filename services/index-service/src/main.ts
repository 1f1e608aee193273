import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { blobReader } from './blob-reader';
import { createIndexService } from './indexes';
import { indexServiceImplementation } from './server';
import { createIndexStore } from './index-store';
import { createStreamStore, createVideoStore } from './video-store';
import { createStreamService } from './streams';
import { VIDEO_ARTIFACTS_GROUP, videoArtifactCleanup } from './video-blobs';
import { createVideoService } from './videos';

export interface IndexServiceOptions {
  /**
   * The blob store the indexing worker writes thumbnails and streams to (read here, and removed
   * with their video); without one, their bytes answer service_unavailable.
   */
  blobs?: BlobStore | undefined;
}

/** Indexes, the engine catalogue, videos and their artifacts; publishes video events. */
export const indexService = defineService({
  name: 'index-service',
  migrations: join(__dirname, '..', 'migrations'),
  outbox: true,
  // Its own video.deleted: a deleted video's artifact blobs go.
  consumes: true,
  env: blobEnvShape,
  // The same store (shared volume) the indexing worker writes thumbnails and streams to.
  fromEnv: async (config): Promise<IndexServiceOptions> => ({
    blobs: config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined,
  }),
  async build({ db, clock, logger, eventsWritten }, { blobs }: IndexServiceOptions) {
    if (!blobs) logger.warn('no blob store configured: thumbnail and stream bytes cannot be served');
    const indexStore = createIndexStore(db);
    const indexes = createIndexService({ store: indexStore, clock, eventsWritten });
    const videos = createVideoService({
      store: createVideoStore(db),
      indexes: indexStore,
      blobs: blobs && blobReader(blobs),
      clock,
      eventsWritten,
    });
    const streams = createStreamService({ store: createStreamStore(db), blobs });
    return {
      implementation: indexServiceImplementation(indexes, videos, streams, logger),
      consumers: blobs
        ? [{ group: VIDEO_ARTIFACTS_GROUP, types: ['video.deleted'], handler: videoArtifactCleanup({ db, blobs, logger }) }]
        : [],
      withoutBus: "no event bus: deleted videos' thumbnails and streams stay in the blob store",
    };
  },
});

export type RunningIndexService = RunningService;
export const startIndexService = (options: KitOptions & IndexServiceOptions): Promise<RunningIndexService> =>
  startService(indexService, options);

if (require.main === module) runService(indexService);
