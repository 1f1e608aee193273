import { ManualClock, newId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { codeOf } from '@vus/testing';
import { createEntityService, type EntityService } from '../src/entities/entities';
import { createEntityStore } from '../src/entities/store';
import { taskService } from '../src/main';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';

describe.each(DATABASE_KINDS)('entities on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let entities: EntityService;

  /** An asset row as processing leaves it (the asset API is tested in assets.int.test.ts). */
  const asset = async (orgId: string, status = 'ready', fileType: string | null = 'image') => {
    const id = newId(clock.now());
    await database.db.query(
      `INSERT INTO assets (id, org_id, method, status, filename, file_type, created_at, updated_at)
       VALUES ($1, $2, 'direct', $3, 'face.jpg', $4, $5, $5)`,
      [id, orgId, status, fileType, clock.now()],
    );
    return id;
  };
  const entity = (name: string, assetIds: string[]) => ({ name, description: '', metadata: {}, assetIds });

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, taskService);
    clock = new ManualClock('2024-05-01T00:00:00Z');
    entities = createEntityService({ store: createEntityStore(database.db), clock });
  });
  afterAll(() => database.drop());

  it('creates, retrieves, lists, updates and deletes a collection; another organization sees none of it', async () => {
    const made = await entities.createCollection(ORG, { name: ' Players ', description: 'the team' });
    expect(made).toMatchObject({ name: 'Players', description: 'the team' });
    expect(await entities.getCollection(ORG, made.id)).toEqual(made);
    expect(await codeOf(entities.getCollection(OTHER_ORG, made.id))).toBe('resource_not_exist');
    expect(await codeOf(entities.getCollection(ORG, 'nope'))).toBe('resource_not_exist');
    expect((await entities.listCollections(OTHER_ORG, {}, { by: 'created_at', order: 'desc' }, {})).pageInfo.total_results).toBe(0);
    expect(await codeOf(entities.updateCollection(OTHER_ORG, made.id, { name: 'x' }))).toBe('resource_not_exist');
    expect(await codeOf(entities.deleteCollection(OTHER_ORG, made.id))).toBe('resource_not_exist');

    clock.advance(1000);
    const renamed = await entities.updateCollection(ORG, made.id, { name: 'Squad' });
    expect(renamed).toMatchObject({ name: 'Squad', description: 'the team' });
    expect(renamed.updatedAt.getTime()).toBeGreaterThan(made.updatedAt.getTime());
    await entities.deleteCollection(ORG, made.id);
    expect(await codeOf(entities.getCollection(ORG, made.id))).toBe('resource_not_exist');
  });

  it('lists collections by name part, sorted and paged', async () => {
    for (const name of ['Bravo crew', 'alpha crew', 'Charlie']) {
      clock.advance(1000);
      await entities.createCollection(ORG, { name, description: '' });
    }
    const byName = await entities.listCollections(ORG, { name: 'CREW' }, { by: 'name', order: 'asc' }, { page: 1, pageLimit: 1 });
    expect(byName.data.map((c) => c.name)).toEqual(['alpha crew']);
    expect(byName.pageInfo).toEqual({ page: 1, limit_per_page: 1, total_page: 2, total_results: 2 });
    const newest = await entities.listCollections(ORG, {}, { by: 'created_at', order: 'desc' }, {});
    expect(newest.data[0]?.name).toBe('Charlie');
  });

  it('creates an entity only from ready image assets of the organization', async () => {
    const { id: collectionId } = await entities.createCollection(ORG, { name: 'People', description: '' });
    const [a, b] = [await asset(ORG), await asset(ORG)];
    const made = await entities.createEntity(ORG, collectionId, {
      name: 'Ada',
      description: 'engineer',
      metadata: { team: 42, active: true, role: 'lead' },
      assetIds: [b, a, b],
    });
    expect(made).toMatchObject({ collectionId, name: 'Ada', status: 'ready', assetIds: [b, a], metadata: { team: 42, active: true } });
    expect(await entities.getEntity(ORG, collectionId, made.id)).toEqual(made);

    expect(await codeOf(entities.createEntity(ORG, collectionId, entity('x', [])))).toBe('parameter_invalid');
    expect(await codeOf(entities.createEntity(ORG, collectionId, entity('x', [await asset(OTHER_ORG)])))).toBe('resource_not_exist');
    expect(await codeOf(entities.createEntity(ORG, collectionId, entity('x', [await asset(ORG, 'processing', null)])))).toBe(
      'parameter_invalid',
    );
    expect(await codeOf(entities.createEntity(ORG, collectionId, entity('x', [await asset(ORG, 'ready', 'video')])))).toBe(
      'parameter_invalid',
    );
    expect(await codeOf(entities.createEntity(OTHER_ORG, collectionId, entity('x', [a])))).toBe('resource_not_exist');
    expect(await codeOf(entities.getEntity(OTHER_ORG, collectionId, made.id))).toBe('resource_not_exist');
    const other = await entities.createCollection(ORG, { name: 'Elsewhere', description: '' });
    expect(await codeOf(entities.getEntity(ORG, other.id, made.id))).toBe('resource_not_exist');
  });

  it('bulk creation makes the valid entities and reports the others by position', async () => {
    const { id: collectionId } = await entities.createCollection(ORG, { name: 'Roster', description: '' });
    const ok = await asset(ORG);
    const result = await entities.createEntities(ORG, collectionId, [
      entity('One', [ok]),
      entity('Two', [await asset(ORG, 'ready', 'audio')]),
      entity('', [ok]),
      entity('Four', [ok]),
    ]);
    expect(result.created.map((e) => e.name)).toEqual(['One', 'Four']);
    expect(result.failed.map((f) => [f.index, f.name])).toEqual([
      [1, 'Two'],
      [2, ''],
    ]);
    expect(result.failed[0]?.reason).toContain('audio');
    expect(await codeOf(entities.createEntities(ORG, collectionId, []))).toBe('parameter_invalid');
  });

  it('lists entities by name and status, and by asset across collections', async () => {
    const first = await entities.createCollection(ORG, { name: 'First', description: '' });
    const second = await entities.createCollection(ORG, { name: 'Second', description: '' });
    const shared = await asset(ORG);
    clock.advance(1000);
    const ada = await entities.createEntity(ORG, first.id, entity('Ada Lovelace', [shared]));
    clock.advance(1000);
    await entities.createEntity(ORG, first.id, entity('Grace Hopper', [await asset(ORG)]));
    clock.advance(1000);
    const again = await entities.createEntity(ORG, second.id, entity('Ada again', [await asset(ORG), shared]));

    const sort = { by: 'name', order: 'asc' } as const;
    expect((await entities.listEntities(ORG, first.id, {}, sort, {})).data.map((e) => e.name)).toEqual(['Ada Lovelace', 'Grace Hopper']);
    expect((await entities.listEntities(ORG, first.id, { name: 'hop' }, sort, {})).data.map((e) => e.name)).toEqual(['Grace Hopper']);
    expect((await entities.listEntities(ORG, first.id, { status: 'processing' }, sort, {})).pageInfo.total_results).toBe(0);
    expect(await codeOf(entities.listEntities(OTHER_ORG, first.id, {}, sort, {}))).toBe('resource_not_exist');

    const byAsset = await entities.listEntitiesByAsset(ORG, shared, {});
    expect(byAsset.data.map((e) => e.id)).toEqual([again.id, ada.id]);
    expect(byAsset.pageInfo.total_results).toBe(2);
    expect(await codeOf(entities.listEntitiesByAsset(OTHER_ORG, shared, {}))).toBe('resource_not_exist');
  });

  it('updates name, description and metadata (replaced whole), never the assets', async () => {
    const { id: collectionId } = await entities.createCollection(ORG, { name: 'Edits', description: '' });
    const a = await asset(ORG);
    const made = await entities.createEntity(ORG, collectionId, { ...entity('Old', [a]), metadata: { x: 1, y: 'z' } });
    clock.advance(1000);
    const updated = await entities.updateEntity(ORG, collectionId, made.id, { description: 'new', metadata: { k: false } });
    expect(updated).toMatchObject({ name: 'Old', description: 'new', metadata: { k: false }, assetIds: [a] });
    expect(await codeOf(entities.updateEntity(ORG, collectionId, made.id, { name: ' ' }))).toBe('parameter_not_provided');
    expect(await codeOf(entities.updateEntity(OTHER_ORG, collectionId, made.id, { name: 'x' }))).toBe('resource_not_exist');
  });

  it('adds and removes assets, keeping at least one; a deleted asset is unlinked; deletes cascade from the collection', async () => {
    const { id: collectionId } = await entities.createCollection(ORG, { name: 'Assets', description: '' });
    const [a, b, c] = [await asset(ORG), await asset(ORG), await asset(ORG)];
    const made = await entities.createEntity(ORG, collectionId, entity('Ada', [a]));

    expect((await entities.addAssets(ORG, collectionId, made.id, [b, a, c])).assetIds).toEqual([a, b, c]);
    expect(await codeOf(entities.addAssets(ORG, collectionId, made.id, [await asset(ORG, 'ready', 'video')]))).toBe('parameter_invalid');
    expect((await entities.removeAssets(ORG, collectionId, made.id, [b, 'unknown'])).assetIds).toEqual([a, c]);
    expect(await codeOf(entities.removeAssets(ORG, collectionId, made.id, [a, c]))).toBe('parameter_invalid');
    expect((await entities.getEntity(ORG, collectionId, made.id)).assetIds).toEqual([a, c]);

    await database.db.query('DELETE FROM assets WHERE id = $1', [a]);
    expect((await entities.getEntity(ORG, collectionId, made.id)).assetIds).toEqual([c]);

    expect(await codeOf(entities.deleteEntity(OTHER_ORG, collectionId, made.id))).toBe('resource_not_exist');
    await entities.deleteCollection(ORG, collectionId);
    expect((await database.db.query('SELECT 1 FROM entities WHERE id = $1', [made.id])).rows).toHaveLength(0);
    expect((await database.db.query('SELECT 1 FROM assets WHERE id = $1', [c])).rows).toHaveLength(1);
  });
});
