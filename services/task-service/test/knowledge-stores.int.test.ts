import { ManualClock, newId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { codeOf } from '@vus/testing';
import { createKnowledgeStoreService, type KnowledgeStoreService } from '../src/knowledge/knowledge-stores';
import { createKnowledgeStoreStore } from '../src/knowledge/store';
import { taskService } from '../src/main';
import { tasksOnlyIngestion } from './knowledge-ingestion';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';
const NEWEST_FIRST = { by: 'created_at', order: 'desc' } as const;

describe.each(DATABASE_KINDS)('knowledge stores on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let stores: KnowledgeStoreService;
  let ingestion: ReturnType<typeof tasksOnlyIngestion>;

  /** An asset row as processing leaves it (the asset API is tested in assets.int.test.ts). */
  const asset = async (orgId: string, status = 'ready', fileType: string | null = 'video') => {
    const id = newId(clock.now());
    await database.db.query(
      `INSERT INTO assets (id, org_id, method, status, filename, file_type, mime_type, size, duration, width, height, created_at, updated_at)
       VALUES ($1, $2, 'direct', $3, 'clip.mp4', $4, 'video/mp4', 1234, 12.5, 640, 360, $5, $5)`,
      [id, orgId, status, fileType, clock.now()],
    );
    return id;
  };
  const plain = (name: string) => ({ name, description: '', metadata: {}, enrichment: null });

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, taskService);
    clock = new ManualClock('2024-05-01T00:00:00Z');
    ingestion = tasksOnlyIngestion(database.db, clock);
    stores = createKnowledgeStoreService({ store: createKnowledgeStoreStore(database.db), ingestion, clock });
  });
  afterAll(() => database.drop());

  it('creates, retrieves, updates and deletes a store; ingestion_config stays as created; another organization sees none of it', async () => {
    const jsonSchema = { type: 'object', properties: { subject: { type: 'string', description: 'the subject' } } };
    const made = await stores.createStore(ORG, {
      name: ' Library ',
      description: 'talks',
      metadata: { team: 'qa' },
      enrichment: { type: 'json_schema', description: '', jsonSchema },
    });
    expect(made).toMatchObject({
      name: 'Library',
      itemCount: 0,
      metadata: { team: 'qa' },
      enrichment: { type: 'json_schema', jsonSchema },
    });
    expect(await stores.getStore(ORG, made.id)).toEqual(made);
    for (const attempt of [
      stores.getStore(OTHER_ORG, made.id),
      stores.getStore(ORG, 'nope'),
      stores.updateStore(OTHER_ORG, made.id, { name: 'x' }),
      stores.deleteStore(OTHER_ORG, made.id),
    ]) {
      expect(await codeOf(attempt)).toBe('resource_not_exist');
    }
    expect((await stores.listStores(OTHER_ORG, NEWEST_FIRST, {})).pageInfo.total_results).toBe(0);

    clock.advance(1000);
    const renamed = await stores.updateStore(ORG, made.id, { name: 'Talks', metadata: { stage: 'updated' } });
    expect(renamed).toMatchObject({ name: 'Talks', description: 'talks', metadata: { stage: 'updated' }, enrichment: made.enrichment });
    expect(renamed.updatedAt.getTime()).toBeGreaterThan(made.updatedAt.getTime());
    expect((await stores.updateStore(ORG, made.id, { metadata: {} })).metadata).toEqual({});
    await stores.deleteStore(ORG, made.id);
    expect(await codeOf(stores.getStore(ORG, made.id))).toBe('resource_not_exist');
  });

  it('refuses a nameless store and an unsupported enrichment schema', async () => {
    expect(await codeOf(stores.createStore(ORG, plain('  ')))).toBe('parameter_not_provided');
    const bad = { type: 'json_schema', description: '', jsonSchema: { type: 'object', properties: { a: { type: 'string' } } } };
    expect(await codeOf(stores.createStore(ORG, { ...plain('x'), enrichment: bad }))).toBe('parameter_invalid');
  });

  it('lists stores sorted and paged', async () => {
    const org = newId(clock.now());
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      clock.advance(1000);
      ids.push((await stores.createStore(org, plain(name))).id);
    }
    const first = await stores.listStores(org, NEWEST_FIRST, { page: 1, pageLimit: 2 });
    expect(first.data.map((s) => s.name)).toEqual(['three', 'two']);
    expect(first.pageInfo).toMatchObject({ page: 1, total_page: 2, total_results: 3 });
    const oldest = await stores.listStores(org, { by: 'created_at', order: 'asc' }, { page: 2, pageLimit: 2 });
    expect(oldest.data.map((s) => s.id)).toEqual([ids[2]]);
  });

  it("adds ready assets as items, each processed by an indexing task into the store's index, showing its status; lists them by status", async () => {
    const ks = await stores.createStore(ORG, plain('items'));
    const video = await asset(ORG);
    const image = await asset(ORG, 'ready', 'image');
    const item = await stores.createItem(ORG, ks.id, { assetId: video, assetType: 'video', metadata: { scene: 'intro' } });
    // Its task is being validated: queued, as the reference says a new item is.
    expect(item).toMatchObject({ assetId: video, assetType: 'video', status: 'queued', metadata: { scene: 'intro' } });
    expect(item.media).toEqual({ filename: 'clip.mp4', duration: 12.5, width: 640, height: 360, size: 1234, mimeType: 'video/mp4' });
    const { indexId } = await stores.getStore(ORG, ks.id);
    expect(indexId && ingestion.indexes.has(indexId)).toBe(true);
    expect(item.task).toMatchObject({ indexId });
    clock.advance(1000);
    const second = await stores.createItem(ORG, ks.id, { assetId: image, assetType: '', metadata: {} });
    expect(second.assetType).toBe('image');
    // One index for the store, made at its first item.
    expect(ingestion.indexes.size).toBe(1);
    expect((await stores.getStore(ORG, ks.id)).itemCount).toBe(2);
    expect(await stores.getItem(ORG, ks.id, item.id)).toEqual(item);

    expect(await codeOf(stores.createItem(ORG, ks.id, { assetId: video, assetType: '', metadata: {} }))).toBe('parameter_invalid');
    expect(await codeOf(stores.createItem(ORG, ks.id, { assetId: await asset(OTHER_ORG), assetType: '', metadata: {} }))).toBe(
      'resource_not_exist',
    );
    expect(
      await codeOf(stores.createItem(ORG, ks.id, { assetId: await asset(ORG, 'processing', null), assetType: '', metadata: {} })),
    ).toBe('parameter_invalid');
    expect(await codeOf(stores.createItem(OTHER_ORG, ks.id, { assetId: video, assetType: '', metadata: {} }))).toBe('resource_not_exist');
    expect(await codeOf(stores.getItem(OTHER_ORG, ks.id, item.id))).toBe('resource_not_exist');
    expect(await codeOf(stores.listItems(OTHER_ORG, ks.id, [], NEWEST_FIRST, {}))).toBe('resource_not_exist');

    const all = await stores.listItems(ORG, ks.id, [], NEWEST_FIRST, {});
    expect(all.data.map((i) => i.id)).toEqual([second.id, item.id]);
    expect((await stores.listItems(ORG, ks.id, ['ready'], NEWEST_FIRST, {})).pageInfo.total_results).toBe(0);
    expect((await stores.listItems(ORG, ks.id, ['queued', 'ready'], NEWEST_FIRST, {})).pageInfo.total_results).toBe(2);
    // The status moves with the task's (the worker's steps, as SQL): the list filters on the status shown.
    const setTask = (status: string) => database.db.query('UPDATE tasks SET status = $2 WHERE id = $1', [item.task!.id, status]);
    await setTask('indexing');
    expect((await stores.getItem(ORG, ks.id, item.id)).status).toBe('processing');
    expect((await stores.listItems(ORG, ks.id, ['processing'], NEWEST_FIRST, {})).data.map((i) => i.id)).toEqual([item.id]);
    await setTask('ready');
    expect((await stores.listItems(ORG, ks.id, ['ready'], NEWEST_FIRST, {})).data.map((i) => i.id)).toEqual([item.id]);
    const resolved = await stores.resolveItems(ORG, ks.id, { itemIds: [], collectionIds: [], assetType: '' });
    expect(resolved).toEqual({
      indexId,
      items: [
        {
          id: item.id,
          assetType: 'video',
          status: 'ready',
          videoId: item.task!.videoId,
          title: 'clip.mp4',
          duration: 12.5,
          metadata: { scene: 'intro' },
        },
        { id: second.id, assetType: 'image', status: 'queued', videoId: null, title: 'clip.mp4', duration: 0, metadata: {} },
      ],
    });

    await database.db.query('DELETE FROM assets WHERE id = $1', [image]);
    expect(await codeOf(stores.getItem(ORG, ks.id, second.id))).toBe('resource_not_exist');
    expect(await codeOf(stores.deleteItem(OTHER_ORG, ks.id, item.id))).toBe('resource_not_exist');
    await stores.deleteItem(ORG, ks.id, item.id);
    // An item deleted alone takes its video with it.
    expect(ingestion.removals.splice(0)).toEqual([{ taskId: item.task!.id, videoGone: false }]);
    expect((await stores.getStore(ORG, ks.id)).itemCount).toBe(0);
    expect((await database.db.query('SELECT id FROM tasks WHERE id = $1', [item.task!.id])).rows).toEqual([]);

    const last = await stores.createItem(ORG, ks.id, { assetId: video, assetType: '', metadata: {} });
    await database.db.query("UPDATE tasks SET status = 'ready' WHERE id = $1", [last.task!.id]);
    await stores.deleteStore(ORG, ks.id);
    expect(ingestion.indexes.size).toBe(0);
    // The tasks into the store's index (the last item's, and the image item's that went with its asset)
    // go without a call per video: their videos went with the index.
    const removed = ingestion.removals.splice(0).sort((a, b) => a.taskId.localeCompare(b.taskId));
    const storeTasks = [second.task!.id, last.task!.id].sort();
    expect(removed).toEqual(storeTasks.map((taskId) => ({ taskId, videoGone: true })));
    expect((await database.db.query('SELECT id FROM tasks WHERE id = $1', [last.task!.id])).rows).toEqual([]);
    const left = await database.db.query('SELECT count(*)::int AS n FROM knowledge_store_items WHERE asset_id = $1', [video]);
    expect(left.rows[0]).toEqual({ n: 0 });
    const assetLeft = await database.db.query('SELECT count(*)::int AS n FROM assets WHERE id = $1', [video]);
    expect(assetLeft.rows[0]).toEqual({ n: 1 });
  });
});
