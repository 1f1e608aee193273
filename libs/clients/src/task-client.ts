import { callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { Asset } from '@vus/grpc/types/task/v1/Asset';
import type { CreateAssetRequest__Input } from '@vus/grpc/types/task/v1/CreateAssetRequest';
import type { CreateIndexedAssetRequest__Input } from '@vus/grpc/types/task/v1/CreateIndexedAssetRequest';
import type { CreateMultipartUploadRequest__Input } from '@vus/grpc/types/task/v1/CreateMultipartUploadRequest';
import type { CreateTaskRequest__Input } from '@vus/grpc/types/task/v1/CreateTaskRequest';
import type { GetMultipartUploadRequest__Input } from '@vus/grpc/types/task/v1/GetMultipartUploadRequest';
import type { IndexedAsset } from '@vus/grpc/types/task/v1/IndexedAsset';
import type { ListAssetsRequest__Input } from '@vus/grpc/types/task/v1/ListAssetsRequest';
import type { ListAssetsResponse } from '@vus/grpc/types/task/v1/ListAssetsResponse';
import type { ListIndexedAssetsRequest__Input } from '@vus/grpc/types/task/v1/ListIndexedAssetsRequest';
import type { ListIndexedAssetsResponse } from '@vus/grpc/types/task/v1/ListIndexedAssetsResponse';
import type { ListMultipartUploadsResponse } from '@vus/grpc/types/task/v1/ListMultipartUploadsResponse';
import type { MultipartUpload } from '@vus/grpc/types/task/v1/MultipartUpload';
import type { RecordUploadChunkRequest__Input } from '@vus/grpc/types/task/v1/RecordUploadChunkRequest';
import type { ReportUploadChunksRequest__Input } from '@vus/grpc/types/task/v1/ReportUploadChunksRequest';
import type { ReportUploadChunksResponse } from '@vus/grpc/types/task/v1/ReportUploadChunksResponse';
import type { UpdateIndexedAssetRequest__Input } from '@vus/grpc/types/task/v1/UpdateIndexedAssetRequest';
import type { UploadChunk } from '@vus/grpc/types/task/v1/UploadChunk';
import type { CreateWebhookEndpointRequest__Input } from '@vus/grpc/types/task/v1/CreateWebhookEndpointRequest';
import type { GetTaskStatusCountsRequest__Input } from '@vus/grpc/types/task/v1/GetTaskStatusCountsRequest';
import type { ListTasksRequest__Input } from '@vus/grpc/types/task/v1/ListTasksRequest';
import type { ListTasksResponse } from '@vus/grpc/types/task/v1/ListTasksResponse';
import type { ListWebhookDeliveriesRequest__Input } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesRequest';
import type { ListWebhookDeliveriesResponse } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesResponse';
import type { ListWebhookEndpointsResponse } from '@vus/grpc/types/task/v1/ListWebhookEndpointsResponse';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import type { TaskStatusCounts } from '@vus/grpc/types/task/v1/TaskStatusCounts';
import type { WebhookEndpoint } from '@vus/grpc/types/task/v1/WebhookEndpoint';
import { knowledgeCollectionCalls } from './knowledge-collections-client';
import { assetExtraCalls } from './asset-extras-client';
import type { CreateEntitiesRequest__Input } from '@vus/grpc/types/task/v1/CreateEntitiesRequest';
import type { CreateEntitiesResponse } from '@vus/grpc/types/task/v1/CreateEntitiesResponse';
import type { CreateEntityCollectionRequest__Input } from '@vus/grpc/types/task/v1/CreateEntityCollectionRequest';
import type { CreateEntityRequest__Input } from '@vus/grpc/types/task/v1/CreateEntityRequest';
import type { Entity } from '@vus/grpc/types/task/v1/Entity';
import type { EntityAssetsRequest__Input } from '@vus/grpc/types/task/v1/EntityAssetsRequest';
import type { EntityCollection } from '@vus/grpc/types/task/v1/EntityCollection';
import type { ListEntitiesByAssetRequest__Input } from '@vus/grpc/types/task/v1/ListEntitiesByAssetRequest';
import type { ListEntitiesRequest__Input } from '@vus/grpc/types/task/v1/ListEntitiesRequest';
import type { ListEntitiesResponse } from '@vus/grpc/types/task/v1/ListEntitiesResponse';
import type { ListEntityCollectionsRequest__Input } from '@vus/grpc/types/task/v1/ListEntityCollectionsRequest';
import type { ListEntityCollectionsResponse } from '@vus/grpc/types/task/v1/ListEntityCollectionsResponse';
import type { UpdateEntityCollectionRequest__Input } from '@vus/grpc/types/task/v1/UpdateEntityCollectionRequest';
import type { UpdateEntityRequest__Input } from '@vus/grpc/types/task/v1/UpdateEntityRequest';
import type { CreateKnowledgeStoreItemRequest__Input } from '@vus/grpc/types/task/v1/CreateKnowledgeStoreItemRequest';
import type { CreateKnowledgeStoreRequest__Input } from '@vus/grpc/types/task/v1/CreateKnowledgeStoreRequest';
import type { KnowledgeStore } from '@vus/grpc/types/task/v1/KnowledgeStore';
import type { KnowledgeStoreItem } from '@vus/grpc/types/task/v1/KnowledgeStoreItem';
import type { ListKnowledgeStoreItemsRequest__Input } from '@vus/grpc/types/task/v1/ListKnowledgeStoreItemsRequest';
import type { ListKnowledgeStoreItemsResponse } from '@vus/grpc/types/task/v1/ListKnowledgeStoreItemsResponse';
import type { ListKnowledgeStoresRequest__Input } from '@vus/grpc/types/task/v1/ListKnowledgeStoresRequest';
import type { ListKnowledgeStoresResponse } from '@vus/grpc/types/task/v1/ListKnowledgeStoresResponse';
import type { ResolveKnowledgeStoreItemsRequest__Input } from '@vus/grpc/types/task/v1/ResolveKnowledgeStoreItemsRequest';
import type { ResolveKnowledgeStoreItemsResponse } from '@vus/grpc/types/task/v1/ResolveKnowledgeStoreItemsResponse';
import type { UpdateKnowledgeStoreRequest__Input } from '@vus/grpc/types/task/v1/UpdateKnowledgeStoreRequest';

/** task-service: indexing tasks, assets and indexed assets, webhooks, knowledge stores and their items, entity collections and entities. */
export function createTaskClient(address: string) {
  const client = createServiceClient<TaskServiceClient>('task-service', address);
  return {
    createTask: (ctx: OutgoingContext, request: CreateTaskRequest__Input) =>
      callUnary<Task>((md, opts, cb) => client.CreateTask(request, md, opts, cb), ctx),
    getTask: (ctx: OutgoingContext, taskId: string) =>
      callUnary<Task>((md, opts, cb) => client.GetTask({ task_id: taskId }, md, opts, cb), ctx),
    listTasks: (ctx: OutgoingContext, request: ListTasksRequest__Input) =>
      callUnary<ListTasksResponse>((md, opts, cb) => client.ListTasks(request, md, opts, cb), ctx),
    deleteTask: (ctx: OutgoingContext, taskId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteTask({ task_id: taskId }, md, opts, cb), ctx),
    getTaskStatusCounts: (ctx: OutgoingContext, request: GetTaskStatusCountsRequest__Input) =>
      callUnary<TaskStatusCounts>((md, opts, cb) => client.GetTaskStatusCounts(request, md, opts, cb), ctx),
    createWebhookEndpoint: (ctx: OutgoingContext, request: CreateWebhookEndpointRequest__Input) =>
      callUnary<WebhookEndpoint>((md, opts, cb) => client.CreateWebhookEndpoint(request, md, opts, cb), ctx),
    listWebhookEndpoints: (ctx: OutgoingContext, page: number, pageLimit: number) =>
      callUnary<ListWebhookEndpointsResponse>(
        (md, opts, cb) => client.ListWebhookEndpoints({ page: { page, page_limit: pageLimit } }, md, opts, cb),
        ctx,
      ),
    deleteWebhookEndpoint: (ctx: OutgoingContext, endpointId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteWebhookEndpoint({ webhook_endpoint_id: endpointId }, md, opts, cb), ctx),
    listWebhookDeliveries: (ctx: OutgoingContext, request: ListWebhookDeliveriesRequest__Input) =>
      callUnary<ListWebhookDeliveriesResponse>((md, opts, cb) => client.ListWebhookDeliveries(request, md, opts, cb), ctx),
    createAsset: (ctx: OutgoingContext, request: CreateAssetRequest__Input) =>
      callUnary<Asset>((md, opts, cb) => client.CreateAsset(request, md, opts, cb), ctx),
    getAsset: (ctx: OutgoingContext, assetId: string) =>
      callUnary<Asset>((md, opts, cb) => client.GetAsset({ asset_id: assetId }, md, opts, cb), ctx),
    listAssets: (ctx: OutgoingContext, request: ListAssetsRequest__Input) =>
      callUnary<ListAssetsResponse>((md, opts, cb) => client.ListAssets(request, md, opts, cb), ctx),
    deleteAsset: (ctx: OutgoingContext, assetId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteAsset({ asset_id: assetId }, md, opts, cb), ctx),
    createMultipartUpload: (ctx: OutgoingContext, request: CreateMultipartUploadRequest__Input) =>
      callUnary<MultipartUpload>((md, opts, cb) => client.CreateMultipartUpload(request, md, opts, cb), ctx),
    getMultipartUpload: (ctx: OutgoingContext, request: GetMultipartUploadRequest__Input) =>
      callUnary<MultipartUpload>((md, opts, cb) => client.GetMultipartUpload(request, md, opts, cb), ctx),
    listMultipartUploads: (ctx: OutgoingContext, page: number, pageLimit: number) =>
      callUnary<ListMultipartUploadsResponse>(
        (md, opts, cb) => client.ListMultipartUploads({ page: { page, page_limit: pageLimit } }, md, opts, cb),
        ctx,
      ),
    recordUploadChunk: (ctx: OutgoingContext, request: RecordUploadChunkRequest__Input) =>
      callUnary<UploadChunk>((md, opts, cb) => client.RecordUploadChunk(request, md, opts, cb), ctx),
    reportUploadChunks: (ctx: OutgoingContext, request: ReportUploadChunksRequest__Input) =>
      callUnary<ReportUploadChunksResponse>((md, opts, cb) => client.ReportUploadChunks(request, md, opts, cb), ctx),
    createIndexedAsset: (ctx: OutgoingContext, request: CreateIndexedAssetRequest__Input) =>
      callUnary<IndexedAsset>((md, opts, cb) => client.CreateIndexedAsset(request, md, opts, cb), ctx),
    getIndexedAsset: (ctx: OutgoingContext, indexId: string, indexedAssetId: string) =>
      callUnary<IndexedAsset>(
        (md, opts, cb) => client.GetIndexedAsset({ index_id: indexId, indexed_asset_id: indexedAssetId }, md, opts, cb),
        ctx,
      ),
    listIndexedAssets: (ctx: OutgoingContext, request: ListIndexedAssetsRequest__Input) =>
      callUnary<ListIndexedAssetsResponse>((md, opts, cb) => client.ListIndexedAssets(request, md, opts, cb), ctx),
    updateIndexedAsset: (ctx: OutgoingContext, request: UpdateIndexedAssetRequest__Input) =>
      callUnary<unknown>((md, opts, cb) => client.UpdateIndexedAsset(request, md, opts, cb), ctx),
    deleteIndexedAsset: (ctx: OutgoingContext, indexId: string, indexedAssetId: string) =>
      callUnary<unknown>(
        (md, opts, cb) => client.DeleteIndexedAsset({ index_id: indexId, indexed_asset_id: indexedAssetId }, md, opts, cb),
        ctx,
      ),
    createKnowledgeStore: (ctx: OutgoingContext, request: CreateKnowledgeStoreRequest__Input) =>
      callUnary<KnowledgeStore>((md, opts, cb) => client.CreateKnowledgeStore(request, md, opts, cb), ctx),
    getKnowledgeStore: (ctx: OutgoingContext, knowledgeStoreId: string) =>
      callUnary<KnowledgeStore>((md, opts, cb) => client.GetKnowledgeStore({ knowledge_store_id: knowledgeStoreId }, md, opts, cb), ctx),
    listKnowledgeStores: (ctx: OutgoingContext, request: ListKnowledgeStoresRequest__Input) =>
      callUnary<ListKnowledgeStoresResponse>((md, opts, cb) => client.ListKnowledgeStores(request, md, opts, cb), ctx),
    updateKnowledgeStore: (ctx: OutgoingContext, request: UpdateKnowledgeStoreRequest__Input) =>
      callUnary<KnowledgeStore>((md, opts, cb) => client.UpdateKnowledgeStore(request, md, opts, cb), ctx),
    deleteKnowledgeStore: (ctx: OutgoingContext, knowledgeStoreId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteKnowledgeStore({ knowledge_store_id: knowledgeStoreId }, md, opts, cb), ctx),
    createKnowledgeStoreItem: (ctx: OutgoingContext, request: CreateKnowledgeStoreItemRequest__Input) =>
      callUnary<KnowledgeStoreItem>((md, opts, cb) => client.CreateKnowledgeStoreItem(request, md, opts, cb), ctx),
    getKnowledgeStoreItem: (ctx: OutgoingContext, knowledgeStoreId: string, itemId: string) =>
      callUnary<KnowledgeStoreItem>(
        (md, opts, cb) => client.GetKnowledgeStoreItem({ knowledge_store_id: knowledgeStoreId, item_id: itemId }, md, opts, cb),
        ctx,
      ),
    listKnowledgeStoreItems: (ctx: OutgoingContext, request: ListKnowledgeStoreItemsRequest__Input) =>
      callUnary<ListKnowledgeStoreItemsResponse>((md, opts, cb) => client.ListKnowledgeStoreItems(request, md, opts, cb), ctx),
    deleteKnowledgeStoreItem: (ctx: OutgoingContext, knowledgeStoreId: string, itemId: string) =>
      callUnary<unknown>(
        (md, opts, cb) => client.DeleteKnowledgeStoreItem({ knowledge_store_id: knowledgeStoreId, item_id: itemId }, md, opts, cb),
        ctx,
      ),
    /** The items a knowledge-store search or response reads, with their videos in the store's index (issue 33). */
    resolveKnowledgeStoreItems: (ctx: OutgoingContext, request: ResolveKnowledgeStoreItemsRequest__Input) =>
      callUnary<ResolveKnowledgeStoreItemsResponse>((md, opts, cb) => client.ResolveKnowledgeStoreItems(request, md, opts, cb), ctx),
    createEntityCollection: (ctx: OutgoingContext, request: CreateEntityCollectionRequest__Input) =>
      callUnary<EntityCollection>((md, opts, cb) => client.CreateEntityCollection(request, md, opts, cb), ctx),
    getEntityCollection: (ctx: OutgoingContext, entityCollectionId: string) =>
      callUnary<EntityCollection>(
        (md, opts, cb) => client.GetEntityCollection({ entity_collection_id: entityCollectionId }, md, opts, cb),
        ctx,
      ),
    listEntityCollections: (ctx: OutgoingContext, request: ListEntityCollectionsRequest__Input) =>
      callUnary<ListEntityCollectionsResponse>((md, opts, cb) => client.ListEntityCollections(request, md, opts, cb), ctx),
    updateEntityCollection: (ctx: OutgoingContext, request: UpdateEntityCollectionRequest__Input) =>
      callUnary<EntityCollection>((md, opts, cb) => client.UpdateEntityCollection(request, md, opts, cb), ctx),
    deleteEntityCollection: (ctx: OutgoingContext, entityCollectionId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteEntityCollection({ entity_collection_id: entityCollectionId }, md, opts, cb), ctx),
    createEntity: (ctx: OutgoingContext, request: CreateEntityRequest__Input) =>
      callUnary<Entity>((md, opts, cb) => client.CreateEntity(request, md, opts, cb), ctx),
    createEntities: (ctx: OutgoingContext, request: CreateEntitiesRequest__Input) =>
      callUnary<CreateEntitiesResponse>((md, opts, cb) => client.CreateEntities(request, md, opts, cb), ctx),
    getEntity: (ctx: OutgoingContext, entityCollectionId: string, entityId: string) =>
      callUnary<Entity>(
        (md, opts, cb) => client.GetEntity({ entity_collection_id: entityCollectionId, entity_id: entityId }, md, opts, cb),
        ctx,
      ),
    listEntities: (ctx: OutgoingContext, request: ListEntitiesRequest__Input) =>
      callUnary<ListEntitiesResponse>((md, opts, cb) => client.ListEntities(request, md, opts, cb), ctx),
    updateEntity: (ctx: OutgoingContext, request: UpdateEntityRequest__Input) =>
      callUnary<Entity>((md, opts, cb) => client.UpdateEntity(request, md, opts, cb), ctx),
    deleteEntity: (ctx: OutgoingContext, entityCollectionId: string, entityId: string) =>
      callUnary<unknown>(
        (md, opts, cb) => client.DeleteEntity({ entity_collection_id: entityCollectionId, entity_id: entityId }, md, opts, cb),
        ctx,
      ),
    addEntityAssets: (ctx: OutgoingContext, request: EntityAssetsRequest__Input) =>
      callUnary<Entity>((md, opts, cb) => client.AddEntityAssets(request, md, opts, cb), ctx),
    removeEntityAssets: (ctx: OutgoingContext, request: EntityAssetsRequest__Input) =>
      callUnary<Entity>((md, opts, cb) => client.RemoveEntityAssets(request, md, opts, cb), ctx),
    listEntitiesByAsset: (ctx: OutgoingContext, request: ListEntitiesByAssetRequest__Input) =>
      callUnary<ListEntitiesResponse>((md, opts, cb) => client.ListEntitiesByAsset(request, md, opts, cb), ctx),
    ...knowledgeCollectionCalls(client),
    ...assetExtraCalls(client),
    close: () => client.close(),
  };
}

export type TaskClient = ReturnType<typeof createTaskClient>;
