import { JOBS_MIGRATIONS } from '@vus/jobs';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { decodeAudio } from './audio';
import { openConceptEmbedder } from './concept-embedder';
import { createEmbedService } from './embed';
import { createModelServer } from './model-server';
import { embedEnvShape, embedOptionsFromEnv, type EmbedServiceOptions } from './env';
import { mediaFetching } from './fetching';
import { embedServiceImplementation } from './server';
import { createUsageStore } from './store';
import { embedTasksWithJobs } from './task-job';
import { createEmbedTaskStore } from './task-store';
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
    const { tasks, jobs } = embedTasksWithJobs({ ...media, db, tasks: taskTable, logger, pollMs: options.taskPollMs });
    const modelServer = createModelServer({ models: options.models, decodeAudio });
    const indexedVideo = createIndexedVideoEmbedding(embedder);
    const video = createSyncVideoEmbedding({ ...media, usage: createVideoUsageStore(db, eventsWritten) });
    const syncMedia = { video, blobs: options.blobs };
    return {
      implementation: embedServiceImplementation(embed, tasks, fetchMedia, indexedVideo, modelServer, logger, syncMedia),
      jobs,
    };
  },
});

export type { EmbedServiceOptions } from './env';
export type RunningEmbedService = RunningService;
export const startEmbedService = (options: KitOptions & EmbedServiceOptions): Promise<RunningEmbedService> =>
  startService(embedService, options);

if (require.main === module) runService(embedService);
