import type { Clock } from '@vus/core';
import type { Database } from '@vus/db';
import type { IndexClient } from '../index-client';
import type { TaskService } from '../tasks/tasks';
import { itemCollectionParts, type KnowledgeCollectionHandlers } from './collection-rpc';
import { itemIngestion } from './ingestion';
import { assetItemRemoval, createKnowledgeStoreService, type AssetItemRemoval } from './knowledge-stores';
import { knowledgeStoreHandlers, type KnowledgeStoreHandlers } from './rpc';
import { createKnowledgeStoreStore } from './store';

/**
 * Knowledge stores, their items and item collections inside task-service, as parts of the service:
 * their API handlers, and what deleting an asset does to its items (for assets/start.ts). Items are
 * processed by the indexing pipeline (tasks into the store's index). The store and the ingestion
 * are made once here, for all three.
 */
export function knowledgeParts(deps: { db: Database; clock: Clock; tasks: TaskService; index: IndexClient }): {
  handlers: { knowledgeStores: KnowledgeStoreHandlers; knowledgeCollections: KnowledgeCollectionHandlers };
  assetItems: AssetItemRemoval;
} {
  const store = createKnowledgeStoreStore(deps.db);
  const ingestion = itemIngestion({ index: deps.index, tasks: deps.tasks });
  const stores = createKnowledgeStoreService({ store, ingestion, clock: deps.clock });
  return {
    handlers: {
      knowledgeStores: knowledgeStoreHandlers(stores),
      knowledgeCollections: itemCollectionParts({ db: deps.db, clock: deps.clock, items: store }).handlers,
    },
    assetItems: assetItemRemoval(store, ingestion),
  };
}
