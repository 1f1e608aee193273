import type { Clock } from '@vus/core';
import type { Database } from '@vus/db';
import { createEntityService } from './entities';
import { entityHandlers, type EntityHandlers } from './rpc';
import { createEntityStore } from './store';

/** Entity collections and entities inside task-service, as parts of the service: their API handlers. */
export function entityParts(deps: { db: Database; clock: Clock }): { handlers: EntityHandlers } {
  return { handlers: entityHandlers(createEntityService({ store: createEntityStore(deps.db), clock: deps.clock })) };
}
