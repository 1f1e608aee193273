import { z } from 'zod';
import { created, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import {
  createItemSchema,
  createKnowledgeStoreSchema,
  enrichmentConfigSchema,
  ITEM_ASSET_TYPES,
  ITEM_STATUSES,
  updateKnowledgeStoreSchema,
} from './knowledge-stores.schema';

/**
 * The OpenAPI operations of routes/knowledge-stores.ts (knowledge stores and their items): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

const TAG = 'Knowledge stores';
const sortQuery = {
  page: paging.page,
  page_limit: paging.page_limit,
  sort_by: { schema: z.enum(['created_at', 'updated_at']).optional() },
  sort_option: { schema: z.enum(['asc', 'desc']).optional() },
};

/** A knowledge store as presenters/knowledge-stores.ts writes it. */
const knowledgeStore = z.object({
  _id: id,
  name: z.string(),
  description: z.string(),
  ingestion_config: z.object({ enrichment_config: enrichmentConfigSchema }).optional().describe('As set at creation; immutable.'),
  item_count: z.int(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});

/** An item: an asset of the store, with the asset's media as system_metadata. */
const item = z.object({
  _id: id,
  asset_type: z.enum(ITEM_ASSET_TYPES),
  asset_id: id,
  status: z
    .enum(ITEM_STATUSES)
    .describe('queued until the ingestion of items is wired into the indexing pipeline: never ready before it is searchable.'),
  system_metadata: z.looseObject({ asset_type: z.enum(ITEM_ASSET_TYPES), filename: z.string() }),
  metadata: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});

/** POST /knowledge-stores */
export const createKnowledgeStore: OperationDoc = () => ({
  summary: 'Create a knowledge store',
  description: 'ingestion_config (a description or an object JSON schema with the supported keywords) is fixed at creation.',
  tag: TAG,
  body: { json: createKnowledgeStoreSchema, required: true },
  responses: created(knowledgeStore),
});

/** GET /knowledge-stores */
export const listKnowledgeStores: OperationDoc = (s) => ({
  summary: 'List knowledge stores',
  tag: TAG,
  query: sortQuery,
  responses: ok(s.list(knowledgeStore)),
});

/** GET /knowledge-stores/{knowledge_store_id} */
export const retrieveKnowledgeStore: OperationDoc = () => ({
  summary: 'Retrieve a knowledge store',
  tag: TAG,
  responses: ok(knowledgeStore),
});

/** PATCH /knowledge-stores/{knowledge_store_id} */
export const updateKnowledgeStore: OperationDoc = () => ({
  summary: 'Update a knowledge store',
  description: 'name, description and metadata (which replaces the whole map); ingestion_config cannot change.',
  tag: TAG,
  body: { json: updateKnowledgeStoreSchema, required: true },
  responses: ok(knowledgeStore),
});

/** DELETE /knowledge-stores/{knowledge_store_id} */
export const deleteKnowledgeStore: OperationDoc = () => ({
  summary: 'Delete a knowledge store',
  description: 'Its items go with it; their assets stay.',
  tag: TAG,
  responses: noContent,
});

/** POST /knowledge-stores/{knowledge_store_id}/items */
export const createItem: OperationDoc = () => ({
  summary: 'Add an asset to a knowledge store',
  description: 'A ready video or image asset of the organization, once per store.',
  tag: TAG,
  body: { json: createItemSchema, required: true },
  responses: created(item),
});

/** GET /knowledge-stores/{knowledge_store_id}/items */
export const listItems: OperationDoc = (s) => ({
  summary: 'List the items of a knowledge store',
  tag: TAG,
  query: { ...sortQuery, status: { schema: z.array(z.enum(ITEM_STATUSES)).optional(), description: 'Repeat for several statuses.' } },
  responses: ok(s.list(item)),
});

/** GET /knowledge-stores/{knowledge_store_id}/items/{item_id} */
export const retrieveItem: OperationDoc = () => ({ summary: 'Retrieve an item of a knowledge store', tag: TAG, responses: ok(item) });

/** DELETE /knowledge-stores/{knowledge_store_id}/items/{item_id} */
export const deleteItem: OperationDoc = () => ({
  summary: 'Remove an item from a knowledge store',
  description: 'Its asset stays.',
  tag: TAG,
  responses: noContent,
});
