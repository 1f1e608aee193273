import { JOBS_MIGRATIONS } from '@vus/jobs';
import { defineService, intervalJob, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { decodeAudio } from './audio';
import { openConceptEmbedder } from './concept-embedder';
import { createEmbedService } from './embed';
import { createModelServer } from './model-server';
import { embedEnvShape, embedOptionsFromEnv, type EmbedServiceOptions } from './env';
import { mediaFetching } from './fetching';
import { embedServiceImplementation } from './server';
import { createUsageStore } from './store';
import { embedTaskRunner } from './task-job';
import { createEmbedTaskStore } from './task-store';
import { discardRequestMedia, mediaSweep } from './request-media';
import { createEmbedTasks } from './tasks';
import { createIndexedVideoEmbedding } from './indexed-video';
import { createSyncVideoEmbedding } from './sync-video';
import { createVideoUsageStore } from './sync-video-store';

/** Embeddings of text, images, audio and video in one space (the bundled concept embedding); the model server (CLIP, CLAP) of the other services. */
export const embedService = defineService({
  name: 'embed-service',
  migrations: join(__dirname, '..', 'migrations'),
  // Embed tasks run as jobs of the job queue.
  libraryMigrations: [JOBS_MIGRATIONS],
  outbox: true, // usage.recorded events of embeddings and embed tasks (requests, seconds of media)
  env: embedEnvShape,
  fromEnv: embedOptionsFromEnv,
  async build({ db, clock, logger, onStop, eventsWritten }, options: EmbedServiceOptions) {
    const { embedder, close } = openConceptEmbedder(options.models);
    onStop(close);
    const usageStore = createUsageStore(db, eventsWritten);
    const embed = createEmbedService({ embedder, usage: usageStore, decodeAudio, providers: () => options.models.probe() });
    const { fetchMedia, taskPolicy } = mediaFetching(options.fetchAllowHosts);
    const taskTable = createEmbedTaskStore(db, eventsWritten);
    const media = { embedder, blobs: options.blobs, fetchPolicy: taskPolicy, clock };
    const runner = embedTaskRunner({ ...media, db, tasks: taskTable, logger, pollMs: options.taskPollMs });
    const modelServer = createModelServer({ models: options.models, decodeAudio });
    const tasks = createEmbedTasks({
      store: taskTable,
      clock,
      queued: () => runner.wake(),
      discardMedia: (source) => discardRequestMedia(options.blobs, source, logger),
    });
    const video = createSyncVideoEmbedding({ ...media, usage: createVideoUsageStore(db, eventsWritten) });
    const indexedVideo = createIndexedVideoEmbedding(embedder);
    const syncMedia = { video, blobs: options.blobs };
    return {
      implementation: embedServiceImplementation(embed, tasks, fetchMedia, indexedVideo, modelServer, logger, syncMedia),
      jobs: [
        { name: 'embed-tasks', start: () => (runner.start(), runner) },
        // Results are kept 7 days (API-CONTRACT §5.8).
        intervalJob({ name: 'purge-embed-tasks', everyMs: 3_600_000, logger, run: () => taskTable.purge(clock.now()) }),
        // Request media left by a crash or by servers before it was removed: swept at start, then hourly.
        ...(options.blobs ? [mediaSweep(options.blobs, () => taskTable.mediaInUse(), clock, logger)] : []),
      ],
    };
  },
});

export type { EmbedServiceOptions } from './env';
export type RunningEmbedService = RunningService;
export const startEmbedService = (options: KitOptions & EmbedServiceOptions): Promise<RunningEmbedService> =>
  startService(embedService, options);

if (require.main === module) runService(embedService);
