import { namedPageRequestSchema, parseInput, sortAndPaging, type Clock } from '@vus/core';
import type { Database } from '@vus/db';
import { requireOrg, toTimestamp, type AsyncHandlers } from '@vus/grpc';
import type { KnowledgeStoreItemCollection__Input } from '@vus/grpc/types/task/v1/KnowledgeStoreItemCollection';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import { createKnowledgeCollectionStore } from './collection-store';
import { createKnowledgeCollectionService, type CollectionRecord, type KnowledgeCollectionService } from './collections';
import { toProtoItem } from './rpc';
import type { KnowledgeStoreStore } from './knowledge-stores';

/** The item-collection RPCs of TaskService: thin, validated again here. */
export type KnowledgeCollectionHandlers = Pick<
  AsyncHandlers<TaskServiceHandlers>,
  | 'CreateKnowledgeStoreItemCollection'
  | 'GetKnowledgeStoreItemCollection'
  | 'ListKnowledgeStoreItemCollections'
  | 'UpdateKnowledgeStoreItemCollection'
  | 'DeleteKnowledgeStoreItemCollection'
  | 'ListKnowledgeStoreItemCollectionItems'
  | 'AddKnowledgeStoreItemCollectionItems'
  | 'RemoveKnowledgeStoreItemCollectionItems'
>;

/** Sort and paging of a collection list: unset sorts the newest created first. Pure. */
export const collectionListPaging = (raw: unknown) => sortAndPaging(parseInput(namedPageRequestSchema, raw));

export const toProtoCollection = (c: CollectionRecord): KnowledgeStoreItemCollection__Input => ({
  id: c.id,
  knowledge_store_id: c.storeId,
  name: c.name,
  description: c.description,
  metadata: c.metadata,
  member_count: c.memberCount,
  created_at: toTimestamp(c.createdAt),
  updated_at: toTimestamp(c.updatedAt),
});

export function knowledgeCollectionHandlers(collections: KnowledgeCollectionService): KnowledgeCollectionHandlers {
  return {
    async CreateKnowledgeStoreItemCollection(request, ctx) {
      const created = await collections.createCollection(requireOrg(ctx), request.knowledge_store_id, {
        name: request.name,
        description: request.description,
        metadata: request.metadata,
      });
      return toProtoCollection(created);
    },
    async GetKnowledgeStoreItemCollection(request, ctx) {
      return toProtoCollection(await collections.getCollection(requireOrg(ctx), request.knowledge_store_id, request.collection_id));
    },
    async ListKnowledgeStoreItemCollections(request, ctx) {
      const { sort, paging } = collectionListPaging(request.page);
      const result = await collections.listCollections(requireOrg(ctx), request.knowledge_store_id, sort, paging);
      return { data: result.data.map(toProtoCollection), page_info: result.pageInfo };
    },
    async UpdateKnowledgeStoreItemCollection(request, ctx) {
      const updated = await collections.updateCollection(requireOrg(ctx), request.knowledge_store_id, request.collection_id, {
        name: request.name,
        description: request.description,
        metadata: request.replace_metadata ? request.metadata : undefined,
      });
      return toProtoCollection(updated);
    },
    async DeleteKnowledgeStoreItemCollection(request, ctx) {
      await collections.deleteCollection(requireOrg(ctx), request.knowledge_store_id, request.collection_id);
      return {};
    },
    async ListKnowledgeStoreItemCollectionItems(request, ctx) {
      // Members list in the order they were added: the page's sort fields do not apply.
      const { paging } = collectionListPaging(request.page);
      const result = await collections.listMembers(requireOrg(ctx), request.knowledge_store_id, request.collection_id, paging);
      return { data: result.data.map(toProtoItem), page_info: result.pageInfo };
    },
    async AddKnowledgeStoreItemCollectionItems(request, ctx) {
      const updated = await collections.addMembers(requireOrg(ctx), request.knowledge_store_id, request.collection_id, request.item_ids);
      return toProtoCollection(updated);
    },
    async RemoveKnowledgeStoreItemCollectionItems(request, ctx) {
      await collections.removeMembers(requireOrg(ctx), request.knowledge_store_id, request.collection_id, request.item_ids);
      return {};
    },
  };
}

/** Item collections inside task-service, as a part of the service: their API handlers over the database and the stores' items. */
export function itemCollectionParts(deps: { db: Database; clock: Clock; items: Pick<KnowledgeStoreStore, 'getItem'> }): {
  handlers: KnowledgeCollectionHandlers;
} {
  const { items } = deps;
  const service = createKnowledgeCollectionService({
    store: createKnowledgeCollectionStore(deps.db),
    item: (orgId, storeId, id) => items.getItem(orgId, storeId, id),
    clock: deps.clock,
  });
  return { handlers: knowledgeCollectionHandlers(service) };
}
