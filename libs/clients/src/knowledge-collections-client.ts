import { callUnary, type OutgoingContext } from '@vus/grpc';
import type { CreateKnowledgeStoreItemCollectionRequest__Input } from '@vus/grpc/types/task/v1/CreateKnowledgeStoreItemCollectionRequest';
import type { KnowledgeStoreItemCollection } from '@vus/grpc/types/task/v1/KnowledgeStoreItemCollection';
import type { KnowledgeStoreItemCollectionItemsRequest__Input } from '@vus/grpc/types/task/v1/KnowledgeStoreItemCollectionItemsRequest';
import type { ListKnowledgeStoreItemCollectionItemsRequest__Input } from '@vus/grpc/types/task/v1/ListKnowledgeStoreItemCollectionItemsRequest';
import type { ListKnowledgeStoreItemCollectionsRequest__Input } from '@vus/grpc/types/task/v1/ListKnowledgeStoreItemCollectionsRequest';
import type { ListKnowledgeStoreItemCollectionsResponse } from '@vus/grpc/types/task/v1/ListKnowledgeStoreItemCollectionsResponse';
import type { ListKnowledgeStoreItemsResponse } from '@vus/grpc/types/task/v1/ListKnowledgeStoreItemsResponse';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import type { UpdateKnowledgeStoreItemCollectionRequest__Input } from '@vus/grpc/types/task/v1/UpdateKnowledgeStoreItemCollectionRequest';

/**
 * The item-collection RPCs of task-service (issue 33), one function each; task-client.ts spreads
 * them into the task client, so callers reach them as `clients.task.createKnowledgeStoreItemCollection`.
 */
export function knowledgeCollectionCalls(client: TaskServiceClient) {
  const ids = (knowledgeStoreId: string, collectionId: string) => ({ knowledge_store_id: knowledgeStoreId, collection_id: collectionId });
  return {
    createKnowledgeStoreItemCollection: (ctx: OutgoingContext, request: CreateKnowledgeStoreItemCollectionRequest__Input) =>
      callUnary<KnowledgeStoreItemCollection>((md, opts, cb) => client.CreateKnowledgeStoreItemCollection(request, md, opts, cb), ctx),
    getKnowledgeStoreItemCollection: (ctx: OutgoingContext, knowledgeStoreId: string, collectionId: string) =>
      callUnary<KnowledgeStoreItemCollection>(
        (md, opts, cb) => client.GetKnowledgeStoreItemCollection(ids(knowledgeStoreId, collectionId), md, opts, cb),
        ctx,
      ),
    listKnowledgeStoreItemCollections: (ctx: OutgoingContext, request: ListKnowledgeStoreItemCollectionsRequest__Input) =>
      callUnary<ListKnowledgeStoreItemCollectionsResponse>(
        (md, opts, cb) => client.ListKnowledgeStoreItemCollections(request, md, opts, cb),
        ctx,
      ),
    updateKnowledgeStoreItemCollection: (ctx: OutgoingContext, request: UpdateKnowledgeStoreItemCollectionRequest__Input) =>
      callUnary<KnowledgeStoreItemCollection>((md, opts, cb) => client.UpdateKnowledgeStoreItemCollection(request, md, opts, cb), ctx),
    deleteKnowledgeStoreItemCollection: (ctx: OutgoingContext, knowledgeStoreId: string, collectionId: string) =>
      callUnary<unknown>(
        (md, opts, cb) => client.DeleteKnowledgeStoreItemCollection(ids(knowledgeStoreId, collectionId), md, opts, cb),
        ctx,
      ),
    listKnowledgeStoreItemCollectionItems: (ctx: OutgoingContext, request: ListKnowledgeStoreItemCollectionItemsRequest__Input) =>
      callUnary<ListKnowledgeStoreItemsResponse>(
        (md, opts, cb) => client.ListKnowledgeStoreItemCollectionItems(request, md, opts, cb),
        ctx,
      ),
    addKnowledgeStoreItemCollectionItems: (ctx: OutgoingContext, request: KnowledgeStoreItemCollectionItemsRequest__Input) =>
      callUnary<KnowledgeStoreItemCollection>((md, opts, cb) => client.AddKnowledgeStoreItemCollectionItems(request, md, opts, cb), ctx),
    removeKnowledgeStoreItemCollectionItems: (ctx: OutgoingContext, request: KnowledgeStoreItemCollectionItemsRequest__Input) =>
      callUnary<unknown>((md, opts, cb) => client.RemoveKnowledgeStoreItemCollectionItems(request, md, opts, cb), ctx),
  };
}
