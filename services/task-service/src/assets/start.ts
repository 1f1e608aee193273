import type { BlobStore } from '@vus/blob';
import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { DEFAULT_FETCH_POLICY, type FetchPolicy } from '@vus/fetch';
import { intervalJob, type BackgroundJob } from '@vus/service';
import { Readable } from 'node:stream';
import { indexedVideos, type IndexClient } from '../index-client';
import type { AssetItemRemoval } from '../knowledge/knowledge-stores';
import { createTaskStore } from '../tasks/store';
import type { TaskService } from '../tasks/tasks';
import { createAssetService, type ChunkRecord } from './assets';
import { createIndexedAssetService } from './indexed-assets';
import { assetProcessingJob, blobHead } from './processor';
import { assetHandlers, type AssetHandlers } from './rpc';
import { sniffMedia } from './sniff';
import { ApiError } from '@vus/core';
import { createAssetStore } from './store';

/** Concatenates chunks, in order, into one blob; returns its size. */
export function joinChunkBlobs(blobs: BlobStore) {
  return async (chunks: ChunkRecord[], key: string): Promise<number> => {
    async function* bytes() {
      for (const chunk of chunks) yield* await blobs.get(chunk.blobKey);
    }
    return (await blobs.put(key, Readable.from(bytes()))).size;
  };
}

/** A direct upload that is surely not media (text, a playlist) is refused before it becomes an asset. */
export function quickCheck(head: Uint8Array): ApiError | undefined {
  const sniffed = sniffMedia(head);
  return sniffed.kind === 'refused' ? new ApiError('unsupported_file_type', sniffed.reason, { param: 'file' }) : undefined;
}

/**
 * Assets inside task-service, as parts of the service: the API handlers (assets, multipart
 * uploads, indexed assets) and the job runner that processes new assets (with a blob store).
 */
export function assetParts(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  tasks: TaskService;
  index: IndexClient;
  /** What deleting an asset does to the knowledge-store items made of it (knowledge/start.ts). */
  items: AssetItemRemoval;
  blobs?: BlobStore | undefined;
  fetch?: Partial<FetchPolicy> | undefined;
}): { handlers: AssetHandlers; jobs: BackgroundJob[] } {
  const { db, clock, logger, blobs } = deps;
  const store = createAssetStore(db);
  const assets = createAssetService({
    store,
    blobs,
    head: blobs && ((key) => blobHead(blobs, key)),
    quickCheck,
    joinChunks: blobs && joinChunkBlobs(blobs),
    clock,
  });
  const indexed = createIndexedAssetService({
    assets,
    tasks: deps.tasks,
    taskStore: createTaskStore(db),
    videos: indexedVideos(deps.index),
    items: deps.items,
  });
  const processing =
    blobs && assetProcessingJob(db, { store, blobs, fetchPolicy: { ...DEFAULT_FETCH_POLICY, ...deps.fetch }, clock, logger });
  // Uploads abandoned half-way: their assets fail and their chunks go, every ten minutes.
  const expiry = intervalJob({
    name: 'expire-multipart-uploads',
    everyMs: 600_000,
    runAtStart: true,
    logger,
    run: () => assets.expireUploads(),
  });
  return {
    handlers: assetHandlers(assets, indexed, clock, () => processing?.wake()),
    jobs: [expiry, ...(processing ? [processing.job] : [])],
  };
}
