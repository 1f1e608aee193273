import { isApiError, ManualClock, newId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { codeOf, errorOf } from '@vus/testing';
import { createKnowledgeCollectionStore } from '../src/knowledge/collection-store';
import { createKnowledgeCollectionService, type KnowledgeCollectionService } from '../src/knowledge/collections';
import { createKnowledgeStoreService, type KnowledgeStoreService } from '../src/knowledge/knowledge-stores';
import { tasksOnlyIngestion } from './knowledge-ingestion';
import { createKnowledgeStoreStore } from '../src/knowledge/store';
import { taskService } from '../src/main';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';
const NEWEST_FIRST = { by: 'created_at', order: 'desc' } as const;

describe.each(DATABASE_KINDS)('knowledge store item collections on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let stores: KnowledgeStoreService;
  let collections: KnowledgeCollectionService;

  /** A ready asset row (the asset API is tested in assets.int.test.ts). */
  const asset = async (orgId: string) => {
    const id = newId(clock.now());
    await database.db.query(
      `INSERT INTO assets (id, org_id, method, status, filename, file_type, mime_type, size, duration, width, height, created_at, updated_at)
       VALUES ($1, $2, 'direct', 'ready', 'clip.mp4', 'video', 'video/mp4', 1234, 12.5, 640, 360, $3, $3)`,
      [id, orgId, clock.now()],
    );
    return id;
  };
  const newStore = (orgId: string, name: string) => stores.createStore(orgId, { name, description: '', metadata: {}, enrichment: null });
  const newItem = async (orgId: string, storeId: string) => {
    clock.advance(1000);
    return (await stores.createItem(orgId, storeId, { assetId: await asset(orgId), assetType: '', metadata: {} })).id;
  };
  const collection = (
    orgId: string,
    storeId: string,
    name: string,
    extra: { description?: string; metadata?: Record<string, string> } = {},
  ) => collections.createCollection(orgId, storeId, { name, description: extra.description ?? '', metadata: extra.metadata ?? {} });
  const memberIds = async (orgId: string, storeId: string, id: string, paging = {}) =>
    (await collections.listMembers(orgId, storeId, id, paging)).data.map((i) => i.id);

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, taskService);
    clock = new ManualClock('2024-05-01T00:00:00Z');
    const storeStore = createKnowledgeStoreStore(database.db);
    stores = createKnowledgeStoreService({ store: storeStore, ingestion: tasksOnlyIngestion(database.db, clock), clock });
    collections = createKnowledgeCollectionService({ store: createKnowledgeCollectionStore(database.db), item: storeStore.getItem, clock });
  });
  afterAll(() => database.drop());

  it('resolves the named items and the members of the named collections (their union, oldest first); unknown ids are named', async () => {
    const ks = await newStore(ORG, 'resolve');
    const otherKs = await newStore(ORG, 'resolve-other');
    const [a, b, c] = [await newItem(ORG, ks.id), await newItem(ORG, ks.id), await newItem(ORG, ks.id)];
    const theirs = await newItem(ORG, otherKs.id);
    const group = await collection(ORG, ks.id, 'group');
    await collections.addMembers(ORG, ks.id, group.id, [c, b]);
    const resolve = (itemIds: string[], collectionIds: string[], orgId = ORG) =>
      stores.resolveItems(orgId, ks.id, { itemIds, collectionIds, assetType: '' });
    const ids = async (itemIds: string[], collectionIds: string[]) => (await resolve(itemIds, collectionIds)).items.map((i) => i.id);
    expect(await ids([], [])).toEqual([a, b, c]);
    expect(await ids([a], [])).toEqual([a]);
    expect(await ids([], [group.id])).toEqual([b, c]);
    expect(await ids([a, b], [group.id])).toEqual([a, b, c]);
    expect((await stores.resolveItems(ORG, ks.id, { itemIds: [], collectionIds: [], assetType: 'image' })).items).toEqual([]);
    const missing = newId(clock.now());
    for (const [itemIds, collectionIds, named] of [
      [[theirs], [], theirs],
      [['not-an-id'], [], 'not-an-id'],
      [[a], [missing], missing],
      [[], [group.id, 'x'], 'x'],
    ] as const) {
      const error = await resolve([...itemIds], [...collectionIds]).catch((e: unknown) => e);
      expect(isApiError(error) && { code: error.code, named: error.message.includes(named) }).toEqual({
        code: 'resource_not_exist',
        named: true,
      });
    }
    expect(await codeOf(resolve([], [], OTHER_ORG))).toBe('resource_not_exist');
  });

  it('creates, retrieves, updates and deletes a collection; another organization and another store see none of it', async () => {
    const ks = await newStore(ORG, 'crud');
    const otherKs = await newStore(ORG, 'crud-other');
    const made = await collection(ORG, ks.id, ' Q1 highlights ', { description: 'A subset', metadata: { group: 'highlights' } });
    expect(made).toMatchObject({
      storeId: ks.id,
      name: 'Q1 highlights',
      description: 'A subset',
      metadata: { group: 'highlights' },
      memberCount: 0,
    });
    expect(await collections.getCollection(ORG, ks.id, made.id)).toEqual(made);

    for (const attempt of [
      collections.getCollection(OTHER_ORG, ks.id, made.id),
      collections.getCollection(ORG, otherKs.id, made.id),
      collections.getCollection(ORG, ks.id, 'not-an-id'),
      collections.updateCollection(OTHER_ORG, ks.id, made.id, { name: 'x' }),
      collections.deleteCollection(OTHER_ORG, ks.id, made.id),
      collections.listMembers(OTHER_ORG, ks.id, made.id, {}),
      collections.listCollections(OTHER_ORG, ks.id, NEWEST_FIRST, {}),
      collection(OTHER_ORG, ks.id, 'theirs'),
    ]) {
      expect(await codeOf(attempt)).toBe('resource_not_exist');
    }
    expect(await errorOf(collections.getCollection(ORG, otherKs.id, made.id))).toEqual({
      code: 'resource_not_exist',
      message: `Knowledge store item collection with id ${made.id} does not exist.`,
    });

    clock.advance(1000);
    const described = await collections.updateCollection(ORG, ks.id, made.id, { description: 'Updated collection description' });
    expect(described).toMatchObject({
      name: 'Q1 highlights',
      description: 'Updated collection description',
      metadata: { group: 'highlights' },
    });
    expect(described.updatedAt.getTime()).toBeGreaterThan(made.updatedAt.getTime());
    expect(described.createdAt).toEqual(made.createdAt);
    const renamed = await collections.updateCollection(ORG, ks.id, made.id, { name: 'Q2', metadata: {} });
    expect(renamed).toMatchObject({ name: 'Q2', metadata: {}, description: 'Updated collection description' });

    await collections.deleteCollection(ORG, ks.id, made.id);
    expect(await codeOf(collections.getCollection(ORG, ks.id, made.id))).toBe('resource_not_exist');
    expect(await codeOf(collections.deleteCollection(ORG, ks.id, made.id))).toBe('resource_not_exist');
  });

  it('keeps names unique within a store (not across stores), on create and on rename', async () => {
    const ks = await newStore(ORG, 'names');
    const other = await newStore(ORG, 'names-2');
    const first = await collection(ORG, ks.id, 'Highlights');
    await collection(ORG, other.id, 'Highlights');
    expect(await errorOf(collection(ORG, ks.id, ' Highlights'))).toEqual({
      code: 'parameter_invalid',
      message:
        'The name parameter is invalid. The knowledge store already has an item collection named "Highlights"; names are unique within a store.',
    });
    const second = await collection(ORG, ks.id, 'Lowlights');
    expect(await codeOf(collections.updateCollection(ORG, ks.id, second.id, { name: 'Highlights' }))).toBe('parameter_invalid');
    // Renaming to its own name is no conflict.
    expect((await collections.updateCollection(ORG, ks.id, first.id, { name: 'Highlights' })).name).toBe('Highlights');
    expect(await codeOf(collection(ORG, ks.id, '   '))).toBe('parameter_not_provided');
  });

  it('lists collections sorted by created_at, updated_at or name, in pages', async () => {
    const ks = await newStore(ORG, 'lists');
    const made: Record<string, string> = {};
    for (const name of ['bravo', 'alpha', 'charlie']) {
      clock.advance(1000);
      made[name] = (await collection(ORG, ks.id, name)).id;
    }
    clock.advance(1000);
    await collections.updateCollection(ORG, ks.id, made.alpha!, { description: 'touched last' });

    const names = async (sort: { by: 'created_at' | 'updated_at' | 'name'; order: 'asc' | 'desc' }, paging = {}) =>
      (await collections.listCollections(ORG, ks.id, sort, paging)).data.map((c) => c.name);
    expect(await names(NEWEST_FIRST)).toEqual(['charlie', 'alpha', 'bravo']);
    expect(await names({ by: 'name', order: 'asc' })).toEqual(['alpha', 'bravo', 'charlie']);
    expect(await names({ by: 'name', order: 'desc' })).toEqual(['charlie', 'bravo', 'alpha']);
    expect(await names({ by: 'updated_at', order: 'desc' })).toEqual(['alpha', 'charlie', 'bravo']);
    const page = await collections.listCollections(ORG, ks.id, { by: 'name', order: 'asc' }, { page: 2, pageLimit: 2 });
    expect(page.data.map((c) => c.name)).toEqual(['charlie']);
    expect(page.pageInfo).toEqual({ page: 2, limit_per_page: 2, total_page: 2, total_results: 3 });
    expect((await collections.listCollections(ORG, ks.id, NEWEST_FIRST, { page: 3, pageLimit: 2 })).data).toEqual([]);
    expect(await codeOf(collections.listCollections(ORG, ks.id, NEWEST_FIRST, { pageLimit: 51 }))).toBe('parameter_invalid');
  });

  it('adds items idempotently in order, lists them in pages, removes them; the items stay in the store', async () => {
    const ks = await newStore(ORG, 'members');
    const [a, b, c] = [await newItem(ORG, ks.id), await newItem(ORG, ks.id), await newItem(ORG, ks.id)];
    const col = await collection(ORG, ks.id, 'members');

    clock.advance(1000);
    const added = await collections.addMembers(ORG, ks.id, col.id, [c, a]);
    expect(added.memberCount).toBe(2);
    expect(added.updatedAt.getTime()).toBeGreaterThan(col.updatedAt.getTime());
    // Already members are skipped; b joins after them.
    expect((await collections.addMembers(ORG, ks.id, col.id, [a, b, c])).memberCount).toBe(3);
    expect(await memberIds(ORG, ks.id, col.id)).toEqual([c, a, b]);
    const page = await collections.listMembers(ORG, ks.id, col.id, { page: 2, pageLimit: 2 });
    expect(page.data.map((i) => i.id)).toEqual([b]);
    expect(page.pageInfo).toEqual({ page: 2, limit_per_page: 2, total_page: 2, total_results: 3 });
    expect(page.data[0]).toMatchObject({ storeId: ks.id, assetType: 'video', media: { filename: 'clip.mp4', width: 640 } });

    // An unchanged add does not touch updated_at.
    const before = (await collections.getCollection(ORG, ks.id, col.id)).updatedAt;
    clock.advance(1000);
    expect((await collections.addMembers(ORG, ks.id, col.id, [a])).updatedAt).toEqual(before);

    // Not members, and malformed ids, are ignored by a remove.
    await collections.removeMembers(ORG, ks.id, col.id, [a, newId(clock.now()), 'nope']);
    expect(await memberIds(ORG, ks.id, col.id)).toEqual([c, b]);
    await collections.removeMembers(ORG, ks.id, col.id, [a]);
    expect((await stores.getItem(ORG, ks.id, a)).id).toBe(a);
    expect((await stores.getStore(ORG, ks.id)).itemCount).toBe(3);

    // Deleting the collection leaves its items in the store.
    await collections.deleteCollection(ORG, ks.id, col.id);
    expect((await stores.listItems(ORG, ks.id, [], NEWEST_FIRST, {})).pageInfo.total_results).toBe(3);
    const left = await database.db.query(
      'SELECT count(*)::int AS n FROM knowledge_store_item_collection_members WHERE collection_id = $1',
      [col.id],
    );
    expect(left.rows[0]).toEqual({ n: 0 });
  });

  it("refuses another store's, another organization's, unknown and malformed item ids, adding nothing", async () => {
    const ks = await newStore(ORG, 'refusals');
    const otherStore = await newStore(ORG, 'refusals-2');
    const theirs = await newStore(OTHER_ORG, 'theirs');
    const mine = await newItem(ORG, ks.id);
    const elsewhere = await newItem(ORG, otherStore.id);
    const foreign = await newItem(OTHER_ORG, theirs.id);
    const unknown = newId(clock.now());
    const col = await collection(ORG, ks.id, 'refusals');

    for (const notItem of [elsewhere, foreign, unknown, 'nope']) {
      expect(await errorOf(collections.addMembers(ORG, ks.id, col.id, [mine, notItem]))).toEqual({
        code: 'parameter_invalid',
        message: `The item_ids parameter is invalid. Every id must be an item of this knowledge store; this one is not: ${notItem}. Nothing was added.`,
      });
    }
    expect((await collections.getCollection(ORG, ks.id, col.id)).memberCount).toBe(0);
    // The other organization cannot reach the collection at all, even with its own item.
    expect(await codeOf(collections.addMembers(OTHER_ORG, ks.id, col.id, [foreign]))).toBe('resource_not_exist');
    expect(await codeOf(collections.removeMembers(OTHER_ORG, ks.id, col.id, [mine]))).toBe('resource_not_exist');
    // Request shape refusals come before any lookup of the items.
    expect(await codeOf(collections.addMembers(ORG, ks.id, col.id, []))).toBe('parameter_not_provided');
    expect(await codeOf(collections.addMembers(ORG, ks.id, col.id, [mine, mine]))).toBe('parameter_invalid');
    expect(await codeOf(collections.removeMembers(ORG, ks.id, col.id, [mine, mine]))).toBe('parameter_invalid');
    const tooMany = Array.from({ length: 501 }, () => newId(clock.now()));
    expect(await errorOf(collections.addMembers(ORG, ks.id, col.id, tooMany))).toMatchObject({
      message: 'The item_ids parameter is invalid. It holds at most 500 ids per request; it has 501.',
    });
    // 500 unknown ids: one answer naming ten and counting the rest.
    const many = await errorOf(collections.addMembers(ORG, ks.id, col.id, tooMany.slice(0, 500)));
    expect(many && many.message).toContain('500 are not:');
    expect(many && many.message).toContain('and 490 more. Nothing was added.');
  });

  it('drops memberships with a deleted item, asset or store; collections go with their store', async () => {
    const ks = await newStore(ORG, 'cascade');
    const [a, b] = [await newItem(ORG, ks.id), await newItem(ORG, ks.id)];
    const first = await collection(ORG, ks.id, 'first');
    const second = await collection(ORG, ks.id, 'second');
    await collections.addMembers(ORG, ks.id, first.id, [a, b]);
    await collections.addMembers(ORG, ks.id, second.id, [a]);

    await stores.deleteItem(ORG, ks.id, a);
    expect(await memberIds(ORG, ks.id, first.id)).toEqual([b]);
    expect((await collections.getCollection(ORG, ks.id, second.id)).memberCount).toBe(0);

    const assetOfB = (await stores.getItem(ORG, ks.id, b)).assetId;
    await database.db.query('DELETE FROM assets WHERE id = $1', [assetOfB]);
    expect((await collections.getCollection(ORG, ks.id, first.id)).memberCount).toBe(0);

    await stores.deleteStore(ORG, ks.id);
    const left = await database.db.query('SELECT count(*)::int AS n FROM knowledge_store_item_collections WHERE knowledge_store_id = $1', [
      ks.id,
    ]);
    expect(left.rows[0]).toEqual({ n: 0 });
    expect(await codeOf(collections.getCollection(ORG, ks.id, first.id))).toBe('resource_not_exist');
  });

  it('takes 500 items in one add and lists them in the order given', async () => {
    const ks = await newStore(ORG, 'bulk');
    const itemIds: string[] = [];
    for (let i = 0; i < 500; i += 1) itemIds.push(await newItem(ORG, ks.id));
    const shuffled = [...itemIds].reverse();
    const col = await collection(ORG, ks.id, 'bulk');
    expect((await collections.addMembers(ORG, ks.id, col.id, shuffled)).memberCount).toBe(500);
    const lastPage = await collections.listMembers(ORG, ks.id, col.id, { page: 10, pageLimit: 50 });
    expect(lastPage.data.map((i) => i.id)).toEqual(shuffled.slice(450));
    await collections.removeMembers(ORG, ks.id, col.id, itemIds);
    expect((await collections.getCollection(ORG, ks.id, col.id)).memberCount).toBe(0);
  }, 60_000);
});
