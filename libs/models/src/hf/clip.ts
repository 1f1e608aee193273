import type {
  CLIPTextModelWithProjection,
  CLIPVisionModelWithProjection,
  PreTrainedTokenizer,
  Processor,
  Tensor,
} from '@huggingface/transformers' with { 'resolution-mode': 'require' };
import type { ModelsConfig } from '../config';
import { decodeRgb } from '../image';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { Disposable, ImageInput, VisualEmbedder } from '../types';
import { missingModelReason, textEmbedding, transformers, unitEmbedding } from './transformers';

/**
 * CLIP through transformers.js: images and text embedded into one space, vectors L2-normalised.
 * Loads `<MODELS_DIR>/<MODELS_CLIP>/` (default `Xenova/clip-vit-base-patch32`, 512 dimensions).
 */

/** The files it loads (transformers.js layout), what `npm run models -- pull` fetches. */
export const CLIP_FILES: readonly string[] = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'preprocessor_config.json',
  'onnx/text_model.onnx',
  'onnx/vision_model.onnx',
];

export function clipProvider(config: ModelsConfig): ProviderDefinition<'visual_embedder'> {
  return {
    capability: 'visual_embedder',
    name: 'clip',
    model: config.clipModel,
    kind: 'downloadable',
    check: () => missingModelReason(config, 'CLIP', config.clipModel, CLIP_FILES),
    load: () => ClipEmbedder.load(config),
  };
}

export class ClipEmbedder implements VisualEmbedder, Disposable {
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly lib: Awaited<ReturnType<typeof transformers>>,
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly processor: Processor,
    private readonly textModel: CLIPTextModelWithProjection,
    private readonly visionModel: CLIPVisionModelWithProjection,
    readonly dimensions: number,
  ) {}

  static async load(config: ModelsConfig): Promise<ClipEmbedder> {
    const lib = await transformers(config);
    const id = config.clipModel;
    const options = { dtype: 'fp32' as const, device: 'cpu' as const };
    const [tokenizer, processor, textModel, visionModel] = await Promise.all([
      lib.AutoTokenizer.from_pretrained(id),
      lib.AutoProcessor.from_pretrained(id),
      lib.CLIPTextModelWithProjection.from_pretrained(id, options),
      lib.CLIPVisionModelWithProjection.from_pretrained(id, options),
    ]);
    const projection = (textModel.config as { projection_dim?: unknown }).projection_dim;
    if (typeof projection !== 'number') throw new Error(`${id}/config.json has no projection_dim`);
    return new ClipEmbedder(lib, tokenizer, processor, textModel, visionModel, projection);
  }

  embedImage(image: ImageInput): Promise<Float32Array> {
    return this.queue.run(async () => {
      const { data, width, height } = await decodeRgb(image);
      const raw = new this.lib.RawImage(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width, height, 3);
      const inputs = (await this.processor(raw)) as Record<string, Tensor>;
      const { image_embeds } = (await this.visionModel(inputs)) as { image_embeds: Tensor };
      return unitEmbedding(image_embeds, this.dimensions, 'CLIP');
    });
  }

  embedText(text: string): Promise<Float32Array> {
    return this.queue.run(() => textEmbedding(this.tokenizer, this.textModel, text, this.dimensions, 'CLIP'));
  }

  async dispose(): Promise<void> {
    await Promise.all([this.textModel.dispose(), this.visionModel.dispose()]);
  }
}
