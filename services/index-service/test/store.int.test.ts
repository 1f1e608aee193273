import { isApiError, newId } from '@vus/core';
import { isUniqueViolation } from '@vus/db';
import { migrateService } from '@vus/service';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { buildEvent } from '@vus/events';
import type { IndexRecord, IndexSort } from '../src/indexes';
import { indexService } from '../src/main';
import { createIndexStore } from '../src/index-store';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';
const byCreated: IndexSort = { by: 'created_at', order: 'desc' };

function buildIndex(overrides: Partial<IndexRecord> = {}): IndexRecord {
  const at = overrides.createdAt ?? new Date('2024-01-01T00:00:00Z');
  return {
    id: newId(at),
    orgId: ORG,
    name: `index-${Math.random().toString(36).slice(2)}`,
    models: [{ name: 'marengo2.6', options: ['visual', 'conversation'] }],
    addons: [],
    videoCount: 0,
    totalDuration: 0,
    createdAt: at,
    updatedAt: at,
    expiresAt: null,
    internal: false,
    ...overrides,
  };
}

describe.each(DATABASE_KINDS)('index store on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let store: ReturnType<typeof createIndexStore>;

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, indexService);
    store = createIndexStore(database.db);
  });
  afterAll(() => database.drop());
  beforeEach(() => database.db.query('TRUNCATE indexes, outbox CASCADE'));

  it('round-trips an index', async () => {
    const index = buildIndex({ addons: ['thumbnail'], expiresAt: new Date('2025-01-01T00:00:00Z') });
    await store.insert(index, []);
    expect(await store.get(ORG, index.id)).toEqual(index);
    expect(await store.get(OTHER_ORG, index.id)).toBeUndefined();
  });

  it('writes the events with the row, and neither on a duplicate name', async () => {
    const index = buildIndex({ name: 'ads' });
    await store.insert(index, [buildEvent('index.created', index.id, ORG, {})]);
    const duplicate = buildIndex({ name: 'ads' });
    const error = await store.insert(duplicate, [buildEvent('index.created', duplicate.id, ORG, {})]).catch((e: unknown) => e);
    expect(isApiError(error) && error.code).toBe('index_name_already_exists');
    const { rows } = await database.db.query('SELECT key FROM outbox');
    expect(rows).toEqual([{ key: index.id }]);
    // The same name in another organization is fine.
    await expect(store.insert(buildIndex({ name: 'ads', orgId: OTHER_ORG }), [])).resolves.toBeUndefined();
  });

  it("never lists an internal index (a knowledge store's), whose name collides with no user index", async () => {
    const mine = buildIndex({ name: 'ads' });
    const internal = buildIndex({ name: 'ads', internal: true });
    await store.insert(mine, []);
    await store.insert(internal, []);
    expect(await store.get(ORG, internal.id)).toEqual(internal);
    expect(await store.list(ORG, {}, byCreated, 10, 0)).toEqual({ rows: [mine], total: 1 });
    expect(await store.list(ORG, { ids: [internal.id] }, byCreated, 10, 0)).toEqual({ rows: [], total: 0 });
    const error = await store.insert(buildIndex({ name: 'ads', internal: true }), []).catch((e: unknown) => e);
    expect(isUniqueViolation(error, 'indexes_internal_name')).toBe(true);
  });

  it('renames, refusing a name taken in the organization', async () => {
    const a = buildIndex({ name: 'a' });
    const b = buildIndex({ name: 'b' });
    await store.insert(a, []);
    await store.insert(b, []);
    const at = new Date('2024-06-01T00:00:00Z');
    expect(await store.rename(ORG, a.id, 'c', at)).toMatchObject({ name: 'c', updatedAt: at });
    const error = await store.rename(ORG, a.id, 'b', at).catch((e: unknown) => e);
    expect(isApiError(error) && error.code).toBe('index_name_already_exists');
    expect(await store.rename(OTHER_ORG, a.id, 'z', at)).toBeUndefined();
  });

  it('deletes only within the organization', async () => {
    const index = buildIndex();
    await store.insert(index, []);
    expect(await store.delete(OTHER_ORG, index.id, () => [])).toBe(false);
    expect(await store.delete(ORG, index.id, () => [buildEvent('index.deleted', index.id, ORG, {})])).toBe(true);
    expect(await store.get(ORG, index.id)).toBeUndefined();
    expect((await database.db.query('SELECT type FROM outbox')).rows).toEqual([{ type: 'index.deleted' }]);
  });

  describe('list', () => {
    const day = (d: number) => new Date(Date.UTC(2024, 0, d));
    let made: IndexRecord[];

    beforeEach(async () => {
      made = [
        buildIndex({ name: 'one', createdAt: day(1), updatedAt: day(9) }),
        buildIndex({ name: 'two', createdAt: day(2), updatedAt: day(8), models: [{ name: 'pegasus1.1', options: ['visual'] }] }),
        buildIndex({
          name: 'three',
          createdAt: day(3),
          updatedAt: day(7),
          models: [
            { name: 'marengo2.7', options: ['visual', 'text_in_video', 'logo'] },
            { name: 'pegasus1.2', options: ['visual', 'conversation'] },
          ],
        }),
        buildIndex({ name: 'theirs', orgId: OTHER_ORG, createdAt: day(4) }),
      ];
      for (const index of made) await store.insert(index, []);
    });

    const names = async (filter = {}, sort = byCreated, limit = 10, offset = 0) => {
      const { rows, total } = await store.list(ORG, filter, sort, limit, offset);
      return { names: rows.map((r) => r.name), total };
    };

    it('lists only the organization’s indexes, newest first by default', async () => {
      expect(await names()).toEqual({ names: ['three', 'two', 'one'], total: 3 });
    });

    it.each([
      [{ by: 'created_at', order: 'asc' }, ['one', 'two', 'three']],
      [{ by: 'updated_at', order: 'desc' }, ['one', 'two', 'three']],
      [{ by: 'updated_at', order: 'asc' }, ['three', 'two', 'one']],
    ] as const)('sorts by %j', async (sort, expected) => {
      expect((await names({}, sort)).names).toEqual(expected);
    });

    it('pages with a stable total', async () => {
      expect(await names({}, byCreated, 2, 0)).toEqual({ names: ['three', 'two'], total: 3 });
      expect(await names({}, byCreated, 2, 2)).toEqual({ names: ['one'], total: 3 });
      expect(await names({}, byCreated, 2, 4)).toEqual({ names: [], total: 3 });
    });

    it.each([
      ['ids', () => ({ ids: [made[0]!.id, made[3]!.id] }), ['one']],
      ['name', () => ({ name: 'two' }), ['two']],
      ['options (all of)', () => ({ options: ['visual', 'conversation'] }), ['three', 'one']],
      ['options (logo)', () => ({ options: ['logo'] }), ['three']],
      ['family', () => ({ family: 'pegasus' }), ['three', 'two']],
      ['model name', () => ({ modelName: 'marengo2.7' }), ['three']],
      ['created_at range', () => ({ createdAt: { gte: day(2), lt: day(3) } }), ['two']],
      ['updated_at range', () => ({ updatedAt: { gt: day(8) } }), ['one']],
      ['nothing matches', () => ({ name: 'nope' }), []],
    ])('filters by %s', async (_label, filter, expected) => {
      expect((await names(filter())).names).toEqual(expected);
    });
  });
});
