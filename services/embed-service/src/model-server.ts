/**
 * embed-service as the model server of the other services: search-service's query vectors and the
 * indexing worker's clip vectors come from here, so no other service loads an embedding model.
 * Each vector model name is served by one provider of the model registry (CLIP for `clip`, CLAP
 * for `clap`) or is bundled (`scene`, the scene descriptor); the API's model names (Marengo) are
 * the bundled concept embedding (embed.ts).
 */
import { ApiError, errors } from '@vus/core';
import { describeImage, sceneDescriptor, SCENE_DESCRIPTOR_DIMENSIONS, type Capability, type ModelRegistry } from '@vus/models';
import type { DecodedAudio } from './audio';
import { SYNC_LIMITS } from './embed';

/** The learned vector model of visual segments, when MODELS_DIR has it: text and images in one space. */
export const VISUAL_VECTOR_MODEL = 'clip';
/** The bundled vector model of visual segments without CLIP: images only (a query image finds the shots that look like it). */
export const SCENE_VECTOR_MODEL = 'scene';
/** The vector model of sounds (and text in the same space). */
export const AUDIO_VECTOR_MODEL = 'clap';

type Modality = 'text' | 'image' | 'audio';

/** A vector model name, what serves it (a registry capability, or bundled), and the inputs it takes. */
export type VectorModel =
  | {
      readonly name: string;
      readonly capability: Extract<Capability, 'visual_embedder' | 'audio_embedder'>;
      readonly inputs: readonly Modality[];
    }
  | { readonly name: string; readonly bundled: 'scene-descriptor'; readonly inputs: readonly Modality[] };

const CLIP: VectorModel = { name: VISUAL_VECTOR_MODEL, capability: 'visual_embedder', inputs: ['text', 'image'] };
const SCENE: VectorModel = { name: SCENE_VECTOR_MODEL, bundled: 'scene-descriptor', inputs: ['image'] };
const CLAP: VectorModel = { name: AUDIO_VECTOR_MODEL, capability: 'audio_embedder', inputs: ['text', 'audio'] };
export const VECTOR_MODELS: readonly VectorModel[] = [CLIP, SCENE, CLAP];

/** The vector model of that name; undefined for any other name (an API model name) and for the empty name (see visualModel). */
export function vectorModel(name: string): VectorModel | undefined {
  const wanted = name.trim().toLowerCase();
  return VECTOR_MODELS.find((m) => m.name === wanted);
}

export type QueryInput = { text: string } | { image: Buffer } | { audio: Buffer };

export type QueryVectors =
  | { available: true; modelName: string; dimensions: number; vectors: Float32Array[] }
  | { available: false; modelName: string; reason: string };

export type ImageLabels = { available: true; labels: string[] } | { available: false; reason: string };

export interface ModelServerDeps {
  models: Pick<ModelRegistry, 'find' | 'status'>;
  decodeAudio(bytes: Buffer, startSec: number, maxSec: number, param: string, sampleRate?: number): Promise<DecodedAudio>;
}

/** Why no provider of `capability` is loaded, from the registry's last known state. */
function unavailableReason(models: ModelServerDeps['models'], capability: Capability): string {
  const reasons = models
    .status()
    .filter((s) => s.capability === capability)
    .map((s) => `${s.provider}: ${s.reason ?? 'not loaded'}`);
  return reasons.join('; ') || `no ${capability.replace('_', ' ')} is configured`;
}

const modalityOf = (input: QueryInput): Modality => ('text' in input ? 'text' : 'image' in input ? 'image' : 'audio');

/** An image input is a real image of a usable size before it reaches a model (a broken frame is the caller's error, not ours). */
async function checkImage(bytes: Buffer): Promise<void> {
  if (bytes.length > SYNC_LIMITS.imageBytes)
    throw new ApiError('payload_too_large', `An image is ${bytes.length} bytes; at most ${SYNC_LIMITS.imageBytes} are accepted.`, {
      param: 'image',
    });
  const facts = await describeImage(bytes);
  if (!facts || facts.format === 'other')
    throw new ApiError('unsupported_file_type', 'An image is not a JPEG, PNG, WebP or GIF image.', { param: 'image' });
  if (Math.min(facts.width, facts.height) < SYNC_LIMITS.minImageSide)
    throw errors.invalid(
      'image',
      `An image is ${facts.width}×${facts.height}; each side must be at least ${SYNC_LIMITS.minImageSide} pixels.`,
    );
}

export function createModelServer(deps: ModelServerDeps) {
  const { models } = deps;

  /**
   * The vector model of visual segments here (what the empty model name means): CLIP when
   * MODELS_DIR has it, otherwise the bundled scene descriptor. Asking loads CLIP.
   */
  async function visualModel(): Promise<VectorModel> {
    return (await models.find('visual_embedder')) ? CLIP : SCENE;
  }

  return {
    /**
     * Vectors of a learned model for the inputs, in their order. Not an error when its provider
     * is not loaded here (missing from MODELS_DIR): `available` is false and `reason` says why,
     * so that search answers lexically and indexing records the skipped extractor. No inputs:
     * only whether the model is available (and its size), which loads it.
     */
    async embed(model: VectorModel, inputs: readonly QueryInput[]): Promise<QueryVectors> {
      const wrong = inputs.map(modalityOf).find((m) => !model.inputs.includes(m));
      if (wrong) throw errors.invalid('inputs', `The model ${model.name} embeds ${model.inputs.join(' and ')}, not ${wrong}.`);
      if ('bundled' in model) {
        const vectors: Float32Array[] = [];
        for (const input of inputs) {
          if (!('image' in input)) continue;
          await checkImage(input.image);
          vectors.push(await sceneDescriptor(input.image));
        }
        return { available: true, modelName: model.name, dimensions: SCENE_DESCRIPTOR_DIMENSIONS, vectors };
      }
      const embedder = await models.find(model.capability);
      if (!embedder) return { available: false, modelName: model.name, reason: unavailableReason(models, model.capability) };
      const vectors: Float32Array[] = [];
      for (const input of inputs) {
        if ('text' in input) {
          vectors.push(await embedder.embedText(input.text));
        } else if ('image' in input && 'embedImage' in embedder) {
          await checkImage(input.image);
          vectors.push(await embedder.embedImage(input.image));
        } else if ('audio' in input && 'embedAudio' in embedder) {
          const audio = await deps.decodeAudio(input.audio, 0, SYNC_LIMITS.audioSeconds, 'audio', embedder.sampleRate);
          vectors.push(await embedder.embedAudio(audio.samples));
        }
      }
      return { available: true, modelName: model.name, dimensions: embedder.dimensions, vectors };
    },

    visualModel,

    /**
     * Vectors of the visual model here (the empty model name). Text without CLIP is not an error
     * but unavailable, with the reason: search then answers on words and labels, as without vectors.
     */
    async embedVisual(inputs: readonly QueryInput[]): Promise<QueryVectors> {
      const model = await visualModel();
      if (model === SCENE && inputs.some((input) => 'text' in input)) {
        const why = unavailableReason(models, 'visual_embedder');
        return {
          available: false,
          modelName: model.name,
          reason: `text needs CLIP (${why}); the bundled scene descriptor embeds images only`,
        };
      }
      return this.embed(model, inputs);
    },

    /** The distinct objects the detector sees in an image, best first; not available without a detector. */
    async imageLabels(image: Buffer): Promise<ImageLabels> {
      await checkImage(image);
      const detector = await models.find('object_detector');
      if (!detector) return { available: false, reason: unavailableReason(models, 'object_detector') };
      return { available: true, labels: [...new Set((await detector.detectObjects(image)).map((o) => o.label))] };
    },

    /** The learned model names each registry provider serves (for the models listing). */
    modelNamesOf(capability: Capability): string[] {
      return VECTOR_MODELS.filter((m) => 'capability' in m && m.capability === capability).map((m) => m.name);
    },
  };
}

export type ModelServer = ReturnType<typeof createModelServer>;
