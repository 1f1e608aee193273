import { fromTimestamp } from '@vus/grpc';
import type { KnowledgeStoreItemCollection } from '@vus/grpc/types/task/v1/KnowledgeStoreItemCollection';

const iso = (ts: KnowledgeStoreItemCollection['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/** An item collection (twelvelabs-js 1.3.4 KnowledgeStoreItemCollection). */
export function presentItemCollection(collection: KnowledgeStoreItemCollection) {
  return {
    _id: collection.id,
    knowledge_store_id: collection.knowledge_store_id,
    name: collection.name,
    description: collection.description,
    metadata: collection.metadata,
    member_count: collection.member_count,
    created_at: iso(collection.created_at),
    updated_at: iso(collection.updated_at),
  };
}
