import { errors, pageInfo, pageOffset, parseInput, resolvePage, sortAndPaging, type Logger, knownId, pageRequestSchema } from '@vus/core';
import { ENGINE_FAMILIES } from '@vus/domain';
import {
  fromNumberRange,
  fromRecordFilter,
  fromTimeRange,
  fromTimestamp,
  implement,
  implementServerStream,
  optionalTimestamp,
  plainMetadataValues,
  requireOrg,
  toMetadataValues,
  toTimestamp,
} from '@vus/grpc';
import type { handleServerStreamingCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Engine__Input } from '@vus/grpc/types/index/v1/Engine';
import type { FileChunk__Input } from '@vus/grpc/types/index/v1/FileChunk';
import type { Index__Input } from '@vus/grpc/types/index/v1/Index';
import type { IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import type { ReadVideoStreamFileRequest } from '@vus/grpc/types/index/v1/ReadVideoStreamFileRequest';
import type { TimedValue } from '@vus/grpc/types/index/v1/TimedValue';
import type { Video__Input } from '@vus/grpc/types/index/v1/Video';
import type { VideoArtifacts as ProtoArtifacts, VideoArtifacts__Input } from '@vus/grpc/types/index/v1/VideoArtifacts';
import type { VideoFilter as ProtoVideoFilter } from '@vus/grpc/types/index/v1/VideoFilter';
import { z } from 'zod';
import { CANONICAL_OPTIONS, ENGINES, findEngine, type EngineSpec } from './engines';
import type { IndexRecord, IndexService } from './indexes';
import type { StreamService } from './streams';
import {
  ARTIFACT_KINDS,
  NUMERIC_FILTER_FIELDS,
  metadataMatches,
  type VideoArtifacts,
  type VideoFilter,
  type VideoRecord,
  type VideoService,
} from './videos';

// proto3 has no required fields and the gateway is not the only caller: validate here too.
const modelSchema = z.object({ name: z.string().min(1), options: z.array(z.enum(CANONICAL_OPTIONS)) });
const createSchema = z.object({ name: z.string(), models: z.array(modelSchema), addons: z.array(z.string()), internal: z.boolean() });

const listSchema = z.object({
  page: pageRequestSchema,
  ids: z.array(z.string()),
  name: z.string(),
  options: z.array(z.enum(CANONICAL_OPTIONS)),
  family: z.enum(['', ...ENGINE_FAMILIES]),
  model_name: z.string(),
});

/** The most ids one ListVideoIds answers (about 2.4 MB of ids). */
const MAX_VIDEO_IDS = 100_000;

const indexId = (raw: string) => knownId('Index', raw);
const videoId = (raw: string) => knownId('Video', raw);

const systemMetadataSchema = z.object({
  filename: z.string(),
  duration: z.number(),
  fps: z.number(),
  width: z.number().int(),
  height: z.number().int(),
  size: z.number().int(),
});
const createVideoSchema = z.object({
  index_id: z.string(),
  video_id: z.string(),
  system_metadata: systemMetadataSchema,
  extractors_run: z.array(z.string().min(1)),
  media_blob_key: z.string(),
  // ISO 639-1 (two letters), as a recogniser reports it; empty: none.
  speech_language: z.union([z.literal(''), z.string().regex(/^[a-z]{2}$/)]),
});
const kindsSchema = z.object({ kinds: z.array(z.enum(ARTIFACT_KINDS)) });

export function toVideoFilter(filter: ProtoVideoFilter | null): VideoFilter {
  if (!filter) return {};
  const userMetadata = plainMetadataValues('user_metadata', filter.user_metadata, { allowNull: false });
  return {
    ...fromRecordFilter(filter),
    filename: filter.filename || undefined,
    ...Object.fromEntries(NUMERIC_FILTER_FIELDS.map((field) => [field, fromNumberRange(filter[field])])),
    indexedAt: fromTimeRange(filter.indexed_at),
    userMetadata: Object.fromEntries(Object.entries(userMetadata).map(([key, value]) => [key, metadataMatches(value)])),
  };
}

export function toProtoVideo(video: VideoRecord): Video__Input {
  return {
    id: video.id,
    index_id: video.indexId,
    system_metadata: video.system,
    user_metadata: toMetadataValues(video.userMetadata),
    title: video.title ?? '',
    hls: video.hls && {
      video_url: video.hls.videoUrl,
      thumbnail_urls: video.hls.thumbnailUrls,
      status: video.hls.status,
      updated_at: optionalTimestamp(video.hls.updatedAt),
    },
    extractors_run: video.extractorsRun,
    speech_language: video.speechLanguage ?? '',
    created_at: toTimestamp(video.createdAt),
    updated_at: toTimestamp(video.updatedAt),
    indexed_at: toTimestamp(video.indexedAt),
  };
}

const plainTimed = (values: TimedValue[]) => values.map(({ start, end, value, confidence }) => ({ start, end, value, confidence }));

function toArtifacts(artifacts: ProtoArtifacts | null): VideoArtifacts {
  return {
    transcription: plainTimed(artifacts?.transcription ?? []),
    text_in_video: plainTimed(artifacts?.text_in_video ?? []),
    logo: plainTimed(artifacts?.logo ?? []),
    thumbnails: (artifacts?.thumbnails ?? []).map((t) => ({
      time: t.time,
      blobKey: t.blob_key,
      contentType: t.content_type || 'image/jpeg',
    })),
  };
}

function toProtoArtifacts(artifacts: VideoArtifacts): VideoArtifacts__Input {
  return {
    transcription: artifacts.transcription,
    text_in_video: artifacts.text_in_video,
    logo: artifacts.logo,
    thumbnails: artifacts.thumbnails.map((t) => ({ time: t.time, blob_key: t.blobKey, content_type: t.contentType })),
  };
}

export function toProtoIndex(index: IndexRecord): Index__Input {
  return {
    id: index.id,
    name: index.name,
    models: index.models,
    addons: index.addons,
    video_count: index.videoCount,
    total_duration: index.totalDuration,
    created_at: toTimestamp(index.createdAt),
    updated_at: toTimestamp(index.updatedAt),
    expires_at: optionalTimestamp(index.expiresAt),
    internal: index.internal,
  };
}

export function toProtoEngine(engine: EngineSpec): Engine__Input {
  return {
    id: engine.id,
    family: engine.family,
    allowed_options: [...engine.allowedOptions],
    ready: true,
    finetune: false,
    author: 'twelve_labs',
    created_at: toTimestamp(engine.releasedAt),
    updated_at: toTimestamp(engine.releasedAt),
    api_versions: [...engine.apiVersions],
  };
}

/**
 * ReadVideoStreamFile: a header message (content type, size), then the bytes. No organization:
 * the gateway has checked the signed URL, which names none.
 */
function readStreamFile(streams: StreamService, logger: Logger): handleServerStreamingCall<ReadVideoStreamFileRequest, FileChunk__Input> {
  return implementServerStream(async function* (request: ReadVideoStreamFileRequest) {
    const file = await streams.open(request.folder, request.file);
    yield { content_type: file.contentType, size: file.size };
    for await (const data of file.chunks) yield { data };
  }, logger);
}

export function indexServiceImplementation(
  indexes: IndexService,
  videos: VideoService,
  streams: StreamService,
  logger: Logger,
): UntypedServiceImplementation {
  const unary = implement<IndexServiceHandlers>(
    {
      async CreateIndex(request, ctx) {
        const input = parseInput(createSchema, request);
        return toProtoIndex(await indexes.create(requireOrg(ctx), input));
      },
      async GetIndex(request, ctx) {
        return toProtoIndex(await indexes.get(requireOrg(ctx), indexId(request.index_id)));
      },
      async ListIndexes(request, ctx) {
        const input = parseInput(listSchema, request);
        const { sort, paging } = sortAndPaging(input.page);
        const filter = {
          ...fromRecordFilter(request),
          name: input.name || undefined,
          options: input.options,
          family: input.family || undefined,
          modelName: input.model_name || undefined,
        };
        const result = await indexes.list(requireOrg(ctx), filter, sort, paging);
        return { data: result.data.map(toProtoIndex), page_info: result.pageInfo };
      },
      async UpdateIndex(request, ctx) {
        return toProtoIndex(await indexes.rename(requireOrg(ctx), indexId(request.index_id), request.name));
      },
      async DeleteIndex(request, ctx) {
        await indexes.delete(requireOrg(ctx), indexId(request.index_id));
        return {};
      },
      async ListEngines(request) {
        const page = resolvePage({ page: request.page?.page, pageLimit: request.page?.page_limit });
        const offset = pageOffset(page);
        return {
          data: ENGINES.slice(offset, offset + page.pageLimit).map(toProtoEngine),
          page_info: pageInfo(page, ENGINES.length),
        };
      },
      async GetEngine(request) {
        const engine = findEngine(request.engine_id);
        if (!engine) throw errors.notFound('Engine', request.engine_id);
        return toProtoEngine(engine);
      },
      async CreateVideo(request, ctx) {
        const input = parseInput(createVideoSchema, request);
        const video = await videos.create(requireOrg(ctx), {
          indexId: indexId(input.index_id),
          videoId: input.video_id,
          system: input.system_metadata,
          userMetadata: plainMetadataValues('user_metadata', request.user_metadata, { allowNull: true }),
          hls: request.hls && {
            videoUrl: request.hls.video_url,
            thumbnailUrls: request.hls.thumbnail_urls,
            status: request.hls.status,
            updatedAt: fromTimestamp(request.hls.updated_at) ?? null,
          },
          extractorsRun: input.extractors_run,
          mediaBlobKey: input.media_blob_key || null,
          speechLanguage: input.speech_language || null,
          createdAt: fromTimestamp(request.created_at),
        });
        return toProtoVideo(video);
      },
      async GetVideo(request, ctx) {
        const index = request.index_id === '' ? undefined : indexId(request.index_id);
        return toProtoVideo(await videos.get(requireOrg(ctx), index, videoId(request.video_id)));
      },
      async ListVideos(request, ctx) {
        const { sort, paging } = sortAndPaging(parseInput(z.object({ page: pageRequestSchema }), request).page);
        const result = await videos.list(requireOrg(ctx), indexId(request.index_id), toVideoFilter(request.filter), sort, paging);
        return { data: result.data.map(toProtoVideo), page_info: result.pageInfo };
      },
      async ListVideoIds(request, ctx) {
        const limit = request.limit === 0 ? MAX_VIDEO_IDS : request.limit;
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_VIDEO_IDS)
          throw errors.invalid('limit', `It must be between 1 and ${MAX_VIDEO_IDS}.`);
        return videos.listIds(requireOrg(ctx), indexId(request.index_id), toVideoFilter(request.filter), limit);
      },
      async UpdateVideo(request, ctx) {
        const video = await videos.update(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id), {
          title: request.title,
          userMetadata: plainMetadataValues('user_metadata', request.user_metadata, { allowNull: true }),
          replace: request.replace_user_metadata,
        });
        return toProtoVideo(video);
      },
      async DeleteVideo(request, ctx) {
        await videos.delete(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id));
        return {};
      },
      async PutVideoArtifacts(request, ctx) {
        await videos.putArtifacts(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id), toArtifacts(request.artifacts));
        return {};
      },
      async GetVideoArtifacts(request, ctx) {
        const { kinds } = parseInput(kindsSchema, request);
        const window = { start: request.start, end: request.end };
        const artifacts = await videos.getArtifacts(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id), kinds, window);
        return toProtoArtifacts(artifacts);
      },
      async GetVideoThumbnail(request, ctx) {
        const { index_id, video_id, time, include_data } = request;
        const thumbnail = await videos.thumbnail(requireOrg(ctx), indexId(index_id), videoId(video_id), time, include_data);
        return { time: thumbnail.time, content_type: thumbnail.contentType, data: thumbnail.data ?? Buffer.alloc(0) };
      },
    },
    logger,
  );
  return { ...unary, ReadVideoStreamFile: readStreamFile(streams, logger) };
}
