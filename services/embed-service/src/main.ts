import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { DEFAULT_FETCH_POLICY, fetchBytes } from '@vus/fetch';
import { JOBS_MIGRATIONS } from '@vus/jobs';
import { ConceptEmbedder, createModelRegistry, modelsConfigFromEnv, modelsEnvSchema, openWordVectors, type ModelRegistry } from '@vus/models';
import { defineService, intervalJob, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { openWordNet } from '@vus/wordnet';
import { join } from 'node:path';
import { z } from 'zod';
import { decodeAudio } from './audio';
import { createEmbedService, SYNC_LIMITS } from './embed';
import { embedServiceImplementation } from './server';
import { createUsageStore } from './store';
import { embedTaskRunner } from './task-job';
import { createEmbedTaskStore } from './task-store';
import { createEmbedTasks } from './tasks';

export interface EmbedServiceOptions {
  /** The bundled detector and OCR (and a speech recogniser when MODELS_DIR has one). Embedded mode shares the process's registry. */
  models: ModelRegistry;
  /** Hosts a media URL may reach even on private addresses (tests serve media on 127.0.0.1). */
  fetchAllowHosts?: readonly string[];
  /** The blob store the gateway puts embed-task uploads in; without one, tasks take URLs only. */
  blobs?: BlobStore | undefined;
  /** How often the task runner looks for work without being woken. */
  taskPollMs?: number;
}

/** The largest video an embed task downloads. */
const TASK_VIDEO_MAX_BYTES = 2 * 1024 ** 3;

/** Embeddings of text, images, audio and video in one space (the bundled concept embedding); query vectors for the other services. */
export const embedService = defineService({
  name: 'embed-service',
  migrations: join(__dirname, '..', 'migrations'),
  // Embed tasks run as jobs of the job queue.
  libraryMigrations: [JOBS_MIGRATIONS],
  env: { ...modelsEnvSchema.shape, ...blobEnvShape, FETCH_ALLOW_HOSTS: z.string().optional() },
  fromEnv: async (config): Promise<EmbedServiceOptions> => ({
    models: createModelRegistry(modelsConfigFromEnv(config)),
    fetchAllowHosts: (config.FETCH_ALLOW_HOSTS ?? '').split(',').map((host) => host.trim()).filter(Boolean),
    blobs: config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined,
  }),
  async build({ db, clock, logger, onStop }, options: EmbedServiceOptions) {
    const wordnet = openWordNet();
    const vectors = openWordVectors();
    onStop(() => (wordnet.close(), vectors.close()));
    const { models } = options;
    // The extractors load on first use (not at boot): a process that never embeds an image never loads the detector.
    const embedder = new ConceptEmbedder(wordnet, vectors, {
      detector: { detectObjects: async (image) => (await models.find('object_detector'))?.detectObjects(image) ?? [] },
      textReader: { readText: async (image) => (await models.find('text_reader'))?.readText(image) ?? [] },
      speech: { transcribe: async (audio) => (await models.find('speech_recognizer'))?.transcribe(audio) ?? [] },
    });
    const embed = createEmbedService({ embedder, usage: createUsageStore(db), decodeAudio, providers: () => models.probe() });
    const allowHosts = options.fetchAllowHosts ?? [];
    const fetchPolicy = { ...DEFAULT_FETCH_POLICY, allowHosts, maxBytes: SYNC_LIMITS.audioBytes, idleTimeoutMs: 10_000 };
    const fetchMedia = (url: string, param: string) => fetchBytes(url, param, fetchPolicy);
    const taskTable = createEmbedTaskStore(db);
    const runner = embedTaskRunner({ db, tasks: taskTable, embedder, blobs: options.blobs, fetchPolicy: { ...DEFAULT_FETCH_POLICY, allowHosts, maxBytes: TASK_VIDEO_MAX_BYTES }, clock, logger, pollMs: options.taskPollMs });
    const tasks = createEmbedTasks({ store: taskTable, clock, queued: () => runner.wake() });
    return {
      implementation: embedServiceImplementation(embed, tasks, fetchMedia, logger),
      jobs: [
        { name: 'embed-tasks', start: () => (runner.start(), runner) },
        // Results are kept 7 days (API-CONTRACT §5.8).
        intervalJob({ name: 'purge-embed-tasks', everyMs: 3_600_000, logger, run: () => taskTable.purge(clock.now()) }),
      ],
    };
  },
});

export type RunningEmbedService = RunningService;
export const startEmbedService = (options: KitOptions & EmbedServiceOptions): Promise<RunningEmbedService> => startService(embedService, options);

if (require.main === module) runService(embedService);
