import { parseInput } from '@vus/core';
import { toMetadataValues } from '@vus/grpc';
import type { PageRequest__Input } from '@vus/grpc/types/common/v1/PageRequest';
import type { CreateEntitiesRequest__Input } from '@vus/grpc/types/task/v1/CreateEntitiesRequest';
import type { CreateEntityCollectionRequest__Input } from '@vus/grpc/types/task/v1/CreateEntityCollectionRequest';
import type { CreateEntityRequest__Input } from '@vus/grpc/types/task/v1/CreateEntityRequest';
import type { EntityAssetsRequest__Input } from '@vus/grpc/types/task/v1/EntityAssetsRequest';
import type { ListEntitiesRequest__Input } from '@vus/grpc/types/task/v1/ListEntitiesRequest';
import type { ListEntityCollectionsRequest__Input } from '@vus/grpc/types/task/v1/ListEntityCollectionsRequest';
import type { NewEntity__Input } from '@vus/grpc/types/task/v1/NewEntity';
import type { UpdateEntityCollectionRequest__Input } from '@vus/grpc/types/task/v1/UpdateEntityCollectionRequest';
import type { UpdateEntityRequest__Input } from '@vus/grpc/types/task/v1/UpdateEntityRequest';
import { z } from 'zod';
import { parsePageQuery } from '../http/paging';
import { scalar, type RawQuery } from '../http/query';

/**
 * Requests of routes/entities.ts (twelvelabs-js 1.3.4 `entityCollections`, `entityCollections.entities`).
 * The shapes, types and array sizes are checked here, so a hostile body is a 400 before any call;
 * what depends on stored data (the assets being ready images of the organization) and the content
 * rules (a non-blank name, at most 255 characters) are task-service's, which also reports them per
 * entity in a bulk create instead of refusing the whole request.
 */

export const ENTITY_STATUSES = ['processing', 'ready'] as const;
export const ENTITY_SORT_FIELDS = ['created_at', 'updated_at', 'name'] as const;
/** Reference images one entity may have, and entities one bulk create may make (task-service's ENTITY_LIMITS). */
export const MAX_ENTITY_ASSETS = 50;
export const MAX_BULK_ENTITIES = 100;
/** Longest text a field may hold before task-service's own, smaller bounds read it (a name filter, a metadata string). */
const MAX_TEXT = 2000;

const text = z.string({ error: 'expected a string' }).max(MAX_TEXT, `at most ${MAX_TEXT} characters`);
/** Ids are 24 hexadecimal characters: anything else is refused as malformed, not looked up. */
export const assetId = z
  .string({ error: 'expected an asset id' })
  .regex(/^[0-9a-f]{24}$/, 'expected an asset id (24 hexadecimal characters)');
const assetIds = z
  .array(assetId, { error: 'expected an array of asset ids' })
  .max(MAX_ENTITY_ASSETS, `an entity has at most ${MAX_ENTITY_ASSETS} assets`);
/** Metadata as the reference allows it: string, integer, float or boolean values (objects and arrays as strings). */
export const entityMetadata = z
  .record(
    z.string(),
    z.union([z.string().max(MAX_TEXT), z.number().finite(), z.boolean()], { error: 'expected a string, number or boolean' }),
    {
      error: 'expected a JSON object of strings, numbers or booleans',
    },
  )
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

/** POST /entity-collections */
export const createCollectionSchema = z.object({ name: text, description: text.optional() });
/** PATCH /entity-collections/{id}: unset fields keep their value. */
export const updateCollectionSchema = z.object({ name: text.optional(), description: text.optional() });
/** POST /entity-collections/{id}/entities, and each item of a bulk create. */
export const newEntitySchema = z.object({
  name: text,
  description: text.optional(),
  metadata: entityMetadata.optional(),
  asset_ids: assetIds,
});
/** POST /entity-collections/{id}/entities/bulk */
export const bulkCreateSchema = z.object({
  entities: z
    .array(newEntitySchema, { error: 'expected an array of entities' })
    .min(1, 'give at least one entity')
    .max(MAX_BULK_ENTITIES, `at most ${MAX_BULK_ENTITIES} entities at once`),
});
/** PATCH /entity-collections/{id}/entities/{id}: metadata, when given, replaces the whole map; assets change through /assets. */
export const updateEntitySchema = z.object({ name: text.optional(), description: text.optional(), metadata: entityMetadata.optional() });
/** POST and DELETE /entity-collections/{id}/entities/{id}/assets */
export const entityAssetsSchema = z.object({ asset_ids: assetIds.min(1, 'give at least one asset id') });

const toNewEntity = (input: z.infer<typeof newEntitySchema>): NewEntity__Input => ({
  name: input.name,
  description: input.description ?? '',
  metadata: toMetadataValues(input.metadata ?? {}),
  asset_ids: input.asset_ids,
});

export function parseCreateCollection(body: unknown): CreateEntityCollectionRequest__Input {
  const input = parseInput(createCollectionSchema, body ?? {});
  return { name: input.name, description: input.description ?? '' };
}

export function parseUpdateCollection(entityCollectionId: string, body: unknown): UpdateEntityCollectionRequest__Input {
  const input = parseInput(updateCollectionSchema, body ?? {});
  return { entity_collection_id: entityCollectionId, name: input.name, description: input.description };
}

export function parseCreateEntity(entityCollectionId: string, body: unknown): CreateEntityRequest__Input {
  return { entity_collection_id: entityCollectionId, entity: toNewEntity(parseInput(newEntitySchema, body ?? {})) };
}

export function parseCreateEntities(entityCollectionId: string, body: unknown): CreateEntitiesRequest__Input {
  const input = parseInput(bulkCreateSchema, body ?? {});
  return { entity_collection_id: entityCollectionId, entities: input.entities.map(toNewEntity) };
}

export function parseUpdateEntity(entityCollectionId: string, entityId: string, body: unknown): UpdateEntityRequest__Input {
  const input = parseInput(updateEntitySchema, body ?? {});
  return {
    entity_collection_id: entityCollectionId,
    entity_id: entityId,
    name: input.name,
    description: input.description,
    replace_metadata: input.metadata !== undefined,
    metadata: toMetadataValues(input.metadata ?? {}),
  };
}

export function parseEntityAssets(entityCollectionId: string, entityId: string, body: unknown): EntityAssetsRequest__Input {
  const input = parseInput(entityAssetsSchema, body ?? {});
  return { entity_collection_id: entityCollectionId, entity_id: entityId, asset_ids: input.asset_ids };
}

const listFilters = z.object({
  sort_by: z.enum(ENTITY_SORT_FIELDS, { error: `expected ${ENTITY_SORT_FIELDS.join(', ')}` }).optional(),
  name: text.optional(),
  status: z.enum(ENTITY_STATUSES, { error: `expected ${ENTITY_STATUSES.join(' or ')}` }).optional(),
});

/** page, page_limit, sort_by (created_at | updated_at | name) and sort_option of an entity list. Pure. */
export function parseEntityPage(query: RawQuery): PageRequest__Input {
  const { sort_by } = parseInput(listFilters, { sort_by: scalar(query, 'sort_by') });
  // parsePageQuery knows created_at and updated_at only: name is checked above and taken out before.
  const page = parsePageQuery(new Map([...query].filter(([key]) => key !== 'sort_by')));
  return { page: page.page, page_limit: page.pageLimit, sort_by: sort_by ?? '', sort_option: page.sortOption ?? '' };
}

/** GET /entity-collections: the page and `name` (part of the name, any case). */
export function parseListCollections(query: RawQuery): ListEntityCollectionsRequest__Input {
  const { name } = parseInput(listFilters, { name: scalar(query, 'name') });
  return { page: parseEntityPage(query), name: name ?? '' };
}

/** GET /entity-collections/{id}/entities: the page, `name` and `status` (processing | ready). */
export function parseListEntities(entityCollectionId: string, query: RawQuery): ListEntitiesRequest__Input {
  const { name, status } = parseInput(listFilters, { name: scalar(query, 'name'), status: scalar(query, 'status') });
  return { entity_collection_id: entityCollectionId, page: parseEntityPage(query), name: name ?? '', status: status ?? '' };
}

/** GET /assets/{id}/entities: page and page_limit (the newest entity first). */
export function parseListByAssetPage(query: RawQuery): PageRequest__Input {
  const page = parsePageQuery(new Map([...query].filter(([key]) => key === 'page' || key === 'page_limit')));
  return { page: page.page, page_limit: page.pageLimit, sort_by: '', sort_option: '' };
}
