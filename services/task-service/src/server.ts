import type { Logger } from '@vus/core';
import { implement } from '@vus/grpc';
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import type { AssetHandlers } from './assets/rpc';
import type { EntityHandlers } from './entities/rpc';
import type { KnowledgeCollectionHandlers } from './knowledge/collection-rpc';
import type { KnowledgeStoreHandlers } from './knowledge/rpc';
import type { TaskHandlers } from './tasks/rpc';
import type { WebhookHandlers } from './webhooks/rpc';

/**
 * TaskService's gRPC implementation: each domain brings its own thin handlers (tasks/rpc.ts for
 * indexing tasks, webhooks/rpc.ts for webhooks, assets/rpc.ts for assets and indexed assets, entities/rpc.ts for
 * entity collections and entities, knowledge/rpc.ts for knowledge stores and their items,
 * knowledge/collection-rpc.ts for their item collections); RPCs nobody implements yet answer UNIMPLEMENTED.
 */
export function taskServiceImplementation(
  handlers: {
    tasks: TaskHandlers;
    webhooks: WebhookHandlers;
    assets?: AssetHandlers | undefined;
    entities?: EntityHandlers | undefined;
    knowledgeStores?: KnowledgeStoreHandlers | undefined;
    knowledgeCollections?: KnowledgeCollectionHandlers | undefined;
  },
  logger: Logger,
): UntypedServiceImplementation {
  return implement<TaskServiceHandlers>(
    {
      ...handlers.tasks,
      ...handlers.webhooks,
      ...handlers.assets,
      ...handlers.entities,
      ...handlers.knowledgeStores,
      ...handlers.knowledgeCollections,
    },
    logger,
  );
}
