import type * as grpc from '@grpc/grpc-js';
import { ApiError, type Logger } from '@vus/core';
import { implement, requireOrg } from '@vus/grpc';
import type { EmbedServiceHandlers } from '@vus/grpc/types/embed/v1/EmbedService';
import type { EmbeddingSet__Input } from '@vus/grpc/types/embed/v1/EmbeddingSet';
import type { MediaSource } from '@vus/grpc/types/embed/v1/MediaSource';
import type { EmbedService, MediaInput, ModalityEmbedding } from './embed';

/** Fetches a media URL (through the SSRF guard) as bytes; `param` names it in errors. */
export type FetchMedia = (url: string, param: string) => Promise<Buffer>;

/** The bytes of a media source: inline, or fetched from its URL. */
async function mediaOf(source: MediaSource | null, param: string, fetchMedia: FetchMedia): Promise<MediaInput | undefined> {
  if (!source || !source.source) return undefined;
  const filename = source.filename || undefined;
  switch (source.source) {
    case 'data':
      return { bytes: source.data ?? Buffer.alloc(0), ...(filename ? { filename } : {}) };
    case 'url':
      return { bytes: await fetchMedia(source.url ?? '', `${param}_url`), url: source.url ?? '', ...(filename ? { filename } : {}) };
    default:
      throw new ApiError('not_implemented', 'Assets are not available on this server yet: send the media itself or its URL.', { param });
  }
}

function toSet(embedding: ModalityEmbedding | undefined, option: string): EmbeddingSet__Input | null {
  if (!embedding) return null;
  return {
    segments: embedding.segments.map((s) => ({ vector: Array.from(s.vector), ...(s.start === undefined ? {} : { start: s.start, end: s.end }), embedding_scope: s.scope ?? '', embedding_option: option })),
    metadata: { input_url: embedding.inputUrl ?? '', input_filename: embedding.inputFilename ?? '' },
  };
}

export function embedServiceImplementation(embed: EmbedService, fetchMedia: FetchMedia, logger: Logger): grpc.UntypedServiceImplementation {
  return implement<EmbedServiceHandlers>(
    {
      async CreateEmbedding(request, ctx) {
        const orgId = requireOrg(ctx);
        if (request.video?.source) throw new ApiError('not_implemented', 'Video embeddings are not available on this server yet.', { param: 'video' });
        const [image, audio] = await Promise.all([mediaOf(request.image, 'image', fetchMedia), mediaOf(request.audio, 'audio', fetchMedia)]);
        const result = await embed.createEmbedding(orgId, {
          modelName: request.model_name,
          text: request.text,
          textTruncate: request.text_truncate,
          ...(image ? { image } : {}),
          ...(audio ? { audio } : {}),
          ...(request._start_sec ? { startSec: request.start_sec } : {}),
          ...(request._end_sec ? { endSec: request.end_sec } : {}),
          ...(request._clip_length ? { clipLength: request.clip_length } : {}),
          scopes: request.embedding_scopes,
          options: request.embedding_options,
        });
        return {
          model_name: result.modelName,
          input_type: result.inputType,
          text_embedding: toSet(result.text, ''),
          image_embedding: toSet(result.image, 'visual'),
          audio_embedding: toSet(result.audio, 'audio'),
          text_image_embedding: toSet(result.textImage, 'fused'),
        };
      },
      async EmbedQuery(request, ctx) {
        requireOrg(ctx);
        const inputs = await Promise.all(
          request.inputs.map(async (input) => {
            if (input.kind === 'text') return { text: input.text ?? '' };
            if (input.kind === 'image') return { image: input.image ?? Buffer.alloc(0) };
            if (input.kind === 'image_url') return { image: await fetchMedia(input.image_url ?? '', 'query_media_url') };
            throw new ApiError('parameter_not_provided', 'An input has neither text nor an image.', { param: 'inputs' });
          }),
        );
        const { modelName, vectors } = await embed.embedQuery(request.model_name, inputs);
        return { available: true, model_name: modelName, vectors: vectors.map((v) => ({ values: Array.from(v) })) };
      },
      async ListModels() {
        const { models, providers } = await embed.models();
        const concept = { capability: 'embeddings', name: 'concept-embedding', source: 'bundled', loaded: true, error: '', model_names: models.map((m) => m.name) };
        return {
          providers: [
            concept,
            ...providers.map((p) => ({ capability: p.capability, name: p.provider, source: p.kind, loaded: p.state !== 'unavailable', error: p.reason ?? '', model_names: [] })),
          ],
        };
      },
    },
    logger,
  );
}
