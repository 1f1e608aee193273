import type { BlobStore } from '@vus/blob';
import { createEmbedClient } from '@vus/clients';
import { systemClock, type Clock, type Logger } from '@vus/core';
import type { Database } from '@vus/db';
import type { EventBus } from '@vus/events';
import { DEFAULT_FETCH_POLICY, type FetchPolicy } from '@vus/fetch';
import { createJobStore, runnerName } from '@vus/jobs';
import { describeSpeechProviders, type ModelRegistry } from '@vus/models';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIndexClient } from '../index-client';
import { createTaskLeaseStore } from '../tasks/store';
import { TaskPipeline } from './pipeline';
import { preloadModels } from './preload';
import type { MediaMeter } from './pipeline-deps';
import { searchSegmentSink } from './segments';
import { IndexingWorker } from './worker';
import { sweepWorkRoot, unfinishedTasksOf } from './work-dir';

export interface IndexingWorkerConfig {
  blobs: BlobStore;
  models: ModelRegistry;
  /** Charges media minutes (libs/limits Meter); without one nothing is charged. */
  meter?: MediaMeter | undefined;
  indexServiceAddress: string;
  /** search-service, for the segments; unset: indexed videos cannot be searched. */
  searchServiceAddress?: string | undefined;
  /** embed-service, the model server: clip vectors for visual search; unset: videos are indexed without them. */
  embedServiceAddress?: string | undefined;
  fetch?: Partial<FetchPolicy> | undefined;
  /** Temporary files; default: the OS temp folder. */
  workRoot?: string | undefined;
  /** Tasks indexed at once by this worker (CPU). */
  concurrency?: number | undefined;
  /** video_url downloads at once by this worker (I/O, beside the indexing slots). */
  fetchConcurrency?: number | undefined;
  /** At most this many downloads of one organization at once across all workers. */
  fetchPerOrgLimit?: number | undefined;
  leaseMs?: number | undefined;
  pollMs?: number | undefined;
  maxAttempts?: number | undefined;
  /** At most this many tasks of one organization indexed at once across all workers; unset: no cap. */
  perOrgLimit?: number | undefined;
  /** Load the indexing models when the worker starts rather than on the first video (default true). */
  preloadModels?: boolean | undefined;
  /** Frames sampled per second of video (default 1). */
  framesPerSecond?: number | undefined;
  owner?: string | undefined;
}

export const WORKER_DEFAULTS = {
  concurrency: 1,
  // Downloads wait on the network, not a core: several at once cost little, and one organization
  // gets half of them at most, so another organization's video_url starts at once.
  fetchConcurrency: 4,
  fetchPerOrgLimit: 2,
  leaseMs: 60_000,
  pollMs: 5_000,
  maxAttempts: 3,
  framesPerSecond: 1,
  frameWidth: 960,
  maxThumbnails: 10,
  maxTranscriptionBytes: 5 * 1024 * 1024,
} as const;

export interface RunningWorker {
  worker: IndexingWorker;
  stop(): Promise<void>;
}

/** Builds the indexing worker on a service's database and starts it. */
export async function startIndexingWorker(
  db: Database,
  config: IndexingWorkerConfig,
  context: { logger: Logger; bus?: EventBus | undefined; clock?: Clock | undefined; eventsWritten: () => void },
): Promise<RunningWorker> {
  const clock = context.clock ?? systemClock;
  const logger = context.logger.child({ component: 'indexing-worker' });
  const workRoot = config.workRoot ?? join(tmpdir(), 'vus-indexing');
  mkdirSync(workRoot, { recursive: true });
  const swept = await sweepWorkRoot(workRoot, unfinishedTasksOf(db));
  if (swept.length > 0) logger.info({ workRoot, swept }, 'removed the scratch folders of finished or deleted tasks');
  const index = createIndexClient(config.indexServiceAddress);
  const segments = config.searchServiceAddress ? searchSegmentSink(config.searchServiceAddress) : undefined;
  if (!segments) logger.warn('no search-service configured: indexed videos get no searchable segments');
  const clipVectors = config.embedServiceAddress ? createEmbedClient(config.embedServiceAddress) : undefined;
  const leases = createTaskLeaseStore(db);
  const owner = config.owner ?? runnerName();
  const pipeline = new TaskPipeline(
    {
      leases,
      blobs: config.blobs,
      index,
      models: config.models,
      segments,
      clipVectors,
      meter: config.meter,
      fetchPolicy: { ...DEFAULT_FETCH_POLICY, ...config.fetch },
      maxTranscriptionBytes: WORKER_DEFAULTS.maxTranscriptionBytes,
      workRoot,
      clock,
      logger,
      eventsWritten: context.eventsWritten,
      frames: {
        fps: config.framesPerSecond ?? WORKER_DEFAULTS.framesPerSecond,
        width: WORKER_DEFAULTS.frameWidth,
        maxThumbnails: WORKER_DEFAULTS.maxThumbnails,
      },
      maxAttempts: config.maxAttempts ?? WORKER_DEFAULTS.maxAttempts,
    },
    owner,
  );
  // A service loads its models at start: the first video then waits for none of them (in the background, so the service is up meanwhile).
  const preloading = config.preloadModels === false ? undefined : preloadModels(config.models, logger);
  const worker = new IndexingWorker(
    { jobs: createJobStore(db), leases, pipeline, clock, logger, bus: context.bus },
    {
      owner,
      concurrency: config.concurrency ?? WORKER_DEFAULTS.concurrency,
      fetchConcurrency: config.fetchConcurrency ?? WORKER_DEFAULTS.fetchConcurrency,
      fetchPerOrgLimit: config.fetchPerOrgLimit ?? WORKER_DEFAULTS.fetchPerOrgLimit,
      leaseMs: config.leaseMs ?? WORKER_DEFAULTS.leaseMs,
      pollMs: config.pollMs ?? WORKER_DEFAULTS.pollMs,
      maxAttempts: config.maxAttempts ?? WORKER_DEFAULTS.maxAttempts,
      perOrgLimit: config.perOrgLimit,
    },
  );
  await worker.start();
  logger.info(
    {
      owner,
      concurrency: config.concurrency ?? WORKER_DEFAULTS.concurrency,
      fetchConcurrency: config.fetchConcurrency ?? WORKER_DEFAULTS.fetchConcurrency,
    },
    'indexing worker started',
  );
  // Once per start: whether videos without subtitles will get speech, and if not, why (npm start
  // prints the same as its Speech line).
  const speech = describeSpeechProviders(await config.models.probe());
  logger.info({ speechProvider: speech.active ?? null }, `speech recognition: ${speech.message}`);
  return {
    worker,
    async stop() {
      await worker.stop();
      await preloading;
      index.close();
      segments?.close();
      clipVectors?.close();
    },
  };
}

/** The indexing worker as one of the kit's background jobs (none without a worker config); `running()` is the started worker, once started. */
export function indexingWorkerJob(
  db: Database,
  config: Omit<IndexingWorkerConfig, 'indexServiceAddress'> | undefined,
  indexServiceAddress: string,
  context: Parameters<typeof startIndexingWorker>[2],
): { job: { name: string; start: () => Promise<RunningWorker> }; running: () => RunningWorker | undefined } | undefined {
  if (!config) return undefined;
  let worker: RunningWorker | undefined;
  const start = async () => (worker = await startIndexingWorker(db, { ...config, indexServiceAddress }, context));
  return { job: { name: 'indexing-worker', start }, running: () => worker };
}
