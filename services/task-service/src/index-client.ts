import { isApiError } from '@vus/core';
import { callUnary, createClient, loadProto, type OutgoingContext } from '@vus/grpc';
import type { CreateVideoRequest__Input } from '@vus/grpc/types/index/v1/CreateVideoRequest';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { PutVideoArtifactsRequest__Input } from '@vus/grpc/types/index/v1/PutVideoArtifactsRequest';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { IndexDirectory } from './tasks/tasks';

/** task-service's calls to index-service: one function per RPC, each with the caller's context. */
export function createIndexClient(address: string) {
  const client: IndexServiceClient = createClient(loadProto().proto.vus.index.v1.IndexService, address);
  return {
    getIndex: (ctx: OutgoingContext, indexId: string) =>
      callUnary<Index>((md, opts, cb) => client.GetIndex({ index_id: indexId }, md, opts, cb), ctx),
    getVideo: (ctx: OutgoingContext, indexId: string, videoId: string) =>
      callUnary<Video>((md, opts, cb) => client.GetVideo({ index_id: indexId, video_id: videoId }, md, opts, cb), ctx),
    createVideo: (ctx: OutgoingContext, request: CreateVideoRequest__Input) =>
      callUnary<Video>((md, opts, cb) => client.CreateVideo(request, md, opts, cb), ctx),
    putVideoArtifacts: (ctx: OutgoingContext, request: PutVideoArtifactsRequest__Input) =>
      callUnary<unknown>((md, opts, cb) => client.PutVideoArtifacts(request, md, opts, cb), ctx),
    close: () => client.close(),
  };
}

export type IndexClient = ReturnType<typeof createIndexClient>;

const CALL_TIMEOUT_MS = 10_000;

async function exists(lookup: () => Promise<unknown>): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (error) {
    if (isApiError(error) && error.code === 'resource_not_exist') return false;
    throw error;
  }
}

/** The IndexDirectory port over index-service's RPCs. */
export function indexDirectory(client: IndexClient): IndexDirectory {
  const ctx = (orgId: string): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + CALL_TIMEOUT_MS) });
  return {
    indexExists: (orgId, indexId) => exists(() => client.getIndex(ctx(orgId), indexId)),
    videoExists: (orgId, indexId, videoId) => exists(() => client.getVideo(ctx(orgId), indexId, videoId)),
  };
}
