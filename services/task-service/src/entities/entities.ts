import { ApiError, errors, isId, listPage, newId, type Clock, type PageInfo } from '@vus/core';

/**
 * Entity collections and entities (issue 32; twelvelabs-js 1.3.4 `entityCollections`): a person or
 * thing an organization names and shows with reference images (its image assets); a search finds
 * it in videos by query_text's `<@entity_id>`. They live in task-service beside the assets they
 * reference (ARCHITECTURE "Data ownership": task-service owns assets), so whether an asset is a
 * ready image, the entities of an asset, and unlinking a deleted asset are read and written in one
 * database instead of across services.
 */
export type EntityStatus = 'processing' | 'ready';
export const ENTITY_STATUSES: readonly EntityStatus[] = ['processing', 'ready'];
export type EntityMetadata = Record<string, string | number | boolean>;
export type EntitySortField = 'created_at' | 'updated_at' | 'name';
export interface EntitySort {
  by: EntitySortField;
  order: 'asc' | 'desc';
}
export type Paging = { page?: number | undefined; pageLimit?: number | undefined };

export interface CollectionRecord {
  id: string;
  orgId: string;
  name: string;
  description: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface EntityRecord {
  id: string;
  orgId: string;
  collectionId: string;
  name: string;
  description: string;
  metadata: EntityMetadata;
  /** In the order they were added. */
  assetIds: string[];
  status: EntityStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** An asset as a reference image needs it: its state and what it holds (null until processed). */
export interface ReferenceAsset {
  id: string;
  status: 'processing' | 'ready' | 'failed';
  assetType: 'video' | 'audio' | 'image' | null;
}

export interface NewEntityInput {
  name: string;
  description: string;
  metadata: EntityMetadata;
  assetIds: string[];
}

/** What entities need from storage: store.ts implements it on SQL. Every read is scoped to the organization. */
export interface EntityStore {
  insertCollection(collection: CollectionRecord): Promise<void>;
  getCollection(orgId: string, id: string): Promise<CollectionRecord | undefined>;
  listCollections(
    orgId: string,
    filter: { name?: string | undefined },
    sort: EntitySort,
    limit: number,
    offset: number,
  ): Promise<{ rows: CollectionRecord[]; total: number }>;
  updateCollection(
    orgId: string,
    id: string,
    changes: { name?: string | undefined; description?: string | undefined },
    now: Date,
  ): Promise<CollectionRecord | undefined>;
  /** Deletes the collection and its entities; false if absent. */
  deleteCollection(orgId: string, id: string): Promise<boolean>;
  /** The organization's assets among `ids` (another organization's are absent). */
  referenceAssets(orgId: string, ids: readonly string[]): Promise<ReferenceAsset[]>;
  insertEntity(entity: EntityRecord): Promise<void>;
  getEntity(orgId: string, collectionId: string, id: string): Promise<EntityRecord | undefined>;
  listEntities(
    orgId: string,
    collectionId: string,
    filter: { name?: string | undefined; status?: EntityStatus | undefined },
    sort: EntitySort,
    limit: number,
    offset: number,
  ): Promise<{ rows: EntityRecord[]; total: number }>;
  /** Entities of any collection referencing the asset, newest first. */
  listEntitiesByAsset(orgId: string, assetId: string, limit: number, offset: number): Promise<{ rows: EntityRecord[]; total: number }>;
  updateEntity(
    orgId: string,
    collectionId: string,
    id: string,
    changes: { name?: string | undefined; description?: string | undefined; metadata?: EntityMetadata | undefined },
    now: Date,
  ): Promise<EntityRecord | undefined>;
  deleteEntity(orgId: string, collectionId: string, id: string): Promise<boolean>;
  /** Appends the assets the entity does not have yet; undefined if the entity is absent. */
  addAssets(orgId: string, collectionId: string, id: string, assetIds: readonly string[], now: Date): Promise<EntityRecord | undefined>;
  /** Removes the assets, unless none would remain ('would_be_empty', nothing changed). */
  removeAssets(
    orgId: string,
    collectionId: string,
    id: string,
    assetIds: readonly string[],
    now: Date,
  ): Promise<EntityRecord | 'would_be_empty' | undefined>;
}

/** Bounds of the fields a client writes. */
export const ENTITY_LIMITS = Object.freeze({
  name: 255,
  description: 2000,
  metadataKeys: 50,
  /** Reference images one entity may have, and entities one bulk create may make. */
  assets: 50,
  bulk: 100,
});

/**
 * Why these assets cannot be an entity's reference images, or undefined: at least one, each one of
 * the organization's assets (absent, malformed and another organization's are alike), ready, and an
 * image (faces are matched on stills). Pure.
 */
export function referenceAssetProblem(ids: readonly string[], found: readonly ReferenceAsset[]): ApiError | undefined {
  if (ids.length === 0) return errors.invalid('asset_ids', 'Give at least one asset id: an image of the entity.');
  if (new Set(ids).size > ENTITY_LIMITS.assets) return errors.invalid('asset_ids', `An entity has at most ${ENTITY_LIMITS.assets} assets.`);
  const byId = new Map(found.map((a) => [a.id, a]));
  for (const id of ids) {
    const asset = byId.get(id);
    if (!asset) return errors.notFound('Asset', id);
    if (asset.status !== 'ready') {
      return errors.invalid('asset_ids', `The asset ${id} is ${asset.status}; an entity's assets must be ready images.`);
    }
    if (asset.assetType !== 'image') {
      return errors.invalid(
        'asset_ids',
        `The asset ${id} is ${asset.assetType === 'audio' ? 'an audio file' : 'a video'}; an entity's assets must be images.`,
      );
    }
  }
  return undefined;
}

/** A name as stored: trimmed, required, bounded. Pure. */
export function entityName(param: string, raw: string): string {
  const name = raw.trim();
  if (!name) throw errors.notProvided(param);
  if (name.length > ENTITY_LIMITS.name) throw errors.invalid(param, `It must be at most ${ENTITY_LIMITS.name} characters.`);
  return name;
}

export function entityDescription(raw: string): string {
  if (raw.length > ENTITY_LIMITS.description) {
    throw errors.invalid('description', `It must be at most ${ENTITY_LIMITS.description} characters.`);
  }
  return raw;
}

export function entityMetadata(metadata: EntityMetadata): EntityMetadata {
  if (Object.keys(metadata).length > ENTITY_LIMITS.metadataKeys) {
    throw errors.invalid('metadata', `It holds at most ${ENTITY_LIMITS.metadataKeys} keys.`);
  }
  return metadata;
}

/** Ids in first-seen order without repeats. Pure. */
export const distinctIds = (ids: readonly string[]): string[] => [...new Set(ids)];

export interface EntityDeps {
  store: EntityStore;
  clock: Clock;
}

export function createEntityService({ store, clock }: EntityDeps) {
  const collectionOf = async (orgId: string, id: string): Promise<CollectionRecord> => {
    // Another organization's collection is indistinguishable from a missing one.
    const collection = isId(id) ? await store.getCollection(orgId, id) : undefined;
    if (!collection) throw errors.notFound('Entity collection', id);
    return collection;
  };
  const entityOf = async (orgId: string, collectionId: string, id: string): Promise<EntityRecord> => {
    await collectionOf(orgId, collectionId);
    const entity = isId(id) ? await store.getEntity(orgId, collectionId, id) : undefined;
    if (!entity) throw errors.notFound('Entity', id);
    return entity;
  };
  const checkedAssets = async (orgId: string, raw: readonly string[]): Promise<ApiError | string[]> => {
    const ids = distinctIds(raw);
    const found = await store.referenceAssets(orgId, ids.filter(isId));
    return referenceAssetProblem(ids, found) ?? ids;
  };
  /** A valid new entity, or why not (as an error, so bulk creation can report it and go on). */
  const newEntity = async (orgId: string, collectionId: string, input: NewEntityInput): Promise<EntityRecord | ApiError> => {
    try {
      const name = entityName('name', input.name);
      const description = entityDescription(input.description);
      const metadata = entityMetadata(input.metadata);
      const assetIds = await checkedAssets(orgId, input.assetIds);
      if (assetIds instanceof ApiError) return assetIds;
      const now = clock.now();
      // Ready at once: its reference images are embedded when a search reads them (no job to wait for yet).
      return {
        id: newId(now),
        orgId,
        collectionId,
        name,
        description,
        metadata,
        assetIds,
        status: 'ready',
        createdAt: now,
        updatedAt: now,
      };
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
  };

  return {
    async createCollection(orgId: string, input: { name: string; description: string }): Promise<CollectionRecord> {
      const now = clock.now();
      const collection = {
        id: newId(now),
        orgId,
        name: entityName('name', input.name),
        description: entityDescription(input.description),
        createdAt: now,
        updatedAt: now,
      };
      await store.insertCollection(collection);
      return collection;
    },

    getCollection: collectionOf,

    async listCollections(orgId: string, filter: { name?: string | undefined }, sort: EntitySort, paging: Paging) {
      return listPage(paging, (limit, offset) => store.listCollections(orgId, filter, sort, limit, offset));
    },

    async updateCollection(orgId: string, id: string, changes: { name?: string | undefined; description?: string | undefined }) {
      await collectionOf(orgId, id);
      const updated = await store.updateCollection(
        orgId,
        id,
        {
          name: changes.name === undefined ? undefined : entityName('name', changes.name),
          description: changes.description === undefined ? undefined : entityDescription(changes.description),
        },
        clock.now(),
      );
      if (!updated) throw errors.notFound('Entity collection', id);
      return updated;
    },

    async deleteCollection(orgId: string, id: string): Promise<void> {
      if (!isId(id) || !(await store.deleteCollection(orgId, id))) throw errors.notFound('Entity collection', id);
    },

    async createEntity(orgId: string, collectionId: string, input: NewEntityInput): Promise<EntityRecord> {
      await collectionOf(orgId, collectionId);
      const entity = await newEntity(orgId, collectionId, input);
      if (entity instanceof ApiError) throw entity;
      await store.insertEntity(entity);
      return entity;
    },

    /** Each valid entity is created; each invalid one is reported by its position and reason. */
    async createEntities(
      orgId: string,
      collectionId: string,
      inputs: readonly NewEntityInput[],
    ): Promise<{ created: EntityRecord[]; failed: { index: number; name: string; reason: string }[] }> {
      await collectionOf(orgId, collectionId);
      if (inputs.length === 0) throw errors.invalid('entities', 'Give at least one entity.');
      if (inputs.length > ENTITY_LIMITS.bulk) throw errors.invalid('entities', `At most ${ENTITY_LIMITS.bulk} entities at once.`);
      const created: EntityRecord[] = [];
      const failed: { index: number; name: string; reason: string }[] = [];
      for (const [index, input] of inputs.entries()) {
        const entity = await newEntity(orgId, collectionId, input);
        if (entity instanceof ApiError) {
          failed.push({ index, name: input.name, reason: entity.message });
          continue;
        }
        await store.insertEntity(entity);
        created.push(entity);
      }
      return { created, failed };
    },

    getEntity: entityOf,

    async listEntities(
      orgId: string,
      collectionId: string,
      filter: { name?: string | undefined; status?: EntityStatus | undefined },
      sort: EntitySort,
      paging: Paging,
    ): Promise<{ data: EntityRecord[]; pageInfo: PageInfo }> {
      await collectionOf(orgId, collectionId);
      return listPage(paging, (limit, offset) => store.listEntities(orgId, collectionId, filter, sort, limit, offset));
    },

    /** An asset of another organization (or none) is resource_not_exist, as the asset API answers. */
    async listEntitiesByAsset(orgId: string, assetId: string, paging: Paging): Promise<{ data: EntityRecord[]; pageInfo: PageInfo }> {
      const found = isId(assetId) ? await store.referenceAssets(orgId, [assetId]) : [];
      if (found.length === 0) throw errors.notFound('Asset', assetId);
      return listPage(paging, (limit, offset) => store.listEntitiesByAsset(orgId, assetId, limit, offset));
    },

    async updateEntity(
      orgId: string,
      collectionId: string,
      id: string,
      changes: { name?: string | undefined; description?: string | undefined; metadata?: EntityMetadata | undefined },
    ): Promise<EntityRecord> {
      await entityOf(orgId, collectionId, id);
      const updated = await store.updateEntity(
        orgId,
        collectionId,
        id,
        {
          name: changes.name === undefined ? undefined : entityName('name', changes.name),
          description: changes.description === undefined ? undefined : entityDescription(changes.description),
          metadata: changes.metadata === undefined ? undefined : entityMetadata(changes.metadata),
        },
        clock.now(),
      );
      if (!updated) throw errors.notFound('Entity', id);
      return updated;
    },

    async deleteEntity(orgId: string, collectionId: string, id: string): Promise<void> {
      await collectionOf(orgId, collectionId);
      if (!isId(id) || !(await store.deleteEntity(orgId, collectionId, id))) throw errors.notFound('Entity', id);
    },

    async addAssets(orgId: string, collectionId: string, id: string, assetIds: readonly string[]): Promise<EntityRecord> {
      const entity = await entityOf(orgId, collectionId, id);
      const checked = await checkedAssets(orgId, assetIds);
      if (checked instanceof ApiError) throw checked;
      const fresh = checked.filter((a) => !entity.assetIds.includes(a));
      if (new Set([...entity.assetIds, ...fresh]).size > ENTITY_LIMITS.assets) {
        throw errors.invalid('asset_ids', `An entity has at most ${ENTITY_LIMITS.assets} assets.`);
      }
      const updated = await store.addAssets(orgId, collectionId, id, fresh, clock.now());
      if (!updated) throw errors.notFound('Entity', id);
      return updated;
    },

    /** Refused when the entity would keep no asset: delete the entity instead. Unknown ids are ignored. */
    async removeAssets(orgId: string, collectionId: string, id: string, assetIds: readonly string[]): Promise<EntityRecord> {
      await entityOf(orgId, collectionId, id);
      if (assetIds.length === 0) throw errors.invalid('asset_ids', 'Give at least one asset id to remove.');
      const updated = await store.removeAssets(orgId, collectionId, id, distinctIds(assetIds), clock.now());
      if (updated === 'would_be_empty') {
        throw errors.invalid('asset_ids', 'An entity keeps at least one asset; add another before removing these, or delete the entity.');
      }
      if (!updated) throw errors.notFound('Entity', id);
      return updated;
    },
  };
}

export type EntityService = ReturnType<typeof createEntityService>;
