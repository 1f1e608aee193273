import { fromMetadataValues, fromTimestamp } from '@vus/grpc';
import type { CreateEntitiesResponse } from '@vus/grpc/types/task/v1/CreateEntitiesResponse';
import type { Entity } from '@vus/grpc/types/task/v1/Entity';
import type { EntityCollection } from '@vus/grpc/types/task/v1/EntityCollection';

const iso = (ts: Entity['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/** An entity collection (twelvelabs-js 1.3.4 EntityCollection). */
export function presentEntityCollection(collection: EntityCollection) {
  return {
    _id: collection.id,
    name: collection.name,
    description: collection.description,
    created_at: iso(collection.created_at),
    updated_at: iso(collection.updated_at),
  };
}

/** An entity (Entity): metadata as plain strings, numbers and booleans; asset_ids in the order they were added. */
export function presentEntity(entity: Entity) {
  return {
    _id: entity.id,
    entity_collection_id: entity.entity_collection_id,
    name: entity.name,
    description: entity.description,
    metadata: fromMetadataValues(entity.metadata),
    asset_ids: entity.asset_ids,
    status: entity.status,
    created_at: iso(entity.created_at),
    updated_at: iso(entity.updated_at),
  };
}

/** A bulk create (BulkCreateEntityResponse): the entities made (id, name, status) and each refused one by its position. */
export function presentBulkCreate(result: CreateEntitiesResponse) {
  return {
    success_count: result.entities.length,
    failed_count: result.errors.length,
    entities: result.entities.map((e) => ({ _id: e.id, name: e.name, status: e.status })),
    errors: result.errors.map((e) => ({ entity_index: e.entity_index, entity_name: e.entity_name, error_reason: e.error_reason })),
  };
}
