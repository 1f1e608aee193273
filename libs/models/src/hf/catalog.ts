import type { ModelsConfig } from '../config';
import { CLAP_DEFAULT_MODEL, CLAP_FILES } from './clap';
import { CLIP_FILES } from './clip';
import { WHISPER_FILES } from './whisper';

/**
 * The downloadable models by the names `npm run models` takes: which Hugging Face repository, which
 * of its files the provider loads, what it adds and under which licence. `clip`, `clap` and
 * `whisper` are the configured ids (MODELS_CLIP, MODELS_CLAP, MODELS_WHISPER); `whisper-tiny` and
 * `whisper-base` name a size, for which MODELS_WHISPER must then be set to be used.
 */
export interface CatalogModel {
  readonly name: string;
  /** Hugging Face model id (`owner/name`), also its folder under MODELS_DIR. */
  readonly modelId: string;
  readonly files: readonly string[];
  /** The variable that makes a service load it, and the value it needs. */
  readonly variable: string;
  readonly licence: string;
  readonly adds: string;
}

const CLIP_ADDS = 'open-vocabulary visual search and image queries (instead of the bundled concept vectors)';
const CLAP_ADDS = 'sound-event search and audio embeddings (instead of the bundled concept vectors)';
const WHISPER_ADDS = 'speech recognition in many languages, far more words than PocketSphinx';

export function modelCatalog(config: ModelsConfig): CatalogModel[] {
  const whisper = (name: string, modelId: string): CatalogModel => ({
    name,
    modelId,
    files: WHISPER_FILES,
    variable: 'MODELS_WHISPER',
    licence: 'Apache-2.0 (OpenAI Whisper weights)',
    adds: WHISPER_ADDS,
  });
  return [
    {
      name: 'clip',
      modelId: config.clipModel,
      files: CLIP_FILES,
      variable: 'MODELS_CLIP',
      licence: 'MIT (OpenAI CLIP weights)',
      adds: CLIP_ADDS,
    },
    {
      name: 'clap',
      modelId: config.clapModel ?? CLAP_DEFAULT_MODEL,
      files: CLAP_FILES,
      variable: 'MODELS_CLAP',
      licence: 'Apache-2.0 (LAION CLAP weights)',
      adds: CLAP_ADDS,
    },
    whisper('whisper', config.whisperModel),
    whisper('whisper-tiny', 'Xenova/whisper-tiny'),
    whisper('whisper-base', 'Xenova/whisper-base'),
  ];
}

/** The catalog entry a name asks for, or undefined. */
export function catalogModel(config: ModelsConfig, name: string): CatalogModel | undefined {
  return modelCatalog(config).find((model) => model.name === name);
}

/** Whether the services will load this entry as configured (the size names only when the variable names them). */
export function isConfigured(config: ModelsConfig, model: CatalogModel): boolean {
  const configured: Record<string, string | undefined> = {
    MODELS_CLIP: config.clipModel,
    MODELS_CLAP: config.clapModel ?? CLAP_DEFAULT_MODEL,
    MODELS_WHISPER: config.whisperModel,
  };
  return configured[model.variable] === model.modelId;
}
