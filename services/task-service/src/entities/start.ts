import type { BlobStore } from '@vus/blob';
import type { Clock, Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { faceRecognitionProvider, ModelRegistry } from '@vus/models';
import { createEntityService } from './entities';
import { createReferenceFaceStore } from './reference-face-store';
import { createReferenceFaces } from './reference-faces';
import { entityHandlers, type EntityHandlers } from './rpc';
import { createEntityStore } from './store';

/**
 * The face model reference images are embedded with: the indexing worker's (face tracks are compared
 * with them). Named with the way faces are cut for it (BlazeFace's boxes since issue 30): embeddings
 * stored under another name are made again.
 */
export const REFERENCE_FACE_MODEL = 'face-api-resnet/blazeface';

/**
 * Entity collections and entities inside task-service, as parts of the service: their API handlers.
 * Reference faces are embedded with the indexing worker's model registry (the same face model as
 * face tracks), or, without a worker in this process, with the bundled face model of its own.
 */
export function entityParts(deps: {
  db: Database;
  clock: Clock;
  logger?: Logger | undefined;
  options?: { blobs?: BlobStore | undefined; worker?: { models: Pick<ModelRegistry, 'find'> } | undefined } | undefined;
}): { handlers: EntityHandlers } {
  const { db, clock, logger, options } = deps;
  // Without a worker here (cluster mode's API process), the bundled face model alone, loaded on first need.
  let ownModels: ModelRegistry | undefined;
  const models = (): Pick<ModelRegistry, 'find'> =>
    options?.worker?.models ?? (ownModels ??= new ModelRegistry([faceRecognitionProvider()]));
  const referenceFaces = logger
    ? createReferenceFaces({
        store: createReferenceFaceStore(db),
        blobs: options?.blobs,
        faceEmbedder: async () => models().find('face_embedder'),
        model: REFERENCE_FACE_MODEL,
        clock,
        logger,
      })
    : undefined;
  return { handlers: entityHandlers(createEntityService({ store: createEntityStore(db), clock }), referenceFaces) };
}
