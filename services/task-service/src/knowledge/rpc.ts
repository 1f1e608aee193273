import { errors, pageRequestSchema, parseInput, sortAndPaging } from '@vus/core';
import { requireOrg, toTimestamp, type AsyncHandlers } from '@vus/grpc';
import type { EnrichmentConfig as ProtoEnrichment } from '@vus/grpc/types/task/v1/EnrichmentConfig';
import type { KnowledgeStore__Input } from '@vus/grpc/types/task/v1/KnowledgeStore';
import type { KnowledgeStoreItem__Input } from '@vus/grpc/types/task/v1/KnowledgeStoreItem';
import type { ResolvedKnowledgeStoreItem__Input } from '@vus/grpc/types/task/v1/ResolvedKnowledgeStoreItem';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import { z } from 'zod';
import {
  ITEM_STATUSES,
  type ItemRecord,
  type KnowledgeStoreRecord,
  type KnowledgeStoreService,
  type ResolvedItem,
} from './knowledge-stores';

/** The knowledge-store RPCs of TaskService: thin, validated again here. */
export type KnowledgeStoreHandlers = Pick<
  AsyncHandlers<TaskServiceHandlers>,
  | 'CreateKnowledgeStore'
  | 'GetKnowledgeStore'
  | 'ListKnowledgeStores'
  | 'UpdateKnowledgeStore'
  | 'DeleteKnowledgeStore'
  | 'CreateKnowledgeStoreItem'
  | 'GetKnowledgeStoreItem'
  | 'ListKnowledgeStoreItems'
  | 'DeleteKnowledgeStoreItem'
  | 'ResolveKnowledgeStoreItems'
>;

const statusesSchema = z.array(z.enum(ITEM_STATUSES as [string, ...string[]]));
const resolveSchema = z.object({
  item_ids: z.array(z.string()),
  collection_ids: z.array(z.string()),
  asset_type: z.enum(['', 'video', 'image']),
});
const listPaging = (raw: unknown) => sortAndPaging(parseInput(pageRequestSchema, raw));

/** The enrichment config as it travels (json_schema as JSON text), read back into the domain's input. Pure. */
export function fromProtoEnrichment(raw: ProtoEnrichment | null | undefined) {
  if (!raw) return null;
  let jsonSchema: unknown;
  if (raw.type === 'json_schema') {
    try {
      jsonSchema = raw.json_schema ? JSON.parse(raw.json_schema) : undefined;
    } catch {
      throw errors.invalid('ingestion_config.enrichment_config.json_schema', 'It is not JSON.');
    }
  }
  return { type: raw.type, description: raw.description, jsonSchema };
}

export const toProtoStore = (s: KnowledgeStoreRecord): KnowledgeStore__Input => ({
  id: s.id,
  name: s.name,
  description: s.description,
  enrichment_config: s.enrichment
    ? s.enrichment.type === 'description'
      ? { type: 'description', description: s.enrichment.description }
      : { type: 'json_schema', json_schema: JSON.stringify(s.enrichment.jsonSchema) }
    : null,
  item_count: s.itemCount,
  metadata: s.metadata,
  created_at: toTimestamp(s.createdAt),
  updated_at: toTimestamp(s.updatedAt),
});

export const toProtoItem = (i: ItemRecord): KnowledgeStoreItem__Input => ({
  id: i.id,
  knowledge_store_id: i.storeId,
  asset_type: i.assetType,
  asset_id: i.assetId,
  status: i.status,
  metadata: i.metadata,
  created_at: toTimestamp(i.createdAt),
  updated_at: toTimestamp(i.updatedAt),
  filename: i.media.filename,
  duration: i.media.duration ?? 0,
  width: i.media.width ?? 0,
  height: i.media.height ?? 0,
  size: i.media.size ?? 0,
  format: i.media.mimeType ?? '',
});

export const toProtoResolved = (i: ResolvedItem): ResolvedKnowledgeStoreItem__Input => ({
  item_id: i.id,
  asset_type: i.assetType,
  status: i.status,
  video_id: i.videoId ?? '',
  title: i.title,
  duration: i.duration,
  metadata: i.metadata,
});

export function knowledgeStoreHandlers(stores: KnowledgeStoreService): KnowledgeStoreHandlers {
  return {
    async CreateKnowledgeStore(request, ctx) {
      const created = await stores.createStore(requireOrg(ctx), {
        name: request.name,
        description: request.description,
        metadata: request.metadata,
        enrichment: fromProtoEnrichment(request.enrichment_config),
      });
      return toProtoStore(created);
    },
    async GetKnowledgeStore(request, ctx) {
      return toProtoStore(await stores.getStore(requireOrg(ctx), request.knowledge_store_id));
    },
    async ListKnowledgeStores(request, ctx) {
      const { sort, paging } = listPaging(request.page);
      const result = await stores.listStores(requireOrg(ctx), sort, paging);
      return { data: result.data.map(toProtoStore), page_info: result.pageInfo };
    },
    async UpdateKnowledgeStore(request, ctx) {
      const updated = await stores.updateStore(requireOrg(ctx), request.knowledge_store_id, {
        name: request.name,
        description: request.description,
        metadata: request.replace_metadata ? request.metadata : undefined,
      });
      return toProtoStore(updated);
    },
    async DeleteKnowledgeStore(request, ctx) {
      await stores.deleteStore(requireOrg(ctx), request.knowledge_store_id);
      return {};
    },
    async CreateKnowledgeStoreItem(request, ctx) {
      const item = await stores.createItem(requireOrg(ctx), request.knowledge_store_id, {
        assetId: request.asset_id,
        assetType: request.asset_type,
        metadata: request.metadata,
      });
      return toProtoItem(item);
    },
    async GetKnowledgeStoreItem(request, ctx) {
      return toProtoItem(await stores.getItem(requireOrg(ctx), request.knowledge_store_id, request.item_id));
    },
    async ListKnowledgeStoreItems(request, ctx) {
      const { sort, paging } = listPaging(request.page);
      const statuses = parseInput(statusesSchema, request.statuses) as typeof ITEM_STATUSES;
      const result = await stores.listItems(requireOrg(ctx), request.knowledge_store_id, statuses, sort, paging);
      return { data: result.data.map(toProtoItem), page_info: result.pageInfo };
    },
    async DeleteKnowledgeStoreItem(request, ctx) {
      await stores.deleteItem(requireOrg(ctx), request.knowledge_store_id, request.item_id);
      return {};
    },
    async ResolveKnowledgeStoreItems(request, ctx) {
      const input = parseInput(resolveSchema, request);
      const resolved = await stores.resolveItems(requireOrg(ctx), request.knowledge_store_id, {
        itemIds: input.item_ids,
        collectionIds: input.collection_ids,
        assetType: input.asset_type,
      });
      return { index_id: resolved.indexId ?? '', items: resolved.items.map(toProtoResolved) };
    },
  };
}
