import { DEFAULT_FETCH_POLICY, fetchBytes } from '@vus/fetch';
import { ConceptEmbedder, createModelRegistry, modelsConfigFromEnv, modelsEnvSchema, openWordVectors, type ModelRegistry } from '@vus/models';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { openWordNet } from '@vus/wordnet';
import { join } from 'node:path';
import { z } from 'zod';
import { decodeAudio } from './audio';
import { createEmbedService, SYNC_LIMITS } from './embed';
import { embedServiceImplementation } from './server';
import { createUsageStore } from './store';

export interface EmbedServiceOptions {
  /** The bundled detector and OCR (and a speech recogniser when MODELS_DIR has one). Embedded mode shares the process's registry. */
  models: ModelRegistry;
  /** Hosts a media URL may reach even on private addresses (tests serve media on 127.0.0.1). */
  fetchAllowHosts?: readonly string[];
}

/** Embeddings of text, images and audio in one space (the bundled concept embedding); query vectors for the other services. */
export const embedService = defineService({
  name: 'embed-service',
  migrations: join(__dirname, '..', 'migrations'),
  env: { ...modelsEnvSchema.shape, FETCH_ALLOW_HOSTS: z.string().optional() },
  fromEnv: (config): EmbedServiceOptions => ({ models: createModelRegistry(modelsConfigFromEnv(config)), fetchAllowHosts: (config.FETCH_ALLOW_HOSTS ?? '').split(',').map((host) => host.trim()).filter(Boolean) }),
  async build({ db, logger, onStop }, options: EmbedServiceOptions) {
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
    const fetchPolicy = { ...DEFAULT_FETCH_POLICY, allowHosts: options.fetchAllowHosts ?? [], maxBytes: SYNC_LIMITS.audioBytes, idleTimeoutMs: 10_000 };
    const fetchMedia = (url: string, param: string) => fetchBytes(url, param, fetchPolicy);
    return { implementation: embedServiceImplementation(embed, fetchMedia, logger) };
  },
});

export type RunningEmbedService = RunningService;
export const startEmbedService = (options: KitOptions & EmbedServiceOptions): Promise<RunningEmbedService> => startService(embedService, options);

if (require.main === module) runService(embedService);
