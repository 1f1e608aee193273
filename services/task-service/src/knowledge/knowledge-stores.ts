import { errors, isId, listPage, newId, type Clock } from '@vus/core';

/**
 * Knowledge stores (issue 33; twelvelabs-js 1.3.4 `knowledgeStores`, `knowledgeStoreItems`): a named
 * set of an organization's assets, each added as an item, that search and responses answer over.
 * They live in task-service (ARCHITECTURE "Data ownership": task-service owns assets and runs the
 * indexing pipeline that processes an item), so an item's asset is checked, and the item removed
 * with its asset, in one database instead of across services.
 */
export type ItemStatus = 'queued' | 'pending' | 'processing' | 'ready' | 'failed';
export const ITEM_STATUSES: readonly ItemStatus[] = ['queued', 'pending', 'processing', 'ready', 'failed'];
export type ItemAssetType = 'video' | 'image';
export type StoreMetadata = Record<string, string>;
export interface ListSort {
  by: 'created_at' | 'updated_at';
  order: 'asc' | 'desc';
}
export type Paging = { page?: number | undefined; pageLimit?: number | undefined };

/** ingestion_config.enrichment_config; the schema is kept as given (checked to be an object schema). */
export type EnrichmentConfig = { type: 'description'; description: string } | { type: 'json_schema'; jsonSchema: Record<string, unknown> };

export interface KnowledgeStoreRecord {
  id: string;
  orgId: string;
  name: string;
  description: string;
  enrichment: EnrichmentConfig | null;
  metadata: StoreMetadata;
  itemCount: number;
  /** Its internal index in index-service (hidden from the indexes API); null until its first item. */
  indexId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The source asset's media as the item shows it (system_metadata). */
export interface ItemMedia {
  filename: string;
  duration: number | null;
  width: number | null;
  height: number | null;
  size: number | null;
  mimeType: string | null;
}

export interface ItemRecord {
  id: string;
  orgId: string;
  storeId: string;
  assetId: string;
  assetType: ItemAssetType;
  /** Its indexing task's, mapped (item-status.ts); the stored one while it has no task. */
  status: ItemStatus;
  /** The indexing task that processes it, and the video it makes in the store's index. */
  task: ItemTask | null;
  metadata: StoreMetadata;
  media: ItemMedia;
  createdAt: Date;
  updatedAt: Date;
}

export interface ItemTask {
  id: string;
  indexId: string;
  videoId: string;
}

/** Which items a search or a response reads (ResolveKnowledgeStoreItems): none named means every item. */
export interface ItemSelection {
  itemIds: readonly string[];
  collectionIds: readonly string[];
  assetType: ItemAssetType | '';
}

/** An item as search and responses read it. */
export interface ResolvedItem {
  id: string;
  assetType: ItemAssetType;
  status: ItemStatus;
  /** The video in the store's index; null until the item is ready. */
  videoId: string | null;
  title: string;
  /** Seconds; 0 for an image. */
  duration: number;
  metadata: StoreMetadata;
}

/** An asset as an item needs it. */
export interface SourceAsset {
  id: string;
  status: 'processing' | 'ready' | 'failed';
  fileType: 'video' | 'audio' | 'image' | null;
  filename: string;
  /** Its file in the blob store; null until it is processed. */
  blobKey: string | null;
}

/** What knowledge stores need from storage: store.ts implements it on SQL. Every read is scoped to the organization. */
export interface KnowledgeStoreStore {
  insertStore(store: Omit<KnowledgeStoreRecord, 'itemCount' | 'indexId'>): Promise<void>;
  getStore(orgId: string, id: string): Promise<KnowledgeStoreRecord | undefined>;
  listStores(orgId: string, sort: ListSort, limit: number, offset: number): Promise<{ rows: KnowledgeStoreRecord[]; total: number }>;
  updateStore(
    orgId: string,
    id: string,
    changes: { name?: string | undefined; description?: string | undefined; metadata?: StoreMetadata | undefined },
    now: Date,
  ): Promise<KnowledgeStoreRecord | undefined>;
  /** Deletes the store and its items; false if absent. */
  deleteStore(orgId: string, id: string): Promise<boolean>;
  /** The organization's asset, or undefined (another organization's is absent). */
  sourceAsset(orgId: string, id: string): Promise<SourceAsset | undefined>;
  /** Inserts the item; 'duplicate' when the store already has an item of this asset. */
  insertItem(item: Omit<ItemRecord, 'media' | 'task'>): Promise<ItemRecord | 'duplicate'>;
  /** Records the store's internal index unless it has one; the one it has then (undefined: no such store). */
  setIndex(orgId: string, storeId: string, indexId: string): Promise<string | undefined>;
  linkTask(itemId: string, taskId: string): Promise<void>;
  /** The tasks into an index (a store's: its items', and those whose items went while they ran). */
  indexTaskIds(orgId: string, indexId: string): Promise<string[]>;
  /** The tasks of the items made of the asset, in any store. */
  assetItemTaskIds(orgId: string, assetId: string): Promise<string[]>;
  /** Which of `ids` are not items of the store, and which of `collectionIds` not its collections. */
  absentIds(
    orgId: string,
    storeId: string,
    ids: readonly string[],
    collectionIds: readonly string[],
  ): Promise<{ items: string[]; collections: string[] }>;
  /** The selected items, oldest first, at most `limit`. */
  resolveItems(orgId: string, storeId: string, selection: ItemSelection, limit: number): Promise<ItemRecord[]>;
  getItem(orgId: string, storeId: string, id: string): Promise<ItemRecord | undefined>;
  listItems(
    orgId: string,
    storeId: string,
    statuses: readonly ItemStatus[],
    sort: ListSort,
    limit: number,
    offset: number,
  ): Promise<{ rows: ItemRecord[]; total: number }>;
  deleteItem(orgId: string, storeId: string, id: string): Promise<boolean>;
}

export const KNOWLEDGE_STORE_LIMITS = Object.freeze({ name: 255, description: 2000, metadataKeys: 50 });

/** JSON Schema keywords twelvelabs accepts in an enrichment schema; any other is refused (its 422). */
const SCHEMA_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'format',
]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why an enrichment JSON schema is refused, or undefined: an object at the root, only the supported
 * keywords, a description on every property (nested ones too), no type arrays. Pure.
 */
export function enrichmentSchemaProblem(schema: unknown, path = 'json_schema'): string | undefined {
  if (!isObject(schema)) return `${path} must be an object.`;
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_KEYWORDS.has(key)) return `${path}: the keyword ${key} is not supported.`;
    if (key === 'type' && typeof value !== 'string') return `${path}.type must be one type name (no type arrays, no nullable fields).`;
    if (key === 'additionalProperties' && typeof value !== 'boolean') return `${path}.additionalProperties must be true or false.`;
  }
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) return `${path}.properties must be an object.`;
    for (const [name, property] of Object.entries(schema.properties)) {
      const where = `${path}.properties.${name}`;
      if (!isObject(property) || typeof property.description !== 'string') return `${where} needs a description.`;
      const inner = enrichmentSchemaProblem(property, where);
      if (inner) return inner;
    }
  }
  if (schema.items !== undefined) return enrichmentSchemaProblem(schema.items, `${path}.items`);
  return undefined;
}

/** An enrichment config as stored, or a parameter_invalid error. Pure. */
export function enrichmentConfig(raw: { type: string; description: string; jsonSchema: unknown } | null): EnrichmentConfig | null {
  if (!raw) return null;
  const param = 'ingestion_config.enrichment_config';
  if (raw.type === 'description') {
    if (!raw.description.trim()) throw errors.notProvided(`${param}.description`);
    return { type: 'description', description: raw.description };
  }
  if (raw.type === 'json_schema') {
    if (!isObject(raw.jsonSchema)) throw errors.notProvided(`${param}.json_schema`);
    if (raw.jsonSchema.type !== 'object') throw errors.invalid(`${param}.json_schema`, 'Its root type must be "object".');
    if (!isObject(raw.jsonSchema.properties)) throw errors.invalid(`${param}.json_schema`, 'It needs properties.');
    const problem = enrichmentSchemaProblem(raw.jsonSchema);
    if (problem) throw errors.invalid(`${param}.json_schema`, problem);
    return { type: 'json_schema', jsonSchema: raw.jsonSchema };
  }
  throw errors.invalid(`${param}.type`, 'It must be description or json_schema.');
}

/** A name as stored: trimmed, required, bounded. Pure. */
export function storeName(raw: string): string {
  const name = raw.trim();
  if (!name) throw errors.notProvided('name');
  if (name.length > KNOWLEDGE_STORE_LIMITS.name)
    throw errors.invalid('name', `It must be at most ${KNOWLEDGE_STORE_LIMITS.name} characters.`);
  return name;
}

export function storeDescription(raw: string): string {
  if (raw.length > KNOWLEDGE_STORE_LIMITS.description) {
    throw errors.invalid('description', `It must be at most ${KNOWLEDGE_STORE_LIMITS.description} characters.`);
  }
  return raw;
}

export function storeMetadata(metadata: StoreMetadata): StoreMetadata {
  if (Object.keys(metadata).length > KNOWLEDGE_STORE_LIMITS.metadataKeys) {
    throw errors.invalid('metadata', `It holds at most ${KNOWLEDGE_STORE_LIMITS.metadataKeys} keys.`);
  }
  return metadata;
}

/**
 * The type of item an asset makes, or why it cannot be one: the organization's asset (absent,
 * malformed and another organization's are alike), ready, a video or an image, and of the
 * asset_type asked for when one is given. Pure.
 */
export function itemAssetType(assetId: string, asset: SourceAsset | undefined, asked: string): ItemAssetType {
  if (!asset) throw errors.notFound('Asset', assetId);
  if (asset.status !== 'ready') throw errors.invalid('asset_id', `The asset ${assetId} is ${asset.status}; an item's asset must be ready.`);
  if (asset.fileType !== 'video' && asset.fileType !== 'image') {
    throw errors.invalid('asset_id', `The asset ${assetId} is an audio file; an item is a video or an image.`);
  }
  if (asked && asked !== asset.fileType) throw errors.invalid('asset_type', `The asset ${assetId} is a ${asset.fileType}, not a ${asked}.`);
  return asset.fileType;
}

/**
 * The indexing pipeline as items use it (ingestion.ts: index-service and the task pipeline). A
 * store's items are videos of one internal index, so search and generation read them as they read
 * any index's videos.
 */
export interface ItemIngestion {
  /** Creates a store's internal index; its id. */
  createIndex(orgId: string, storeId: string): Promise<string>;
  /** Deletes an internal index with its videos (and so their segments); nothing when it is gone already. */
  deleteIndex(orgId: string, indexId: string): Promise<void>;
  /** Starts indexing the item's asset into the index: an indexing task (an image first becomes a still video); its id. */
  startTask(orgId: string, indexId: string, item: { id: string; assetType: ItemAssetType; asset: SourceAsset }): Promise<string>;
  /**
   * Deletes a finished task and the video it made; false (nothing removed) while it still runs.
   * `videoGone`: its video went with its index (deleteIndex), so it is not deleted on its own.
   */
  removeTask(orgId: string, taskId: string, options?: { videoGone: boolean }): Promise<boolean>;
}

/** An item as search and responses read it: its video only once ready (searchable). Pure. */
export function resolvedItem(item: ItemRecord): ResolvedItem {
  return {
    id: item.id,
    assetType: item.assetType,
    status: item.status,
    videoId: item.status === 'ready' && item.task ? item.task.videoId : null,
    title: item.media.filename,
    duration: item.assetType === 'image' ? 0 : (item.media.duration ?? 0),
    metadata: item.metadata,
  };
}

export interface KnowledgeStoreDeps {
  store: KnowledgeStoreStore;
  ingestion: ItemIngestion;
  clock: Clock;
}

/** The most ids one resolve names, and the most items it answers (a search or a response over more names collections). */
export const RESOLVE_LIMITS = Object.freeze({ ids: 1000, items: 10_000 });

export function createKnowledgeStoreService({ store, ingestion, clock }: KnowledgeStoreDeps) {
  const storeOf = async (orgId: string, id: string): Promise<KnowledgeStoreRecord> => {
    // Another organization's store is indistinguishable from a missing one.
    const found = isId(id) ? await store.getStore(orgId, id) : undefined;
    if (!found) throw errors.notFound('Knowledge store', id);
    return found;
  };

  /** The store's internal index, made at its first item; two first items at once keep one (the other is deleted). */
  const indexOf = async (found: KnowledgeStoreRecord): Promise<string> => {
    if (found.indexId) return found.indexId;
    const made = await ingestion.createIndex(found.orgId, found.id);
    const kept = await store.setIndex(found.orgId, found.id, made);
    if (kept !== made) await ingestion.deleteIndex(found.orgId, made);
    if (!kept) throw errors.notFound('Knowledge store', found.id);
    return kept;
  };

  return {
    async createStore(
      orgId: string,
      input: { name: string; description: string; metadata: StoreMetadata; enrichment: Parameters<typeof enrichmentConfig>[0] },
    ): Promise<KnowledgeStoreRecord> {
      const now = clock.now();
      const record = {
        id: newId(now),
        orgId,
        name: storeName(input.name),
        description: storeDescription(input.description),
        enrichment: enrichmentConfig(input.enrichment),
        metadata: storeMetadata(input.metadata),
        createdAt: now,
        updatedAt: now,
      };
      await store.insertStore(record);
      return { ...record, itemCount: 0, indexId: null };
    },

    getStore: storeOf,

    async listStores(orgId: string, sort: ListSort, paging: Paging) {
      return listPage(paging, (limit, offset) => store.listStores(orgId, sort, limit, offset));
    },

    /** ingestion_config is not among the changes: it is fixed at creation. */
    async updateStore(
      orgId: string,
      id: string,
      changes: { name?: string | undefined; description?: string | undefined; metadata?: StoreMetadata | undefined },
    ): Promise<KnowledgeStoreRecord> {
      await storeOf(orgId, id);
      const updated = await store.updateStore(
        orgId,
        id,
        {
          name: changes.name === undefined ? undefined : storeName(changes.name),
          description: changes.description === undefined ? undefined : storeDescription(changes.description),
          metadata: changes.metadata === undefined ? undefined : storeMetadata(changes.metadata),
        },
        clock.now(),
      );
      if (!updated) throw errors.notFound('Knowledge store', id);
      return updated;
    },

    /**
     * Deletes the store: its index first (with every item's video and segments), then the finished
     * tasks into it (their videos went with the index, so none is deleted on its own), then the
     * store with its items. Each step can be repeated, so a failure part-way leaves a store to
     * delete again, whose tasks are still hidden from task lists (they are while it exists). A task still running fails when it finds no index, and stays as a failed task.
     */
    async deleteStore(orgId: string, id: string): Promise<void> {
      const found = await storeOf(orgId, id);
      if (found.indexId) {
        await ingestion.deleteIndex(orgId, found.indexId);
        for (const taskId of await store.indexTaskIds(orgId, found.indexId)) await ingestion.removeTask(orgId, taskId, { videoGone: true });
      }
      if (!(await store.deleteStore(orgId, id))) throw errors.notFound('Knowledge store', id);
    },

    /**
     * Adds an asset as an item and starts processing it: an indexing task into the store's index,
     * whose status the item shows (queued, pending, processing, then ready once searchable). An
     * item whose task could not be started is not kept.
     */
    async createItem(
      orgId: string,
      storeId: string,
      input: { assetId: string; assetType: string; metadata: StoreMetadata },
    ): Promise<ItemRecord> {
      const found = await storeOf(orgId, storeId);
      if (!input.assetId) throw errors.notProvided('asset_id');
      const asset = isId(input.assetId) ? await store.sourceAsset(orgId, input.assetId) : undefined;
      // Refuses an absent asset: `asset` is defined past it.
      const assetType = itemAssetType(input.assetId, asset, input.assetType);
      const now = clock.now();
      const item = await store.insertItem({
        id: newId(now),
        orgId,
        storeId,
        assetId: input.assetId,
        assetType,
        status: 'queued',
        metadata: storeMetadata(input.metadata),
        createdAt: now,
        updatedAt: now,
      });
      if (item === 'duplicate') throw errors.invalid('asset_id', `The asset ${input.assetId} is already an item of this knowledge store.`);
      try {
        const indexId = await indexOf(found);
        await store.linkTask(item.id, await ingestion.startTask(orgId, indexId, { id: item.id, assetType, asset: asset as SourceAsset }));
      } catch (error) {
        await store.deleteItem(orgId, storeId, item.id);
        throw error;
      }
      const started = await store.getItem(orgId, storeId, item.id);
      if (!started) throw errors.notFound('Knowledge store item', item.id);
      return started;
    },

    async getItem(orgId: string, storeId: string, id: string): Promise<ItemRecord> {
      await storeOf(orgId, storeId);
      const item = isId(id) ? await store.getItem(orgId, storeId, id) : undefined;
      if (!item) throw errors.notFound('Knowledge store item', id);
      return item;
    },

    async listItems(orgId: string, storeId: string, statuses: readonly ItemStatus[], sort: ListSort, paging: Paging) {
      await storeOf(orgId, storeId);
      return listPage(paging, (limit, offset) => store.listItems(orgId, storeId, statuses, sort, limit, offset));
    },

    /**
     * Deletes the item with its video and task. An item still being processed goes at once; its task
     * runs to its end, and what it makes stays in the store's index, read by nothing (search and
     * responses read the items), until the store is deleted.
     */
    async deleteItem(orgId: string, storeId: string, id: string): Promise<void> {
      await storeOf(orgId, storeId);
      const item = isId(id) ? await store.getItem(orgId, storeId, id) : undefined;
      if (!item) throw errors.notFound('Knowledge store item', id);
      if (item.task) await ingestion.removeTask(orgId, item.task.id);
      if (!(await store.deleteItem(orgId, storeId, id))) throw errors.notFound('Knowledge store item', id);
    },

    /**
     * The items a search or a response reads (ResolveKnowledgeStoreItems), any status, with the
     * store's index. Ids that are not the store's items or collections are NOT_FOUND, named.
     */
    async resolveItems(
      orgId: string,
      storeId: string,
      selection: ItemSelection,
    ): Promise<{ indexId: string | null; items: ResolvedItem[] }> {
      const found = await storeOf(orgId, storeId);
      const itemIds = [...new Set(selection.itemIds)];
      const collectionIds = [...new Set(selection.collectionIds)];
      if (itemIds.length + collectionIds.length > RESOLVE_LIMITS.ids) {
        throw errors.invalid('item_ids', `At most ${RESOLVE_LIMITS.ids} item and collection ids can be named at once.`);
      }
      const malformedItem = itemIds.find((itemId) => !isId(itemId));
      if (malformedItem !== undefined) throw errors.notFound('Knowledge store item', malformedItem);
      const malformedCollection = collectionIds.find((collectionId) => !isId(collectionId));
      if (malformedCollection !== undefined) throw errors.notFound('Knowledge store item collection', malformedCollection);
      const absent = await store.absentIds(orgId, storeId, itemIds, collectionIds);
      if (absent.items[0] !== undefined) throw errors.notFound('Knowledge store item', absent.items[0]);
      if (absent.collections[0] !== undefined) throw errors.notFound('Knowledge store item collection', absent.collections[0]);
      const items = await store.resolveItems(orgId, storeId, { ...selection, itemIds, collectionIds }, RESOLVE_LIMITS.items + 1);
      if (items.length > RESOLVE_LIMITS.items) {
        throw errors.invalid(
          'knowledge_store_id',
          `The selection holds more than ${RESOLVE_LIMITS.items} items; name items or collections.`,
        );
      }
      return { indexId: found.indexId, items: items.map(resolvedItem) };
    },
  };
}

export type KnowledgeStoreService = ReturnType<typeof createKnowledgeStoreService>;

/**
 * What deleting an asset does to the items made of it (assets/indexed-assets.ts): the items go with
 * the asset (a cascade), and then their videos and finished tasks here. `deleting` reads the tasks
 * before the asset goes and returns the removal to run once it went.
 */
export function assetItemRemoval(store: Pick<KnowledgeStoreStore, 'assetItemTaskIds'>, ingestion: Pick<ItemIngestion, 'removeTask'>) {
  return {
    async deleting(orgId: string, assetId: string): Promise<() => Promise<void>> {
      const taskIds = await store.assetItemTaskIds(orgId, assetId);
      return async () => {
        for (const taskId of taskIds) await ingestion.removeTask(orgId, taskId);
      };
    },
  };
}

export type AssetItemRemoval = ReturnType<typeof assetItemRemoval>;
