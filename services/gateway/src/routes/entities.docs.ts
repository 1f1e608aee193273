import { z } from 'zod';
import { created, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import {
  bulkCreateSchema,
  createCollectionSchema,
  ENTITY_SORT_FIELDS,
  ENTITY_STATUSES,
  entityAssetsSchema,
  newEntitySchema,
  updateCollectionSchema,
  updateEntitySchema,
} from './entities.schema';

/**
 * The OpenAPI operations of routes/entities.ts (entity collections, their entities, the entities of
 * an asset): one per endpoint, named by its descriptor's `doc`.
 */

const TAG = 'Entities';
const sortQuery = {
  page: paging.page,
  page_limit: paging.page_limit,
  sort_by: { schema: z.enum(ENTITY_SORT_FIELDS).default('created_at') },
  sort_option: { schema: z.enum(['asc', 'desc']).default('desc') },
};
const nameQuery = { name: { schema: z.string().optional(), description: 'Part of the name, in any case.' } };

/** An entity collection as presenters/entities.ts writes it. */
const collection = z.object({ _id: id, name: z.string(), description: z.string(), created_at: z.string(), updated_at: z.string() });

/** An entity: a person or thing shown by its reference images (ready image assets). */
const entity = z.object({
  _id: id,
  entity_collection_id: id,
  name: z.string(),
  description: z.string(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  asset_ids: z.array(id).describe('Its reference images, in the order they were added.'),
  status: z.enum(ENTITY_STATUSES),
  created_at: z.string(),
  updated_at: z.string(),
});

const bulkCreated = z.object({
  success_count: z.int(),
  failed_count: z.int(),
  entities: z.array(z.object({ _id: id, name: z.string(), status: z.enum(ENTITY_STATUSES) })),
  errors: z.array(z.object({ entity_index: z.int(), entity_name: z.string(), error_reason: z.string() })),
});

const REFERENCE_IMAGES =
  'Each asset is a ready image asset of the organization (1 to 50); an asset still processing (just created by URL) is ' +
  'waited for up to 30 s, then refused with its status.';

/** POST /entity-collections */
export const createCollection: OperationDoc = () => ({
  summary: 'Create an entity collection',
  tag: TAG,
  body: { json: createCollectionSchema, required: true },
  responses: created(collection),
});

/** GET /entity-collections */
export const listCollections: OperationDoc = (s) => ({
  summary: 'List entity collections',
  tag: TAG,
  query: { ...sortQuery, ...nameQuery },
  responses: ok(s.list(collection)),
});

/** GET /entity-collections/{entity_collection_id} */
export const retrieveCollection: OperationDoc = () => ({ summary: 'Retrieve an entity collection', tag: TAG, responses: ok(collection) });

/** PATCH /entity-collections/{entity_collection_id} */
export const updateCollection: OperationDoc = () => ({
  summary: 'Update an entity collection',
  description: 'Fields left out keep their value.',
  tag: TAG,
  body: { json: updateCollectionSchema },
  responses: ok(collection),
});

/** DELETE /entity-collections/{entity_collection_id} */
export const deleteCollection: OperationDoc = () => ({
  summary: 'Delete an entity collection',
  description: 'Its entities go with it; their assets stay.',
  tag: TAG,
  responses: noContent,
});

/** POST /entity-collections/{entity_collection_id}/entities */
export const createEntity: OperationDoc = () => ({
  summary: 'Create an entity',
  description: REFERENCE_IMAGES,
  tag: TAG,
  body: { json: newEntitySchema, required: true },
  responses: created(entity),
});

/** POST /entity-collections/{entity_collection_id}/entities/bulk */
export const createEntities: OperationDoc = () => ({
  summary: 'Create several entities',
  description: `Up to 100. Each valid entity is created; each other one is reported in errors by its position. ${REFERENCE_IMAGES}`,
  tag: TAG,
  body: { json: bulkCreateSchema, required: true },
  responses: created(bulkCreated),
});

/** GET /entity-collections/{entity_collection_id}/entities */
export const listEntities: OperationDoc = (s) => ({
  summary: 'List the entities of a collection',
  tag: TAG,
  query: { ...sortQuery, ...nameQuery, status: { schema: z.enum(ENTITY_STATUSES).optional() } },
  responses: ok(s.list(entity)),
});

/** GET /entity-collections/{entity_collection_id}/entities/{entity_id} */
export const retrieveEntity: OperationDoc = () => ({ summary: 'Retrieve an entity', tag: TAG, responses: ok(entity) });

/** PATCH /entity-collections/{entity_collection_id}/entities/{entity_id} */
export const updateEntity: OperationDoc = () => ({
  summary: 'Update an entity',
  description: 'name, description and metadata (which replaces the whole map); its assets change through /assets.',
  tag: TAG,
  body: { json: updateEntitySchema },
  responses: ok(entity),
});

/** DELETE /entity-collections/{entity_collection_id}/entities/{entity_id} */
export const deleteEntity: OperationDoc = () => ({
  summary: 'Delete an entity',
  description: 'Its assets stay.',
  tag: TAG,
  responses: noContent,
});

/** POST /entity-collections/{entity_collection_id}/entities/{entity_id}/assets */
export const addEntityAssets: OperationDoc = () => ({
  summary: 'Add reference images to an entity',
  description: `Assets it has already are skipped. ${REFERENCE_IMAGES}`,
  tag: TAG,
  body: { json: entityAssetsSchema, required: true },
  responses: ok(entity),
});

/** DELETE /entity-collections/{entity_collection_id}/entities/{entity_id}/assets */
export const removeEntityAssets: OperationDoc = () => ({
  summary: 'Remove reference images from an entity',
  description: 'Only the link goes; the assets stay. An entity keeps at least one asset: removing its last one is refused.',
  tag: TAG,
  body: { json: entityAssetsSchema, required: true },
  responses: ok(entity),
});

/** GET /assets/{asset_id}/entities */
export const listEntitiesByAsset: OperationDoc = (s) => ({
  summary: 'List the entities an asset shows',
  description: 'The entities, of any collection, whose asset_ids hold the asset; the newest first.',
  tag: TAG,
  query: { page: paging.page, page_limit: paging.page_limit },
  responses: ok(s.list(entity)),
});
