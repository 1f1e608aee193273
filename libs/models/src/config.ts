import { z } from 'zod';
import { envBoolean, loadConfig } from '@vus/core';

export interface PocketSphinxConfig {
  /** `pocketsphinx_continuous`, by name (PATH) or path. */
  readonly binary: string;
  /** The folder of `pocketsphinx-en-us`: `en-us/` (acoustic model), `en-us.lm.bin`, `cmudict-en-us.dict`. */
  readonly modelDir: string;
  /** Processes run at once on one audio track. */
  readonly processes: number;
}

export const POCKETSPHINX_DEFAULTS: PocketSphinxConfig = Object.freeze({
  binary: 'pocketsphinx_continuous',
  modelDir: '/usr/share/pocketsphinx/model/en-us',
  processes: 2,
});

/**
 * The text reader, the object detector and the face models each in a thread of their own: on the
 * SDK's example the three carry 7.4, 7.3 and 6.6 CPU-s, where with two threads the text reader and
 * the face models shared one (14.2 CPU-s), the pass's slowest lane: 8.2× → 9.5–9.9× real time
 * without speech on 2 cores, about 60 MiB more (issue 30, scripts/bench/indexing-real.js).
 */
export const VISION_THREADS_DEFAULT = 3;

/**
 * Environment of the model registry. Services merge `modelsEnvSchema.shape` into their own
 * schema (or call `loadModelsConfig(process.env)` from main.ts).
 */
export const modelsEnvSchema = z.object({
  /** Folder of downloadable models, laid out as `<MODELS_DIR>/<model id>/…` (transformers.js layout). */
  MODELS_DIR: z.string().default('./models'),
  /** Let transformers.js fetch missing models from the Hugging Face hub into MODELS_DIR. Never in tests. */
  MODELS_ALLOW_DOWNLOAD: envBoolean.default(false),
  /** Hugging Face id of the CLIP model (image + text in one space). */
  MODELS_CLIP: z.string().default('Xenova/clip-vit-base-patch32'),
  /** Hugging Face id of the CLAP model (audio + text in one space), served by embed-service. */
  MODELS_CLAP: z.string().default('Xenova/clap-htsat-unfused'),
  /** Hugging Face id of the Whisper model (speech to text with timestamps). */
  MODELS_WHISPER: z.string().default('Xenova/whisper-tiny'),
  /**
   * The bundled speech recogniser: PocketSphinx's `pocketsphinx_continuous` (Debian package
   * `pocketsphinx`), a name looked up on PATH or a path. `off` turns it off.
   */
  MODELS_POCKETSPHINX: z.string().min(1).default(POCKETSPHINX_DEFAULTS.binary),
  /** Its acoustic model, language model and dictionary (Debian package `pocketsphinx-en-us`). */
  MODELS_POCKETSPHINX_MODEL: z.string().min(1).default(POCKETSPHINX_DEFAULTS.modelDir),
  /** Recogniser processes run at once on one audio track (each takes one core). */
  MODELS_SPEECH_PROCESSES: z.coerce.number().int().min(1).max(64).default(POCKETSPHINX_DEFAULTS.processes),
  /**
   * Worker threads the frame models run in (vision/thread): 0 on the main thread, 1 all in one, 2
   * the object detector in one and the text reader and face models in the other, 3 the text reader
   * in a third.
   */
  MODELS_VISION_THREADS: z.coerce.number().int().min(0).max(3).default(VISION_THREADS_DEFAULT),
});

export interface ModelsConfig {
  readonly modelsDir: string;
  readonly allowDownload: boolean;
  readonly clipModel: string;
  /** The CLAP model; absent: `Xenova/clap-htsat-unfused`. */
  readonly clapModel?: string | undefined;
  readonly whisperModel: string;
  /** The bundled speech recogniser; absent: not used (tests that want no speech leave it out). */
  readonly pocketsphinx?: PocketSphinxConfig | undefined;
  /** Worker threads of the frame models (MODELS_VISION_THREADS); absent: VISION_THREADS_DEFAULT. */
  readonly visionThreads?: number | undefined;
}

export function modelsConfigFromEnv(parsed: z.infer<typeof modelsEnvSchema>): ModelsConfig {
  return {
    modelsDir: parsed.MODELS_DIR,
    allowDownload: parsed.MODELS_ALLOW_DOWNLOAD,
    clipModel: parsed.MODELS_CLIP,
    clapModel: parsed.MODELS_CLAP,
    whisperModel: parsed.MODELS_WHISPER,
    visionThreads: parsed.MODELS_VISION_THREADS,
    pocketsphinx:
      parsed.MODELS_POCKETSPHINX === 'off'
        ? undefined
        : { binary: parsed.MODELS_POCKETSPHINX, modelDir: parsed.MODELS_POCKETSPHINX_MODEL, processes: parsed.MODELS_SPEECH_PROCESSES },
  };
}

/** Reads and validates the models' variables; throws `ConfigError` naming each bad one. */
export function loadModelsConfig(env: Readonly<Record<string, string | undefined>>): ModelsConfig {
  return modelsConfigFromEnv(loadConfig(modelsEnvSchema, env));
}
