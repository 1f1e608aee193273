import { callUnary, createClient, loadProto, type OutgoingContext } from '@vus/grpc';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import type { Engine } from '@vus/grpc/types/index/v1/Engine';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { ListEnginesResponse } from '@vus/grpc/types/index/v1/ListEnginesResponse';
import type { ListIndexesRequest__Input } from '@vus/grpc/types/index/v1/ListIndexesRequest';
import type { ListIndexesResponse } from '@vus/grpc/types/index/v1/ListIndexesResponse';

/** One function per downstream RPC; each carries the caller's identity and deadline. */
export function createIndexClient(address: string) {
  const client: IndexServiceClient = createClient(loadProto().proto.vus.index.v1.IndexService, address);
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
    close: () => client.close(),
  };
}

export type IndexClient = ReturnType<typeof createIndexClient>;

export interface Clients {
  index: IndexClient;
}
