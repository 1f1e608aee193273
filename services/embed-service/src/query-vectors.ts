/**
 * Query vectors for search and classification (EmbedQuery): which model answers a query — an API
 * model name the bundled concept embedding, a vector model's name that model (CLIP, the scene
 * descriptor, CLAP), no name the visual model loaded — and the query's image fetched from its URL.
 */
import { ApiError, errors } from '@vus/core';
import type { EmbedService } from './embed';
import type { FetchMedia } from './media-sources';
import { AUDIO_VECTOR_MODEL, vectorModel, type ModelServer, type QueryInput } from './model-server';

/** One input of a query as asked: `kind` (text, image, image_url, audio) says which field holds it. */
export interface QueryRequestInput {
  kind: string;
  text?: string | undefined;
  image?: Buffer | undefined;
  imageUrl?: string | undefined;
  audio?: Buffer | undefined;
}

/** The query's vectors, one per input; `dimensions` only from a vector model. */
export type QueryVectorsAnswer =
  | { available: true; modelName: string; dimensions?: number; vectors: Float32Array[] }
  | { available: false; modelName: string; reason: string };

export interface QueryEmbeddingDeps {
  embed: Pick<EmbedService, 'embedQuery'>;
  modelServer: Pick<ModelServer, 'embed' | 'embedVisual'>;
  fetchMedia: FetchMedia;
}

export function createQueryEmbedding(deps: QueryEmbeddingDeps) {
  async function inputOf(input: QueryRequestInput): Promise<QueryInput> {
    if (input.kind === 'text') return { text: input.text ?? '' };
    if (input.kind === 'image') return { image: input.image ?? Buffer.alloc(0) };
    if (input.kind === 'image_url') return { image: await deps.fetchMedia(input.imageUrl ?? '', 'query_media_url') };
    if (input.kind === 'audio') return { audio: input.audio ?? Buffer.alloc(0) };
    throw new ApiError('parameter_not_provided', 'An input has no text, image or audio.', { param: 'inputs' });
  }

  return {
    /** The inputs' vectors in the space of `modelName`'s model (empty: the visual model's, if one is loaded). */
    async embedQuery(modelName: string, requested: readonly QueryRequestInput[]): Promise<QueryVectorsAnswer> {
      const inputs = await Promise.all(requested.map(inputOf));
      const named = modelName.trim() !== '';
      const learned = named ? vectorModel(modelName) : undefined;
      if (named && !learned) {
        // An API model name: the bundled concept embedding, always available.
        const concept = inputs.filter((input): input is Exclude<QueryInput, { audio: Buffer }> => !('audio' in input));
        if (concept.length < inputs.length)
          throw errors.invalid(
            'inputs',
            `Audio query vectors come from ${AUDIO_VECTOR_MODEL}; send audio to CreateEmbedding for ${modelName}.`,
          );
        const { modelName: name, vectors } = await deps.embed.embedQuery(modelName, concept);
        return { available: true, modelName: name, vectors };
      }
      return learned ? deps.modelServer.embed(learned, inputs) : deps.modelServer.embedVisual(inputs);
    },
  };
}

export type QueryEmbedding = ReturnType<typeof createQueryEmbedding>;
