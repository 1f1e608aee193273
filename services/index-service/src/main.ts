import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { blobReader } from './blob-reader';
import { createIndexService } from './indexes';
import { indexServiceImplementation } from './server';
import { createIndexStore, createVideoStore } from './store';
import { createVideoService } from './videos';

export interface IndexServiceOptions {
  /**
   * The blob store the indexing worker writes thumbnails to (GetVideoThumbnail reads them);
   * without one, thumbnail bytes answer service_unavailable.
   */
  blobs?: BlobStore | undefined;
}

/** Indexes, the engine catalogue, videos and their artifacts; publishes video events. */
export const indexService = defineService({
  name: 'index-service',
  migrations: join(__dirname, '..', 'migrations'),
  outbox: true,
  env: blobEnvShape,
  // The same store (shared volume) the indexing worker writes thumbnails to.
  fromEnv: async (config): Promise<IndexServiceOptions> => ({
    blobs: config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined,
  }),
  async build({ db, clock, logger, eventsWritten }, options: IndexServiceOptions) {
    if (!options.blobs) logger.warn('no blob store configured: thumbnail bytes cannot be served');
    const indexStore = createIndexStore(db);
    const indexes = createIndexService({ store: indexStore, clock, eventsWritten });
    const videos = createVideoService({
      store: createVideoStore(db),
      indexes: indexStore,
      blobs: options.blobs && blobReader(options.blobs),
      clock,
      eventsWritten,
    });
    return { implementation: indexServiceImplementation(indexes, videos, logger) };
  },
});

export type RunningIndexService = RunningService;
export const startIndexService = (options: KitOptions & IndexServiceOptions): Promise<RunningIndexService> =>
  startService(indexService, options);

if (require.main === module) runService(indexService);
