import { parseInput } from '@vus/core';
import type { CreateKnowledgeStoreItemRequest__Input } from '@vus/grpc/types/task/v1/CreateKnowledgeStoreItemRequest';
import type { CreateKnowledgeStoreRequest__Input } from '@vus/grpc/types/task/v1/CreateKnowledgeStoreRequest';
import type { ListKnowledgeStoreItemsRequest__Input } from '@vus/grpc/types/task/v1/ListKnowledgeStoreItemsRequest';
import type { PageRequest__Input } from '@vus/grpc/types/common/v1/PageRequest';
import type { UpdateKnowledgeStoreRequest__Input } from '@vus/grpc/types/task/v1/UpdateKnowledgeStoreRequest';
import { z } from 'zod';
import { parsePageQuery } from '../http/paging';
import { list, type RawQuery } from '../http/query';

/** Requests of routes/knowledge-stores.ts (twelvelabs-js 1.3.4 `knowledgeStores`, `knowledgeStoreItems`). */

export const ITEM_STATUSES = ['queued', 'pending', 'processing', 'ready', 'failed'] as const;
export const ITEM_ASSET_TYPES = ['video', 'image'] as const;

const name = z.string({ error: 'expected a string' }).trim().min(1, 'expected a name').max(255, 'at most 255 characters');
const description = z.string({ error: 'expected a string' }).max(2000, 'at most 2000 characters');
/** Both keys and values strings; a null value is stored as an empty string (the reference's update rule). */
const metadata = z.record(
  z.string(),
  z
    .string({ error: 'expected string values' })
    .nullable()
    .transform((v) => v ?? ''),
  { error: 'expected a JSON object of strings' },
);

/** ingestion_config.enrichment_config: a description in words, or an object JSON schema (checked by task-service). */
export const enrichmentConfigSchema = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('description'),
      description: z.string({ error: 'expected a string' }).trim().min(1, 'expected a description'),
    }),
    z.object({
      type: z.literal('json_schema'),
      json_schema: z.looseObject({
        type: z.literal('object', { error: 'the root type must be "object"' }),
        properties: z.record(z.string(), z.unknown()),
      }),
    }),
  ],
  { error: 'expected type description or json_schema' },
);

/** POST /knowledge-stores */
export const createKnowledgeStoreSchema = z.object({
  name,
  description: description.optional(),
  metadata: metadata.optional(),
  // twelvelabs-js sends an ingestionConfig left undefined as null (its examples' setupReadyKnowledgeStore does).
  ingestion_config: z.object({ enrichment_config: enrichmentConfigSchema }).nullish(),
});

/** PATCH /knowledge-stores/{id}: ingestion_config is fixed at creation and refused here. */
export const updateKnowledgeStoreSchema = z.object({
  name: name.optional(),
  description: description.optional(),
  metadata: metadata.optional(),
  ingestion_config: z.undefined({ error: 'it is fixed when the knowledge store is created' }).optional(),
});

/** POST /knowledge-stores/{id}/items */
export const createItemSchema = z.object({
  asset_id: z.string({ error: 'expected an asset id' }).trim().min(1, 'expected an asset id'),
  asset_type: z.enum(ITEM_ASSET_TYPES, { error: 'expected video or image' }).optional(),
  metadata: metadata.optional(),
});

export function parseCreateKnowledgeStore(body: unknown): CreateKnowledgeStoreRequest__Input {
  const input = parseInput(createKnowledgeStoreSchema, body ?? {});
  const enrichment = input.ingestion_config?.enrichment_config;
  return {
    name: input.name,
    description: input.description ?? '',
    metadata: input.metadata ?? {},
    enrichment_config: !enrichment
      ? null
      : enrichment.type === 'description'
        ? { type: 'description', description: enrichment.description }
        : { type: 'json_schema', json_schema: JSON.stringify(enrichment.json_schema) },
  };
}

export function parseUpdateKnowledgeStore(knowledgeStoreId: string, body: unknown): UpdateKnowledgeStoreRequest__Input {
  const input = parseInput(updateKnowledgeStoreSchema, body ?? {});
  return {
    knowledge_store_id: knowledgeStoreId,
    name: input.name,
    description: input.description,
    replace_metadata: input.metadata !== undefined,
    metadata: input.metadata ?? {},
  };
}

export function parseCreateItem(knowledgeStoreId: string, body: unknown): CreateKnowledgeStoreItemRequest__Input {
  const input = parseInput(createItemSchema, body ?? {});
  return {
    knowledge_store_id: knowledgeStoreId,
    asset_id: input.asset_id,
    asset_type: input.asset_type ?? '',
    metadata: input.metadata ?? {},
  };
}

/** page, page_limit, sort_by (created_at | updated_at), sort_option of a knowledge-store list. */
export function parseListPage(query: RawQuery): PageRequest__Input {
  const page = parsePageQuery(query);
  return { page: page.page, page_limit: page.pageLimit, sort_by: page.sortBy ?? '', sort_option: page.sortOption ?? '' };
}

/** GET /knowledge-stores/{id}/items: the page and `status`, repeated or comma-separated. */
export function parseListItems(knowledgeStoreId: string, query: RawQuery): ListKnowledgeStoreItemsRequest__Input {
  const statuses = parseInput(
    z.array(z.enum(ITEM_STATUSES, { error: `expected ${ITEM_STATUSES.join(', ')}` })),
    list(query, 'status') ?? [],
  );
  return { knowledge_store_id: knowledgeStoreId, page: parseListPage(query), statuses };
}
