import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type * as TransformersModule from '@huggingface/transformers' with { 'resolution-mode': 'require' };
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers' with { 'resolution-mode': 'require' };
import type { ModelsConfig } from '../config';

/**
 * `@huggingface/transformers`, loaded on first use (it is large) and pointed at MODELS_DIR.
 *
 * Its settings are process-wide: the models folder is `localModelPath`, remote fetching is allowed
 * only when MODELS_ALLOW_DOWNLOAD is true, and downloads are cached into the same folder, so a
 * model fetched once is found locally afterwards.
 */
export type Transformers = typeof TransformersModule;

export async function transformers(config: ModelsConfig): Promise<Transformers> {
  const lib = await import('@huggingface/transformers');
  const dir = resolve(config.modelsDir);
  lib.env.allowLocalModels = true;
  lib.env.localModelPath = `${dir}/`;
  lib.env.allowRemoteModels = config.allowDownload;
  lib.env.cacheDir = dir;
  return lib;
}

/**
 * Why a downloadable model cannot load: undefined when its files are in MODELS_DIR or downloads
 * are allowed; otherwise a sentence naming the model and the missing files. Never the folder: the
 * reason reaches API users (a task's skipped extractors, the engines listing).
 */
export async function missingModelReason(
  config: ModelsConfig,
  what: string,
  modelId: string,
  files: readonly string[],
): Promise<string | undefined> {
  if (config.allowDownload) return undefined;
  const folder = join(resolve(config.modelsDir), modelId);
  const missing: string[] = [];
  for (const file of files) {
    await access(join(folder, file)).catch(() => missing.push(file));
  }
  if (missing.length === 0) return undefined;
  return (
    `${what} model ${modelId} is not in MODELS_DIR (its folder ${modelId}/ lacks ${missing.join(', ')}); ` +
    'put its transformers.js files there or set MODELS_ALLOW_DOWNLOAD=true'
  );
}

/**
 * A projection head's output as a unit vector, checked against the model's size (`what` names the
 * model in the error): CLIP's and CLAP's `text_embeds`, `image_embeds` and `audio_embeds`.
 */
export function unitEmbedding(embeds: Tensor, dimensions: number, what: string): Float32Array {
  const vector = embeds.data as Float32Array;
  if (vector.length !== dimensions) throw new Error(`${what} returned ${vector.length} values, expected ${dimensions}`);
  return l2Normalise(vector);
}

/** A text through a dual encoder's text tower (CLIP, CLAP: tokens in, `text_embeds` out), as a unit vector. */
export async function textEmbedding(
  tokenizer: PreTrainedTokenizer,
  textModel: PreTrainedModel,
  text: string,
  dimensions: number,
  what: string,
): Promise<Float32Array> {
  const inputs = tokenizer(text, { padding: true, truncation: true }) as Record<string, Tensor>;
  const { text_embeds } = (await textModel(inputs)) as { text_embeds: Tensor };
  return unitEmbedding(text_embeds, dimensions, what);
}

/** Divides a vector by its Euclidean length (a zero vector stays zero). */
export function l2Normalise(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] ?? 0) ** 2;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = norm > 0 ? (vector[i] ?? 0) / norm : 0;
  return out;
}
