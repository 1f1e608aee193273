import { z } from 'zod';
import { created, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import {
  collectionItemsSchema,
  COLLECTION_SORT_FIELDS,
  createCollectionSchema,
  MAX_ITEM_IDS,
  updateCollectionSchema,
} from './knowledge-collections.schema';

/**
 * The OpenAPI operations of routes/knowledge-collections.ts (item collections of a knowledge store): one per
 * endpoint, named by its descriptor's `doc` (openapi/operation.ts says what an operation holds).
 */

const TAG = 'Knowledge stores';

/** An item collection as presenters/knowledge-collections.ts writes it. */
const collection = z.object({
  _id: id,
  knowledge_store_id: id,
  name: z.string().describe('Unique within the knowledge store.'),
  description: z.string(),
  metadata: z.record(z.string(), z.string()),
  member_count: z.int().describe('The number of items in the collection.'),
  created_at: z.string(),
  updated_at: z.string().describe('Moves when name, description, metadata or the members change.'),
});

/** A member: the knowledge store's item as GET /knowledge-stores/{id}/items/{item_id} answers it. */
const member = z.looseObject({
  _id: id,
  asset_type: z.enum(['video', 'image']),
  asset_id: id,
  status: z.string(),
  system_metadata: z.looseObject({ asset_type: z.enum(['video', 'image']) }),
  metadata: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});

/** GET /knowledge-stores/{knowledge_store_id}/item-collections */
export const listCollections: OperationDoc = (s) => ({
  summary: 'List the item collections of a knowledge store',
  tag: TAG,
  query: {
    page: paging.page,
    page_limit: paging.page_limit,
    sort_by: { schema: z.enum(COLLECTION_SORT_FIELDS).default('created_at') },
    sort_option: { schema: z.enum(['asc', 'desc']).default('desc') },
  },
  responses: ok(s.list(collection)),
});

/** POST /knowledge-stores/{knowledge_store_id}/item-collections */
export const createCollection: OperationDoc = () => ({
  summary: 'Create an item collection',
  description:
    "A named subset of the store's items. name: 1 to 255 characters, unique within the store; description: at most 2000 characters; metadata: at most 50 string keys (1 to 255 characters) with string values (at most 2000).",
  tag: TAG,
  body: { json: createCollectionSchema, required: true },
  responses: created(collection),
});

/** GET /knowledge-stores/{knowledge_store_id}/item-collections/{collection_id} */
export const retrieveCollection: OperationDoc = () => ({ summary: 'Retrieve an item collection', tag: TAG, responses: ok(collection) });

/** PATCH /knowledge-stores/{knowledge_store_id}/item-collections/{collection_id} */
export const updateCollection: OperationDoc = () => ({
  summary: 'Update an item collection',
  description: 'name, description and metadata (which replaces the whole map; {} clears it).',
  tag: TAG,
  body: { json: updateCollectionSchema, required: true },
  responses: ok(collection),
});

/** DELETE /knowledge-stores/{knowledge_store_id}/item-collections/{collection_id} */
export const deleteCollection: OperationDoc = () => ({
  summary: 'Delete an item collection',
  description: 'Its items remain in the knowledge store.',
  tag: TAG,
  responses: noContent,
});

/** GET /knowledge-stores/{knowledge_store_id}/item-collections/{collection_id}/items */
export const listCollectionItems: OperationDoc = (s) => ({
  summary: 'List the items of an item collection',
  description: 'In the order they were added.',
  tag: TAG,
  query: { page: paging.page, page_limit: paging.page_limit },
  responses: ok(s.list(member)),
});

/** POST /knowledge-stores/{knowledge_store_id}/item-collections/{collection_id}/items/add */
export const addCollectionItems: OperationDoc = () => ({
  summary: 'Add items to an item collection',
  description: `Idempotent: items already in the collection are skipped. 1 to ${MAX_ITEM_IDS} ids, none twice; every id must be an item of this knowledge store, or the request is refused (400 parameter_invalid naming them) and nothing is added.`,
  tag: TAG,
  body: { json: collectionItemsSchema, required: true },
  responses: ok(collection, 'The collection with its new member_count.'),
});

/** POST /knowledge-stores/{knowledge_store_id}/item-collections/{collection_id}/items/remove */
export const removeCollectionItems: OperationDoc = () => ({
  summary: 'Remove items from an item collection',
  description: `Idempotent: ids that are not members are ignored. 1 to ${MAX_ITEM_IDS} ids, none twice. The items remain in the knowledge store.`,
  tag: TAG,
  body: { json: collectionItemsSchema, required: true },
  responses: noContent,
});
