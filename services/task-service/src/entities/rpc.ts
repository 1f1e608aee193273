import { ApiError, namedPageRequestSchema, parseInput, sortAndPaging } from '@vus/core';
import { plainMetadataValues, requireOrg, toMetadataValues, toTimestamp, type AsyncHandlers } from '@vus/grpc';
import type { Entity__Input } from '@vus/grpc/types/task/v1/Entity';
import type { EntityCollection__Input } from '@vus/grpc/types/task/v1/EntityCollection';
import type { NewEntity } from '@vus/grpc/types/task/v1/NewEntity';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import { z } from 'zod';
import type { ReferenceFaces } from './reference-faces';
import { ENTITY_STATUSES, type CollectionRecord, type EntityRecord, type EntityService, type NewEntityInput } from './entities';

/** The entity-collection and entity RPCs of TaskService: thin, validated again here. */
export type EntityHandlers = Pick<
  AsyncHandlers<TaskServiceHandlers>,
  | 'CreateEntityCollection'
  | 'GetEntityCollection'
  | 'ListEntityCollections'
  | 'UpdateEntityCollection'
  | 'DeleteEntityCollection'
  | 'CreateEntity'
  | 'CreateEntities'
  | 'GetEntity'
  | 'ListEntities'
  | 'UpdateEntity'
  | 'DeleteEntity'
  | 'AddEntityAssets'
  | 'RemoveEntityAssets'
  | 'ListEntitiesByAsset'
  | 'GetEntityReferenceFaces'
>;

const statusSchema = z.enum(['', ...ENTITY_STATUSES]);

/** Sort and paging of a list request: unset sorts the newest created first. Pure. */
export const entityListPaging = (raw: unknown) => sortAndPaging(parseInput(namedPageRequestSchema, raw));

export const toProtoCollection = (c: CollectionRecord): EntityCollection__Input => ({
  id: c.id,
  name: c.name,
  description: c.description,
  created_at: toTimestamp(c.createdAt),
  updated_at: toTimestamp(c.updatedAt),
});

export const toProtoEntity = (e: EntityRecord): Entity__Input => ({
  id: e.id,
  entity_collection_id: e.collectionId,
  name: e.name,
  description: e.description,
  metadata: toMetadataValues(e.metadata),
  asset_ids: e.assetIds,
  status: e.status,
  created_at: toTimestamp(e.createdAt),
  updated_at: toTimestamp(e.updatedAt),
});

const fromNewEntity = (raw: NewEntity | null, param: string): NewEntityInput => ({
  name: raw?.name ?? '',
  description: raw?.description ?? '',
  metadata: plainMetadataValues(`${param}metadata`, raw?.metadata ?? {}, { allowNull: false }),
  assetIds: raw?.asset_ids ?? [],
});

/**
 * `referenceFaces` embeds entities' reference images for entity search: warmed (not awaited) when an
 * entity is created or given assets; GetEntityReferenceFaces completes and answers them.
 */
export function entityHandlers(entities: EntityService, referenceFaces?: ReferenceFaces): EntityHandlers {
  return {
    async CreateEntityCollection(request, ctx) {
      return toProtoCollection(await entities.createCollection(requireOrg(ctx), request));
    },
    async GetEntityCollection(request, ctx) {
      return toProtoCollection(await entities.getCollection(requireOrg(ctx), request.entity_collection_id));
    },
    async ListEntityCollections(request, ctx) {
      const { sort, paging } = entityListPaging(request.page);
      const result = await entities.listCollections(requireOrg(ctx), { name: request.name || undefined }, sort, paging);
      return { data: result.data.map(toProtoCollection), page_info: result.pageInfo };
    },
    async UpdateEntityCollection(request, ctx) {
      const updated = await entities.updateCollection(requireOrg(ctx), request.entity_collection_id, {
        name: request.name,
        description: request.description,
      });
      return toProtoCollection(updated);
    },
    async DeleteEntityCollection(request, ctx) {
      await entities.deleteCollection(requireOrg(ctx), request.entity_collection_id);
      return {};
    },

    async CreateEntity(request, ctx) {
      const entity = await entities.createEntity(requireOrg(ctx), request.entity_collection_id, fromNewEntity(request.entity, ''));
      referenceFaces?.warm(entity.orgId, entity.id);
      return toProtoEntity(entity);
    },
    async CreateEntities(request, ctx) {
      const inputs = request.entities.map((raw, i) => fromNewEntity(raw, `entities[${i}].`));
      const result = await entities.createEntities(requireOrg(ctx), request.entity_collection_id, inputs);
      for (const entity of result.created) referenceFaces?.warm(entity.orgId, entity.id);
      return {
        entities: result.created.map(toProtoEntity),
        errors: result.failed.map((f) => ({ entity_index: f.index, entity_name: f.name, error_reason: f.reason })),
      };
    },
    async GetEntity(request, ctx) {
      return toProtoEntity(await entities.getEntity(requireOrg(ctx), request.entity_collection_id, request.entity_id));
    },
    async ListEntities(request, ctx) {
      const { sort, paging } = entityListPaging(request.page);
      const status = parseInput(statusSchema, request.status) || undefined;
      const result = await entities.listEntities(
        requireOrg(ctx),
        request.entity_collection_id,
        { name: request.name || undefined, status },
        sort,
        paging,
      );
      return { data: result.data.map(toProtoEntity), page_info: result.pageInfo };
    },
    async UpdateEntity(request, ctx) {
      const updated = await entities.updateEntity(requireOrg(ctx), request.entity_collection_id, request.entity_id, {
        name: request.name,
        description: request.description,
        metadata: request.replace_metadata ? plainMetadataValues('metadata', request.metadata, { allowNull: false }) : undefined,
      });
      return toProtoEntity(updated);
    },
    async DeleteEntity(request, ctx) {
      await entities.deleteEntity(requireOrg(ctx), request.entity_collection_id, request.entity_id);
      return {};
    },
    async AddEntityAssets(request, ctx) {
      const entity = await entities.addAssets(requireOrg(ctx), request.entity_collection_id, request.entity_id, request.asset_ids);
      referenceFaces?.warm(entity.orgId, entity.id);
      return toProtoEntity(entity);
    },
    async RemoveEntityAssets(request, ctx) {
      const entity = await entities.removeAssets(requireOrg(ctx), request.entity_collection_id, request.entity_id, request.asset_ids);
      return toProtoEntity(entity);
    },
    async ListEntitiesByAsset(request, ctx) {
      const { paging } = entityListPaging(request.page);
      const result = await entities.listEntitiesByAsset(requireOrg(ctx), request.asset_id, paging);
      return { data: result.data.map(toProtoEntity), page_info: result.pageInfo };
    },
    async GetEntityReferenceFaces(request, ctx) {
      if (!referenceFaces) throw new ApiError('not_implemented', 'This task-service embeds no reference faces.');
      const found = await referenceFaces.facesOf(requireOrg(ctx), request.entity_id, { withImages: true });
      return {
        entity_id: found.entityId,
        faces: found.faces.map((f) => ({ asset_id: f.assetId, embedding: Array.from(f.embedding) })),
        assets_without_face: found.assetsWithoutFace,
        assets_not_ready: found.assetsNotReady,
        images_without_face: found.imagesWithoutFace.map((i) => ({ asset_id: i.assetId, jpeg: i.jpeg })),
        face_model: found.model,
      };
    },
  };
}
