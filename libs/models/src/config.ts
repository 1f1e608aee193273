import { z } from 'zod';
import { envBoolean, loadConfig } from '@vus/core';

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
  /** Hugging Face id of the Whisper model (speech to text with timestamps). */
  MODELS_WHISPER: z.string().default('Xenova/whisper-tiny'),
});

export interface ModelsConfig {
  readonly modelsDir: string;
  readonly allowDownload: boolean;
  readonly clipModel: string;
  readonly whisperModel: string;
}

export function modelsConfigFromEnv(parsed: z.infer<typeof modelsEnvSchema>): ModelsConfig {
  return {
    modelsDir: parsed.MODELS_DIR,
    allowDownload: parsed.MODELS_ALLOW_DOWNLOAD,
    clipModel: parsed.MODELS_CLIP,
    whisperModel: parsed.MODELS_WHISPER,
  };
}

/** Reads and validates the models' variables; throws `ConfigError` naming each bad one. */
export function loadModelsConfig(env: Readonly<Record<string, string | undefined>>): ModelsConfig {
  return modelsConfigFromEnv(loadConfig(modelsEnvSchema, env));
}
