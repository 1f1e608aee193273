import type {
  ClapAudioModelWithProjection,
  ClapTextModelWithProjection,
  FeatureExtractor,
  PreTrainedTokenizer,
  Tensor,
} from '@huggingface/transformers' with { 'resolution-mode': 'require' };
import type { ModelsConfig } from '../config';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { AudioEmbedder, Disposable } from '../types';
import { l2Normalise, missingModelReason, textEmbedding, transformers, unitEmbedding } from './transformers';

/**
 * CLAP through transformers.js: sounds and text embedded into one space, vectors L2-normalised.
 * Loads `<MODELS_DIR>/<MODELS_CLAP>/` (default `Xenova/clap-htsat-unfused`, 512 dimensions).
 *
 * The audio goes through the model's own feature extractor (log-mel spectrogram at 48 kHz, as
 * its preprocessor_config.json says). The model sees a fixed window (10 s for the released
 * checkpoints) and its extractor crops longer audio at a random place, so longer audio is cut
 * into whole windows here, each embedded, and the unit vectors averaged (then normalised again):
 * the same audio always gives the same vector, and every second of it counts.
 */

/** The files it loads (transformers.js layout), what `npm run models -- pull` fetches. */
export const CLAP_FILES: readonly string[] = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'preprocessor_config.json',
  'onnx/text_model.onnx',
  'onnx/audio_model.onnx',
];

export const CLAP_DEFAULT_MODEL = 'Xenova/clap-htsat-unfused';

export function clapProvider(config: ModelsConfig): ProviderDefinition<'audio_embedder'> {
  const model = config.clapModel ?? CLAP_DEFAULT_MODEL;
  return {
    capability: 'audio_embedder',
    name: 'clap',
    model,
    kind: 'downloadable',
    check: () => missingModelReason(config, 'CLAP', model, CLAP_FILES),
    load: () => ClapEmbedder.load(config, model),
  };
}

interface ExtractorConfig {
  sampling_rate?: unknown;
  nb_max_samples?: unknown;
}

/**
 * Where each window of `length` samples starts, covering `total` samples: whole windows, and a
 * last one that ends with the audio (overlapping the one before) unless it would be mostly a
 * repeat. Audio shorter than a window is one window (the extractor pads it).
 */
export function windowStarts(total: number, length: number): number[] {
  if (total <= length) return [0];
  const starts: number[] = [];
  for (let at = 0; at + length <= total; at += length) starts.push(at);
  const covered = starts[starts.length - 1]! + length;
  // A tail under a quarter window is left out: it would add a near-duplicate window for little sound.
  if (total - covered >= length / 4) starts.push(total - length);
  return starts;
}

/** The mean of unit vectors, normalised: the pooled embedding of several windows. */
export function poolNormalised(vectors: readonly Float32Array[]): Float32Array {
  const first = vectors[0];
  if (!first) throw new Error('nothing to pool');
  const sum = new Float32Array(first.length);
  for (const v of vectors) for (let i = 0; i < sum.length; i++) sum[i]! += v[i] ?? 0;
  return l2Normalise(sum);
}

export class ClapEmbedder implements AudioEmbedder, Disposable {
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly extractor: FeatureExtractor,
    private readonly textModel: ClapTextModelWithProjection,
    private readonly audioModel: ClapAudioModelWithProjection,
    readonly dimensions: number,
    readonly sampleRate: number,
    /** Samples the model sees at once. */
    private readonly windowSamples: number,
  ) {}

  static async load(config: ModelsConfig, id = config.clapModel ?? CLAP_DEFAULT_MODEL): Promise<ClapEmbedder> {
    const lib = await transformers(config);
    const options = { dtype: 'fp32' as const, device: 'cpu' as const };
    const [tokenizer, extractor, textModel, audioModel] = await Promise.all([
      lib.AutoTokenizer.from_pretrained(id),
      lib.AutoFeatureExtractor.from_pretrained(id),
      lib.ClapTextModelWithProjection.from_pretrained(id, options),
      lib.ClapAudioModelWithProjection.from_pretrained(id, options),
    ]);
    const projection = (textModel.config as { projection_dim?: unknown }).projection_dim;
    if (typeof projection !== 'number') throw new Error(`${id}/config.json has no projection_dim`);
    const { sampling_rate: rate, nb_max_samples: window } = (extractor as unknown as { config: ExtractorConfig }).config;
    if (typeof rate !== 'number' || typeof window !== 'number' || !(rate > 0) || !(window > 0))
      throw new Error(`${id}/preprocessor_config.json needs sampling_rate and nb_max_samples`);
    return new ClapEmbedder(tokenizer, extractor, textModel, audioModel, projection, rate, window);
  }

  embedAudio(samples: Float32Array): Promise<Float32Array> {
    if (samples.length === 0) return Promise.reject(new Error('CLAP was given no audio samples'));
    return this.queue.run(async () => {
      const windows: Float32Array[] = [];
      for (const start of windowStarts(samples.length, this.windowSamples)) {
        const inputs = (await this.extractor(samples.subarray(start, start + this.windowSamples))) as Record<string, Tensor>;
        const { audio_embeds } = (await this.audioModel(inputs)) as { audio_embeds: Tensor };
        windows.push(unitEmbedding(audio_embeds, this.dimensions, 'CLAP'));
      }
      return poolNormalised(windows);
    });
  }

  embedText(text: string): Promise<Float32Array> {
    return this.queue.run(() => textEmbedding(this.tokenizer, this.textModel, text, this.dimensions, 'CLAP'));
  }

  async dispose(): Promise<void> {
    await Promise.all([this.textModel.dispose(), this.audioModel.dispose()]);
  }
}
