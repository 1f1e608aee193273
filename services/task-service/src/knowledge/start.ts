import type { Clock } from '@vus/core';
import type { Database } from '@vus/db';
import { createKnowledgeStoreService } from './knowledge-stores';
import { knowledgeStoreHandlers, type KnowledgeStoreHandlers } from './rpc';
import { createKnowledgeStoreStore } from './store';

/** Knowledge stores and their items inside task-service, as parts of the service: their API handlers. */
export function knowledgeStoreParts(deps: { db: Database; clock: Clock }): { handlers: KnowledgeStoreHandlers } {
  return {
    handlers: knowledgeStoreHandlers(createKnowledgeStoreService({ store: createKnowledgeStoreStore(deps.db), clock: deps.clock })),
  };
}
