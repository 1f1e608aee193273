import type { ModelProvider } from '@vus/grpc/types/embed/v1/ModelProvider';

/**
 * What the engines listing and `/health` say about the models behind the engines: one entry per
 * kind of model, keyed by kind (`speech`, `embeddings`; other kinds add their own key). Made from
 * embed-service's ListModels, whose registry is the indexing worker's (one process in embedded
 * mode, the same image and MODELS_DIR otherwise).
 */
export interface ProvidersListing {
  speech: SpeechEntry;
  /** Each embedding model name and the provider that embeds it. */
  embeddings: Record<string, EmbeddingEntry>;
}

/**
 * Which recogniser transcribes videos without subtitles: `whisper`, `pocketsphinx`, or `none`
 * (speech then comes only from subtitle tracks and transcription files, and `reason` says why).
 */
export interface SpeechEntry {
  provider: string;
  source?: string;
  reason?: string;
}

/**
 * Who embeds one model name: the bundled concept embedding (the API's Marengo names), or a
 * downloadable model of embed-service (CLIP for `clip`, search's visual vectors; CLAP for `clap`).
 * `available` false: it cannot load here, and `reason` says why (its files are not in MODELS_DIR).
 */
export interface EmbeddingEntry {
  provider: string;
  source: string;
  available: boolean;
  reason?: string;
}

const SPEECH_CAPABILITY = 'speech_recognizer';

/** The listing from the registry's providers, in its order of preference. Pure. */
export function presentProviders(providers: readonly ModelProvider[]): ProvidersListing {
  return { speech: speechEntry(providers), embeddings: embeddingEntries(providers) };
}

/** Model name → its provider, in the registry's order (the first provider of a name serves it). */
function embeddingEntries(providers: readonly ModelProvider[]): Record<string, EmbeddingEntry> {
  const entries: Record<string, EmbeddingEntry> = {};
  for (const p of providers) {
    for (const name of p.model_names) {
      entries[name] ??= { provider: p.name, source: p.source, available: p.loaded, ...(p.loaded || !p.error ? {} : { reason: p.error }) };
    }
  }
  return entries;
}

function speechEntry(providers: readonly ModelProvider[]): SpeechEntry {
  const speech = providers.filter((p) => p.capability === SPEECH_CAPABILITY);
  // The first that can load is the one the worker uses (the registry's order: Whisper, then PocketSphinx).
  const active = speech.find((p) => p.loaded);
  if (active) return { provider: active.name, source: active.source };
  const reasons = speech.map((p) => `${p.name}: ${p.error || 'not configured'}`).join('; ');
  return {
    provider: 'none',
    reason: `videos without subtitles or a transcription file are indexed without speech${reasons ? ` (${reasons})` : ''}`,
  };
}
