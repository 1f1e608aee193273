import { ApiError, errors } from '@vus/core';
import type { Database } from '@vus/db';
import { callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { EntityReferenceFaces } from '@vus/grpc/types/task/v1/EntityReferenceFaces';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import { createFaceTrackStore, type FaceTrackStore } from './face-track-store';

/** An entity's reference faces as entity search needs them (task-service's GetEntityReferenceFaces). */
export interface EntityReferenceSet {
  entityId: string;
  faces: Float32Array[];
  /** Reference images in which no face was found: they find nothing (matching is by face). */
  assetsWithoutFace: string[];
  /** Reference images still being processed (not embedded yet). */
  assetsNotReady: string[];
  /** Reference images without a face, as small JPEGs: matched by the visual embedding (a query of several images). */
  images: Buffer[];
}

export interface EntityReferences {
  /** Another organization's or an unknown entity is resource_not_exist (from task-service). */
  referenceFaces(orgId: string, entityId: string): Promise<EntityReferenceSet>;
}

/** task-service's address, or a function that knows it once task-service is up. */
export type TaskServiceAddress = string | (() => string | undefined);

export interface EntitySearchDeps {
  faceTracks: FaceTrackStore;
  /** Undefined when search-service was not told task-service's address: entity search answers 501. */
  references: EntityReferences | undefined;
}

/** Reference faces are embedded on first need (a few images, about a second each): a longer deadline than a lookup. */
const REFERENCE_FACES_TIMEOUT_MS = 120_000;

/**
 * Entity search's parts: the face-track store and task-service's entity reference faces. The address
 * may be given late (a function): in embedded mode task-service starts after search-service, whose
 * address its worker needs. The client is made on first use.
 */
export function entitySearchParts(
  db: Database,
  taskServiceAddress: TaskServiceAddress | undefined,
  onStop: (stop: () => void) => void,
): EntitySearchDeps {
  const faceTracks = createFaceTrackStore(db);
  if (!taskServiceAddress) return { faceTracks, references: undefined };
  let client: TaskServiceClient | undefined;
  onStop(() => client?.close());
  const connected = (): TaskServiceClient => {
    const address = typeof taskServiceAddress === 'string' ? taskServiceAddress : taskServiceAddress();
    if (!address) throw entitySearchUnavailable();
    client ??= createServiceClient<TaskServiceClient>('task-service', address);
    return client;
  };
  return {
    faceTracks,
    references: {
      async referenceFaces(orgId, entityId) {
        const task = connected();
        const ctx: OutgoingContext = { orgId, deadline: new Date(Date.now() + REFERENCE_FACES_TIMEOUT_MS) };
        const answer = await callUnary<EntityReferenceFaces>(
          (md, opts, cb) => task.GetEntityReferenceFaces({ entity_id: entityId }, md, opts, cb),
          ctx,
        );
        return {
          entityId,
          faces: answer.faces.map((f) => Float32Array.from(f.embedding)),
          assetsWithoutFace: answer.assets_without_face,
          assetsNotReady: answer.assets_not_ready,
          images: answer.images_without_face.map((i) => Buffer.from(i.jpeg)),
        };
      },
    },
  };
}

/** Entity search without task-service's address: said plainly, never an empty result. */
export const entitySearchUnavailable = (): ApiError =>
  new ApiError(
    'not_implemented',
    'Entity search (<@entity_id> in query_text) is not available: search-service is not connected to task-service.',
  );

/** A mention that is no entity id at all is refused like an unknown entity. */
export const unknownEntity = (id: string): ApiError => errors.notFound('Entity', id);
