import type { Clock } from '@vus/core';
import type { Database } from '@vus/db';
import type { IndexClient } from '../index-client';
import type { TaskService } from '../tasks/tasks';
import { itemCollectionParts, type KnowledgeCollectionHandlers } from './collection-rpc';
import { itemIngestion } from './ingestion';
import { createKnowledgeStoreService } from './knowledge-stores';
import { knowledgeStoreHandlers, type KnowledgeStoreHandlers } from './rpc';
import { createKnowledgeStoreStore } from './store';

/**
 * Knowledge stores, their items and item collections inside task-service, as parts of the service:
 * their API handlers. Items are processed by the indexing pipeline (tasks into the store's index).
 */
export function knowledgeParts(deps: { db: Database; clock: Clock; tasks: TaskService; index: IndexClient }): {
  knowledgeStores: KnowledgeStoreHandlers;
  knowledgeCollections: KnowledgeCollectionHandlers;
} {
  const ingestion = itemIngestion({ index: deps.index, tasks: deps.tasks });
  const stores = createKnowledgeStoreService({ store: createKnowledgeStoreStore(deps.db), ingestion, clock: deps.clock });
  return { knowledgeStores: knowledgeStoreHandlers(stores), knowledgeCollections: itemCollectionParts(deps).handlers };
}
