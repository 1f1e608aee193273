import type * as grpc from '@grpc/grpc-js';
import { ApiError, type Logger } from '@vus/core';
import { implement, requireOrg } from '@vus/grpc';
import type { EmbedServiceHandlers } from '@vus/grpc/types/embed/v1/EmbedService';
import type { EmbeddingSet__Input } from '@vus/grpc/types/embed/v1/EmbeddingSet';
import type { MediaSource } from '@vus/grpc/types/embed/v1/MediaSource';
import { optionalTimestamp, toTimestamp } from '@vus/grpc';
import type { EmbedTask__Input } from '@vus/grpc/types/embed/v1/EmbedTask';
import { knownId, listPage } from '@vus/core';
import type { EmbedService, ModalityEmbedding } from './embed';
import { mediaReader, type FetchMedia, type MediaSourceInput } from './media-sources';
import { SCENE_VECTOR_MODEL, type ModelServer } from './model-server';
import { createQueryEmbedding } from './query-vectors';
import {
  optionOf,
  taskEmbeddingOptions,
  type EmbedTaskRecord,
  type EmbedTasks,
  type SegmentOption,
  type TaskOptions,
  type TaskSegment,
} from './tasks';
import type { IndexedVideoEmbedder } from './indexed-video';
import type { SyncVideo } from './sync-video';
import type { BlobStore } from '@vus/blob';
import type { Embedding__Input } from '@vus/grpc/types/embed/v1/Embedding';
import type { CreateEmbeddingRequest } from '@vus/grpc/types/embed/v1/CreateEmbeddingRequest';

/** Synchronous video, and the blob store where the gateway puts inline media and assets are. */
export interface SyncMedia {
  video: SyncVideo;
  blobs?: BlobStore | undefined;
}

/** A proto media source as the domain reads it (media-sources.ts). */
function sourceOf(source: MediaSource | null): MediaSourceInput | undefined {
  if (!source) return undefined;
  return { kind: source.source ?? '', data: source.data, url: source.url, blobKey: source.blob_key, filename: source.filename };
}

/** The caller going away (the gateway cancels when its client disconnects) stops the work, as its deadline does. */
function callerGone(ctx: { deadline: Date | undefined; signal: AbortSignal }): AbortSignal {
  return ctx.deadline ? AbortSignal.any([ctx.signal, AbortSignal.timeout(Math.max(0, ctx.deadline.getTime() - Date.now()))]) : ctx.signal;
}

/** A synchronous video embedding (the gateway stores inline video and resolves assets: a URL or a blob key arrives). */
async function videoEmbedding(
  orgId: string,
  request: CreateEmbeddingRequest,
  media: SyncMedia,
  ctx: { deadline: Date | undefined; signal: AbortSignal },
): Promise<Embedding__Input> {
  const source = request.video!;
  if (source.source !== 'url' && source.source !== 'blob_key')
    throw new ApiError('parameter_invalid', 'Video arrives by URL or as stored media.', { param: 'video.media_source' });
  const { modelName, options, result } = await media.video.embed(
    orgId,
    {
      modelName: request.model_name,
      source: {
        ...(source.url ? { url: source.url } : {}),
        ...(source.blob_key ? { blobKey: source.blob_key } : {}),
        ...(source.filename ? { filename: source.filename } : {}),
      },
      ...(request._start_sec ? { startSec: request.start_sec } : {}),
      ...(request._end_sec ? { endSec: request.end_sec } : {}),
      ...(request._clip_length ? { clipLength: request.clip_length } : {}),
      scopes: request.embedding_scopes,
      embeddingOptions: request.embedding_options,
      embeddingTypes: request.embedding_types,
    },
    callerGone(ctx),
  );
  return {
    model_name: modelName,
    input_type: 'video',
    video_embedding: segmentSet(result.segments, source, options, result.duration),
  };
}

/** Clip vectors per option (an embed task's, or a synchronous video's) as the proto's set. */
function segmentSet(
  segments: readonly TaskSegment[],
  source: { url?: string | undefined; filename?: string | undefined },
  options: Pick<TaskOptions, 'clipLength' | 'scopes'>,
  duration: number,
): EmbeddingSet__Input {
  return {
    segments: segments.map((s) => ({
      vector: s.vector,
      start: s.start,
      end: s.end,
      embedding_scope: s.scope,
      embedding_option: optionOf(s),
    })),
    metadata: {
      input_url: source.url ?? '',
      input_filename: source.filename ?? '',
      clip_length: options.clipLength,
      embedding_scopes: options.scopes,
      duration,
    },
  };
}

function toSet(embedding: ModalityEmbedding | undefined, option: string): EmbeddingSet__Input | null {
  if (!embedding) return null;
  return {
    segments: embedding.segments.map((s) => ({
      vector: Array.from(s.vector),
      ...(s.start === undefined ? {} : { start: s.start, end: s.end }),
      embedding_scope: s.scope ?? '',
      embedding_option: option,
    })),
    metadata: { input_url: embedding.inputUrl ?? '', input_filename: embedding.inputFilename ?? '' },
  };
}

/**
 * A task as the proto gives it; its vectors only when `withSegments` (GetEmbedTask), of the
 * options asked (empty: all; fused vectors are always given). Options are canonical: visual, audio,
 * transcription, fused.
 */
function toProtoTask(task: EmbedTaskRecord, withSegments: boolean, options: readonly SegmentOption[] = []): EmbedTask__Input {
  const wanted = (option: SegmentOption) => options.length === 0 || option === 'fused' || options.includes(option);
  const segments = withSegments ? (task.result?.segments ?? []).filter((s) => wanted(optionOf(s))) : [];
  return {
    id: task.id,
    model_name: task.modelName,
    input_type: task.options.inputType ?? 'video',
    status: task.status,
    error_message: task.errorMessage ?? '',
    embedding: segmentSet(segments, task.source, task.options, task.result?.duration ?? 0),
    created_at: toTimestamp(task.createdAt),
    updated_at: toTimestamp(task.updatedAt),
    expires_at: optionalTimestamp(task.expiresAt),
  };
}

const taskId = (raw: string) => knownId('Embedding task', raw);

export function embedServiceImplementation(
  embed: EmbedService,
  tasks: EmbedTasks,
  fetchMedia: FetchMedia,
  indexedVideo: IndexedVideoEmbedder,
  modelServer: ModelServer,
  logger: Logger,
  media: SyncMedia,
): grpc.UntypedServiceImplementation {
  const mediaOf = mediaReader(fetchMedia, media.blobs);
  const queries = createQueryEmbedding({ embed, modelServer, fetchMedia });
  return implement<EmbedServiceHandlers>(
    {
      async CreateEmbedding(request, ctx) {
        const orgId = requireOrg(ctx);
        if (request.video?.source) return videoEmbedding(orgId, request, media, ctx);
        const [image, audio, ...moreImages] = await Promise.all([
          mediaOf(sourceOf(request.image), 'image'),
          mediaOf(sourceOf(request.audio), 'audio'),
          ...request.more_images.map((source, i) => mediaOf(sourceOf(source), `multi_input.media_sources[${i + 1}]`)),
        ]);
        const result = await embed.createEmbedding(orgId, {
          modelName: request.model_name,
          text: request.text,
          textTruncate: request.text_truncate,
          ...(image ? { image } : {}),
          ...(moreImages.length > 0 ? { moreImages: moreImages.filter((m) => m !== undefined) } : {}),
          ...(audio ? { audio } : {}),
          ...(request._start_sec ? { startSec: request.start_sec } : {}),
          ...(request._end_sec ? { endSec: request.end_sec } : {}),
          ...(request._clip_length ? { clipLength: request.clip_length } : {}),
          scopes: request.embedding_scopes,
          options: request.embedding_options,
          signal: callerGone(ctx),
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
      async CreateEmbedTask(request, ctx) {
        const orgId = requireOrg(ctx);
        const media = request.media;
        if (media?.source === 'data' || media?.source === 'asset_id')
          throw new ApiError('not_implemented', 'Send the media by URL or as a file.', { param: 'video_file' });
        const task = await tasks.create(orgId, {
          modelName: request.model_name,
          inputType: request.input_type,
          embeddingOptions: request.embedding_options,
          embeddingTypes: request.embedding_types,
          source: {
            ...(media?.url ? { url: media.url } : {}),
            ...(media?.blob_key ? { blobKey: media.blob_key } : {}),
            ...(media?.filename ? { filename: media.filename } : {}),
          },
          ...(request._start_sec ? { startSec: request.start_sec } : {}),
          ...(request._end_sec ? { endSec: request.end_sec } : {}),
          ...(request._clip_length ? { clipLength: request.clip_length } : {}),
          scopes: request.embedding_scopes,
          idempotencyKey: request.idempotency_key,
        });
        return toProtoTask(task, false);
      },
      async GetEmbedTask(request, ctx) {
        const task = await tasks.get(requireOrg(ctx), taskId(request.embed_task_id));
        const options =
          request.embedding_options.length === 0 ? [] : taskEmbeddingOptions(task.options.inputType ?? 'video', request.embedding_options);
        return toProtoTask(task, true, options);
      },
      async GetEmbedTaskStatus(request, ctx) {
        return toProtoTask(await tasks.get(requireOrg(ctx), taskId(request.embed_task_id)), false);
      },
      async ListEmbedTasks(request, ctx) {
        const orgId = requireOrg(ctx);
        const range = request.created_at;
        const from = range?.gte ?? range?.gt;
        const to = range?.lte ?? range?.lt;
        const { data, pageInfo } = await listPage({ page: request.page?.page, pageLimit: request.page?.page_limit }, (limit, offset) =>
          tasks.list(orgId, {
            ...(from ? { from: new Date(Number(from.seconds) * 1000) } : {}),
            ...(to ? { to: new Date(Number(to.seconds) * 1000) } : {}),
            statuses: request.statuses,
            limit,
            offset,
          }),
        );
        return { data: data.map((t) => toProtoTask(t, false)), page_info: pageInfo };
      },
      async EmbedIndexedVideo(request, ctx) {
        requireOrg(ctx);
        const result = indexedVideo.embed({
          modelName: request.model_name,
          options: request.embedding_options,
          duration: request.duration,
          ...(request._clip_length ? { clipLength: request.clip_length } : {}),
          segments: request.segments,
        });
        return {
          model_name: result.modelName,
          input_type: 'video',
          video_embedding: {
            segments: result.options.flatMap(({ option, embedding }) => toSet(embedding, option)?.segments ?? []),
            metadata: { clip_length: result.clipLength, embedding_scopes: ['clip'], duration: request.duration },
          },
        };
      },
      async EmbedQuery(request, ctx) {
        requireOrg(ctx);
        const inputs = request.inputs.map((input) => ({
          kind: input.kind ?? '',
          text: input.text,
          image: input.image,
          imageUrl: input.image_url,
          audio: input.audio,
        }));
        const result = await queries.embedQuery(request.model_name, inputs);
        if (!result.available) return { available: false, model_name: result.modelName, vectors: [], reason: result.reason };
        return {
          available: true,
          model_name: result.modelName,
          ...(result.dimensions === undefined ? {} : { dimensions: result.dimensions }),
          vectors: result.vectors.map((v) => ({ values: Array.from(v) })),
        };
      },
      async DetectImageLabels(request, ctx) {
        requireOrg(ctx);
        const result = await modelServer.imageLabels(request.image);
        return result.available ? { available: true, labels: result.labels } : { available: false, reason: result.reason };
      },
      async ListModels() {
        const { models, providers } = await embed.models();
        const concept = {
          capability: 'embeddings',
          name: 'concept-embedding',
          source: 'bundled',
          loaded: true,
          error: '',
          model_names: models.map((m) => m.name),
        };
        // The bundled image model of visual segments where CLIP is not loaded.
        const scene = {
          capability: 'visual_embedder',
          name: 'scene-descriptor',
          source: 'bundled',
          loaded: true,
          error: '',
          model_names: [SCENE_VECTOR_MODEL],
        };
        return {
          providers: [
            concept,
            scene,
            ...providers.map((p) => ({
              capability: p.capability,
              name: p.provider,
              source: p.kind,
              loaded: p.state !== 'unavailable',
              error: p.reason ?? '',
              model_names: modelServer.modelNamesOf(p.capability),
            })),
          ],
        };
      },
    },
    logger,
  );
}
