import { callServerStream, callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import type { CreateVideoRequest__Input } from '@vus/grpc/types/index/v1/CreateVideoRequest';
import type { Engine } from '@vus/grpc/types/index/v1/Engine';
import type { FileChunk } from '@vus/grpc/types/index/v1/FileChunk';
import type { GetVideoArtifactsRequest__Input } from '@vus/grpc/types/index/v1/GetVideoArtifactsRequest';
import type { GetVideoThumbnailRequest__Input } from '@vus/grpc/types/index/v1/GetVideoThumbnailRequest';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { ListEnginesResponse } from '@vus/grpc/types/index/v1/ListEnginesResponse';
import type { ListIndexesRequest__Input } from '@vus/grpc/types/index/v1/ListIndexesRequest';
import type { ListIndexesResponse } from '@vus/grpc/types/index/v1/ListIndexesResponse';
import type { ListVideoIdsRequest__Input } from '@vus/grpc/types/index/v1/ListVideoIdsRequest';
import type { ListVideoIdsResponse } from '@vus/grpc/types/index/v1/ListVideoIdsResponse';
import type { ListVideosRequest__Input } from '@vus/grpc/types/index/v1/ListVideosRequest';
import type { ListVideosResponse } from '@vus/grpc/types/index/v1/ListVideosResponse';
import type { PutVideoArtifactsRequest__Input } from '@vus/grpc/types/index/v1/PutVideoArtifactsRequest';
import type { ReadVideoStreamFileRequest__Input } from '@vus/grpc/types/index/v1/ReadVideoStreamFileRequest';
import type { UpdateVideoRequest__Input } from '@vus/grpc/types/index/v1/UpdateVideoRequest';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { VideoArtifacts } from '@vus/grpc/types/index/v1/VideoArtifacts';
import type { VideoThumbnail } from '@vus/grpc/types/index/v1/VideoThumbnail';

/** index-service: indexes, engines, videos and their artifacts. */
export function createIndexClient(address: string) {
  const client = createServiceClient<IndexServiceClient>('index-service', address);
  return {
    createIndex: (ctx: OutgoingContext, request: CreateIndexRequest__Input) =>
      callUnary<Index>((md, opts, cb) => client.CreateIndex(request, md, opts, cb), ctx),
    getIndex: (ctx: OutgoingContext, indexId: string) =>
      callUnary<Index>((md, opts, cb) => client.GetIndex({ index_id: indexId }, md, opts, cb), ctx),
    listIndexes: (ctx: OutgoingContext, request: ListIndexesRequest__Input) =>
      callUnary<ListIndexesResponse>((md, opts, cb) => client.ListIndexes(request, md, opts, cb), ctx),
    renameIndex: (ctx: OutgoingContext, indexId: string, name: string) =>
      callUnary<Index>((md, opts, cb) => client.UpdateIndex({ index_id: indexId, name }, md, opts, cb), ctx),
    deleteIndex: (ctx: OutgoingContext, indexId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteIndex({ index_id: indexId }, md, opts, cb), ctx),
    listEngines: (ctx: OutgoingContext, page: number, pageLimit: number) =>
      callUnary<ListEnginesResponse>((md, opts, cb) => client.ListEngines({ page: { page, page_limit: pageLimit } }, md, opts, cb), ctx),
    getEngine: (ctx: OutgoingContext, engineId: string) =>
      callUnary<Engine>((md, opts, cb) => client.GetEngine({ engine_id: engineId }, md, opts, cb), ctx),
    createVideo: (ctx: OutgoingContext, request: CreateVideoRequest__Input) =>
      callUnary<Video>((md, opts, cb) => client.CreateVideo(request, md, opts, cb), ctx),
    listVideos: (ctx: OutgoingContext, request: ListVideosRequest__Input) =>
      callUnary<ListVideosResponse>((md, opts, cb) => client.ListVideos(request, md, opts, cb), ctx),
    listVideoIds: (ctx: OutgoingContext, request: ListVideoIdsRequest__Input) =>
      callUnary<ListVideoIdsResponse>((md, opts, cb) => client.ListVideoIds(request, md, opts, cb), ctx),
    getVideo: (ctx: OutgoingContext, indexId: string, videoId: string) =>
      callUnary<Video>((md, opts, cb) => client.GetVideo({ index_id: indexId, video_id: videoId }, md, opts, cb), ctx),
    updateVideo: (ctx: OutgoingContext, request: UpdateVideoRequest__Input) =>
      callUnary<Video>((md, opts, cb) => client.UpdateVideo(request, md, opts, cb), ctx),
    deleteVideo: (ctx: OutgoingContext, indexId: string, videoId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteVideo({ index_id: indexId, video_id: videoId }, md, opts, cb), ctx),
    putVideoArtifacts: (ctx: OutgoingContext, request: PutVideoArtifactsRequest__Input) =>
      callUnary<unknown>((md, opts, cb) => client.PutVideoArtifacts(request, md, opts, cb), ctx),
    getVideoArtifacts: (ctx: OutgoingContext, request: GetVideoArtifactsRequest__Input) =>
      callUnary<VideoArtifacts>((md, opts, cb) => client.GetVideoArtifacts(request, md, opts, cb), ctx),
    getVideoThumbnail: (ctx: OutgoingContext, request: GetVideoThumbnailRequest__Input) =>
      callUnary<VideoThumbnail>((md, opts, cb) => client.GetVideoThumbnail(request, md, opts, cb), ctx),
    /** One file of a video's stream: a header message (content type, size), then its bytes in chunks. */
    readVideoStreamFile: (
      ctx: OutgoingContext,
      request: ReadVideoStreamFileRequest__Input,
      signal?: AbortSignal,
    ): AsyncIterable<FileChunk> => callServerStream<FileChunk>((md, opts) => client.ReadVideoStreamFile(request, md, opts), ctx, signal),
    close: () => client.close(),
  };
}

export type IndexClient = ReturnType<typeof createIndexClient>;
