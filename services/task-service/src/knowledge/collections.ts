import { errors, isId, listPage, newId, type Clock } from '@vus/core';
import type { ItemRecord, Paging, StoreMetadata } from './knowledge-stores';

/**
 * Item collections of a knowledge store (issue 33; twelvelabs-js 1.3.4 `knowledgeStoreItemCollections`):
 * named subsets of a store's items. A collection never owns its items: deleting it, or removing
 * items from it, leaves them in the store. They live beside the stores and items (task-service) so a
 * member is checked to be an item of the store, and leaves with it, in one database.
 */
export interface CollectionRecord {
  id: string;
  orgId: string;
  storeId: string;
  name: string;
  description: string;
  metadata: StoreMetadata;
  memberCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export type CollectionSortField = 'created_at' | 'updated_at' | 'name';
export interface CollectionSort {
  by: CollectionSortField;
  order: 'asc' | 'desc';
}

export interface CollectionChanges {
  name?: string | undefined;
  description?: string | undefined;
  metadata?: StoreMetadata | undefined;
}

/** What collections need from storage: collection-store.ts implements it on SQL. Every read is scoped to the organization. */
export interface KnowledgeCollectionStore {
  /** Whether the organization has this knowledge store (another organization's is absent). */
  storeExists(orgId: string, storeId: string): Promise<boolean>;
  /** 'name_taken' when the store already has a collection of this name. */
  insertCollection(record: Omit<CollectionRecord, 'memberCount'>): Promise<CollectionRecord | 'name_taken'>;
  getCollection(orgId: string, storeId: string, id: string): Promise<CollectionRecord | undefined>;
  listCollections(
    orgId: string,
    storeId: string,
    sort: CollectionSort,
    limit: number,
    offset: number,
  ): Promise<{ rows: CollectionRecord[]; total: number }>;
  updateCollection(
    orgId: string,
    storeId: string,
    id: string,
    changes: CollectionChanges,
    now: Date,
  ): Promise<CollectionRecord | 'name_taken' | undefined>;
  /** Deletes the collection and its memberships (never the items); false if absent. */
  deleteCollection(orgId: string, storeId: string, id: string): Promise<boolean>;
  /** A page of the members' item ids, in the order they were added. */
  memberIds(orgId: string, storeId: string, id: string, limit: number, offset: number): Promise<{ rows: string[]; total: number }>;
  /**
   * In one transaction: the ids that are not items of the store (then nothing is added), or the
   * members added in the order given, ids already members skipped. 'absent' if the collection is gone.
   */
  addMembers(orgId: string, storeId: string, id: string, itemIds: readonly string[], now: Date): Promise<{ notItems: string[] } | 'absent'>;
  /** Removes the members among `itemIds` (others are ignored); false if the collection is gone. */
  removeMembers(orgId: string, storeId: string, id: string, itemIds: readonly string[], now: Date): Promise<boolean>;
}

/** An item of the store with its media, as the knowledge-store store reads it. */
export type ItemReader = (orgId: string, storeId: string, id: string) => Promise<ItemRecord | undefined>;

/**
 * The caps on what a request may hold. name, description and metadata keys match knowledge stores';
 * 500 item ids per add/remove is the reference's.
 */
export const COLLECTION_LIMITS = Object.freeze({
  name: 255,
  description: 2000,
  metadataKeys: 50,
  metadataKey: 255,
  metadataValue: 2000,
  itemIdsPerRequest: 500,
  itemIdLength: 64,
  /** How many ids an answer names before it counts the rest. */
  namedInError: 10,
});

/** A name as stored: trimmed, required, bounded. Pure. */
export function collectionName(raw: string): string {
  const name = raw.trim();
  if (!name) throw errors.notProvided('name');
  if (name.length > COLLECTION_LIMITS.name) throw errors.invalid('name', `It must be at most ${COLLECTION_LIMITS.name} characters.`);
  return name;
}

export function collectionDescription(raw: string): string {
  if (raw.length > COLLECTION_LIMITS.description) {
    throw errors.invalid('description', `It must be at most ${COLLECTION_LIMITS.description} characters.`);
  }
  return raw;
}

/** Metadata as stored: at most 50 keys, keys and values bounded, no empty key. Pure. */
export function collectionMetadata(metadata: StoreMetadata): StoreMetadata {
  const entries = Object.entries(metadata);
  if (entries.length > COLLECTION_LIMITS.metadataKeys) {
    throw errors.invalid('metadata', `It holds at most ${COLLECTION_LIMITS.metadataKeys} keys.`);
  }
  for (const [key, value] of entries) {
    if (!key || key.length > COLLECTION_LIMITS.metadataKey) {
      throw errors.invalid('metadata', `Its keys must be 1 to ${COLLECTION_LIMITS.metadataKey} characters.`);
    }
    if (value.length > COLLECTION_LIMITS.metadataValue) {
      throw errors.invalid('metadata', `The value of ${key} must be at most ${COLLECTION_LIMITS.metadataValue} characters.`);
    }
  }
  return metadata;
}

/** `ids`, or the first `COLLECTION_LIMITS.namedInError` of them and how many more. Pure. */
export function namedIds(ids: readonly string[]): string {
  const shown = ids.slice(0, COLLECTION_LIMITS.namedInError).join(', ');
  const more = ids.length - COLLECTION_LIMITS.namedInError;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/**
 * The item_ids of an add or remove, checked: 1 to 500 non-empty strings of at most 64 characters,
 * none twice (a repeated id is a mistake in the request, said rather than silently merged). Pure.
 */
export function requestedItemIds(raw: readonly string[]): string[] {
  const param = 'item_ids';
  if (raw.length === 0) throw errors.notProvided(param);
  if (raw.length > COLLECTION_LIMITS.itemIdsPerRequest) {
    throw errors.invalid(param, `It holds at most ${COLLECTION_LIMITS.itemIdsPerRequest} ids per request; it has ${raw.length}.`);
  }
  const seen = new Set<string>();
  raw.forEach((id, index) => {
    if (!id) throw errors.invalid(`${param}.${index}`, 'It is empty.');
    if (id.length > COLLECTION_LIMITS.itemIdLength) {
      throw errors.invalid(`${param}.${index}`, `An item id is at most ${COLLECTION_LIMITS.itemIdLength} characters.`);
    }
    if (seen.has(id)) throw errors.invalid(param, `It holds ${id} more than once.`);
    seen.add(id);
  });
  return [...raw];
}

/** The answer to an add naming ids that are not items of this store (unknown, malformed, another store's or organization's alike). Pure. */
export function notItemsError(notItems: readonly string[]) {
  return errors.invalid(
    'item_ids',
    `Every id must be an item of this knowledge store; ${notItems.length === 1 ? 'this one is' : `${notItems.length} are`} not: ${namedIds(notItems)}. Nothing was added.`,
  );
}

export interface KnowledgeCollectionDeps {
  store: KnowledgeCollectionStore;
  /** Reads an item with its media (the knowledge-store store's getItem). */
  item: ItemReader;
  clock: Clock;
}

export function createKnowledgeCollectionService({ store, item, clock }: KnowledgeCollectionDeps) {
  /** The organization's store, or 404: another organization's store is indistinguishable from a missing one. */
  const storeOf = async (orgId: string, storeId: string): Promise<void> => {
    if (!(isId(storeId) && (await store.storeExists(orgId, storeId)))) throw errors.notFound('Knowledge store', storeId);
  };
  const collectionOf = async (orgId: string, storeId: string, id: string): Promise<CollectionRecord> => {
    await storeOf(orgId, storeId);
    const found = isId(id) ? await store.getCollection(orgId, storeId, id) : undefined;
    if (!found) throw errors.notFound('Knowledge store item collection', id);
    return found;
  };
  const nameTaken = (name: string) =>
    errors.invalid(
      'name',
      `The knowledge store already has an item collection named ${JSON.stringify(name)}; names are unique within a store.`,
    );

  return {
    async createCollection(
      orgId: string,
      storeId: string,
      input: Required<CollectionChanges> & { name: string },
    ): Promise<CollectionRecord> {
      await storeOf(orgId, storeId);
      const now = clock.now();
      const created = await store.insertCollection({
        id: newId(now),
        orgId,
        storeId,
        name: collectionName(input.name),
        description: collectionDescription(input.description),
        metadata: collectionMetadata(input.metadata),
        createdAt: now,
        updatedAt: now,
      });
      if (created === 'name_taken') throw nameTaken(collectionName(input.name));
      return created;
    },

    getCollection: collectionOf,

    async listCollections(orgId: string, storeId: string, sort: CollectionSort, paging: Paging) {
      await storeOf(orgId, storeId);
      return listPage(paging, (limit, offset) => store.listCollections(orgId, storeId, sort, limit, offset));
    },

    async updateCollection(orgId: string, storeId: string, id: string, changes: CollectionChanges): Promise<CollectionRecord> {
      await collectionOf(orgId, storeId, id);
      const checked = {
        name: changes.name === undefined ? undefined : collectionName(changes.name),
        description: changes.description === undefined ? undefined : collectionDescription(changes.description),
        metadata: changes.metadata === undefined ? undefined : collectionMetadata(changes.metadata),
      };
      const updated = await store.updateCollection(orgId, storeId, id, checked, clock.now());
      if (updated === 'name_taken') throw nameTaken(checked.name ?? '');
      if (!updated) throw errors.notFound('Knowledge store item collection', id);
      return updated;
    },

    /** The items stay in the store. */
    async deleteCollection(orgId: string, storeId: string, id: string): Promise<void> {
      await collectionOf(orgId, storeId, id);
      if (!(await store.deleteCollection(orgId, storeId, id))) throw errors.notFound('Knowledge store item collection', id);
    },

    /** The members, in the order they were added; one deleted meanwhile is left out of the page. */
    async listMembers(orgId: string, storeId: string, id: string, paging: Paging) {
      await collectionOf(orgId, storeId, id);
      return listPage(paging, async (limit, offset) => {
        const page = await store.memberIds(orgId, storeId, id, limit, offset);
        const items = await Promise.all(page.rows.map((itemId) => item(orgId, storeId, itemId)));
        return { rows: items.filter((found): found is ItemRecord => found !== undefined), total: page.total };
      });
    },

    /** Idempotent: members already in are skipped. Every id must be an item of this store, or nothing is added. */
    async addMembers(orgId: string, storeId: string, id: string, rawItemIds: readonly string[]): Promise<CollectionRecord> {
      await collectionOf(orgId, storeId, id);
      const itemIds = requestedItemIds(rawItemIds);
      // A malformed id names no item; it is refused with the others rather than sent to SQL.
      const malformed = itemIds.filter((itemId) => !isId(itemId));
      if (malformed.length > 0) throw notItemsError(malformed);
      const added = await store.addMembers(orgId, storeId, id, itemIds, clock.now());
      if (added === 'absent') throw errors.notFound('Knowledge store item collection', id);
      if (added.notItems.length > 0) throw notItemsError(added.notItems);
      return collectionOf(orgId, storeId, id);
    },

    /** Idempotent: ids that are not members (malformed ones included) are ignored; the items stay in the store. */
    async removeMembers(orgId: string, storeId: string, id: string, rawItemIds: readonly string[]): Promise<void> {
      await collectionOf(orgId, storeId, id);
      const itemIds = requestedItemIds(rawItemIds).filter((itemId) => isId(itemId));
      if (itemIds.length > 0 && !(await store.removeMembers(orgId, storeId, id, itemIds, clock.now()))) {
        throw errors.notFound('Knowledge store item collection', id);
      }
    },
  };
}

export type KnowledgeCollectionService = ReturnType<typeof createKnowledgeCollectionService>;
