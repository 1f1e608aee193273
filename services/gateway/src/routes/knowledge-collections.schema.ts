import { parseInput } from '@vus/core';
import type { PageRequest__Input } from '@vus/grpc/types/common/v1/PageRequest';
import type { CreateKnowledgeStoreItemCollectionRequest__Input } from '@vus/grpc/types/task/v1/CreateKnowledgeStoreItemCollectionRequest';
import type { KnowledgeStoreItemCollectionItemsRequest__Input } from '@vus/grpc/types/task/v1/KnowledgeStoreItemCollectionItemsRequest';
import type { UpdateKnowledgeStoreItemCollectionRequest__Input } from '@vus/grpc/types/task/v1/UpdateKnowledgeStoreItemCollectionRequest';
import { z } from 'zod';
import { parsePageQuery } from '../http/paging';
import { scalar, type RawQuery } from '../http/query';

/**
 * Requests of routes/knowledge-collections.ts (twelvelabs-js 1.3.4 `knowledgeStoreItemCollections`).
 * Types and sizes are refused here with a 400 before any call; task-service checks them again and
 * owns the rules that need data (a unique name, ids that are items of the store, no id twice).
 */

export const COLLECTION_SORT_FIELDS = ['created_at', 'updated_at', 'name'] as const;
/** The reference's cap on ids per add or remove. */
export const MAX_ITEM_IDS = 500;

const name = z.string({ error: 'expected a string' }).trim().min(1, 'expected a name').max(255, 'at most 255 characters');
const description = z.string({ error: 'expected a string' }).max(2000, 'at most 2000 characters');
/** Both keys and values strings (the reference); at most 50 keys. */
const metadata = z
  .record(
    z.string().min(1, 'keys are not empty').max(255, 'keys are at most 255 characters'),
    z.string({ error: 'expected string values' }).max(2000, 'values are at most 2000 characters'),
    {
      error: 'expected a JSON object of strings',
    },
  )
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');
const itemIds = z
  .array(z.string({ error: 'expected item ids (strings)' }).min(1, 'expected an item id').max(64, 'an item id is at most 64 characters'), {
    error: 'expected an array of item ids',
  })
  .min(1, 'expected at least one item id')
  .max(MAX_ITEM_IDS, `at most ${MAX_ITEM_IDS} ids per request`);

/** POST /knowledge-stores/{id}/item-collections */
export const createCollectionSchema = z.object({ name, description: description.optional(), metadata: metadata.optional() });
/** PATCH /knowledge-stores/{id}/item-collections/{collection_id}: metadata, when given, replaces the whole map. */
export const updateCollectionSchema = z.object({
  name: name.optional(),
  description: description.optional(),
  metadata: metadata.optional(),
});
/** POST …/items/add and …/items/remove */
export const collectionItemsSchema = z.object({ item_ids: itemIds });

export function parseCreateCollection(knowledgeStoreId: string, body: unknown): CreateKnowledgeStoreItemCollectionRequest__Input {
  const input = parseInput(createCollectionSchema, body ?? {});
  return { knowledge_store_id: knowledgeStoreId, name: input.name, description: input.description ?? '', metadata: input.metadata ?? {} };
}

export function parseUpdateCollection(
  knowledgeStoreId: string,
  collectionId: string,
  body: unknown,
): UpdateKnowledgeStoreItemCollectionRequest__Input {
  const input = parseInput(updateCollectionSchema, body ?? {});
  return {
    knowledge_store_id: knowledgeStoreId,
    collection_id: collectionId,
    name: input.name,
    description: input.description,
    replace_metadata: input.metadata !== undefined,
    metadata: input.metadata ?? {},
  };
}

export function parseCollectionItems(
  knowledgeStoreId: string,
  collectionId: string,
  body: unknown,
): KnowledgeStoreItemCollectionItemsRequest__Input {
  const input = parseInput(collectionItemsSchema, body ?? {});
  return { knowledge_store_id: knowledgeStoreId, collection_id: collectionId, item_ids: input.item_ids };
}

const sortField = z.enum(COLLECTION_SORT_FIELDS, { error: `expected ${COLLECTION_SORT_FIELDS.join(', ')}` }).optional();

/** page, page_limit, sort_by (created_at | updated_at | name) and sort_option of a collection list. Pure. */
export function parseCollectionPage(query: RawQuery): PageRequest__Input {
  const sortBy = parseInput(z.object({ sort_by: sortField }), { sort_by: scalar(query, 'sort_by') }).sort_by;
  // parsePageQuery knows created_at and updated_at only: sort_by is checked above and taken out before.
  const page = parsePageQuery(new Map([...query].filter(([key]) => key !== 'sort_by')));
  return { page: page.page, page_limit: page.pageLimit, sort_by: sortBy ?? '', sort_option: page.sortOption ?? '' };
}

/** page and page_limit of a collection's items: they list in the order they were added, so no sort applies. Pure. */
export function parseMemberPage(query: RawQuery): PageRequest__Input {
  const page = parsePageQuery(new Map([...query].filter(([key]) => key === 'page' || key === 'page_limit')));
  return { page: page.page, page_limit: page.pageLimit, sort_by: '', sort_option: '' };
}
