import { ManualClock } from '@vus/core';
import type { EventEnvelope } from '@vus/events';
import { createIndexService, duplicateIndexName, validateModels, type IndexRecord, type IndexStore } from '../src/indexes';
import { codeOf } from '@vus/testing';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';

/** The IndexStore contract on a Map, enough for the domain's rules. */
function memoryStore(): IndexStore & { events: EventEnvelope[] } {
  const rows = new Map<string, IndexRecord>();
  const events: EventEnvelope[] = [];
  const nameTaken = (orgId: string, name: string, except?: string) =>
    [...rows.values()].some((r) => r.orgId === orgId && r.name === name && r.id !== except);
  return {
    events,
    async insert(index, evs) {
      if (nameTaken(index.orgId, index.name)) throw duplicateIndexName(index.name);
      rows.set(index.id, index);
      events.push(...evs);
    },
    async get(orgId, id) {
      const row = rows.get(id);
      return row?.orgId === orgId ? row : undefined;
    },
    async list(orgId, _filter, _sort, limit, offset) {
      const mine = [...rows.values()].filter((r) => r.orgId === orgId);
      return { rows: mine.slice(offset, offset + limit), total: mine.length };
    },
    async rename(orgId, id, name, at) {
      const row = rows.get(id);
      if (row?.orgId !== orgId) return undefined;
      if (nameTaken(orgId, name, id)) throw duplicateIndexName(name);
      const renamed = { ...row, name, updatedAt: at };
      rows.set(id, renamed);
      return renamed;
    },
    async delete(orgId, id, evs) {
      if (rows.get(id)?.orgId !== orgId) return false;
      rows.delete(id);
      events.push(...evs([]));
      return true;
    },
  };
}

describe('validateModels', () => {
  it.each([
    [[{ name: 'marengo2.6', options: ['visual', 'conversation'] }], [], false],
    [[{ name: 'marengo2.6', options: ['visual', 'visual'] }], [], false],
    [
      [
        { name: 'marengo2.6', options: ['visual'] },
        { name: 'pegasus1.1', options: ['visual', 'conversation'] },
      ],
      ['thumbnail'],
      false,
    ],
    [[], [], 'parameter_not_provided'],
    [[{ name: 'marengo9', options: ['visual'] }], [], 'parameter_invalid'],
    [[{ name: 'marengo2.6', options: [] }], [], 'parameter_not_provided'],
    // Pegasus reads neither on-screen text nor logos.
    [[{ name: 'pegasus1.2', options: ['text_in_video'] }], [], 'parameter_invalid'],
    [
      [
        { name: 'marengo2.6', options: ['visual'] },
        { name: 'marengo2.7', options: ['visual'] },
      ],
      [],
      'parameter_invalid',
    ],
    [[{ name: 'marengo2.6', options: ['visual'] }], ['hologram'], 'parameter_invalid'],
    [[{ name: 'pegasus1.2', options: ['visual'] }], ['thumbnail'], 'parameter_invalid'],
  ] as const)('%j with addons %j → %p', async (models, addons, code) => {
    const run = async () => validateModels(models as never, addons);
    expect(await codeOf(run())).toBe(code);
  });

  it('deduplicates options', () => {
    expect(validateModels([{ name: 'marengo2.6', options: ['visual', 'visual', 'logo'] }], [])).toEqual([
      { name: 'marengo2.6', options: ['visual', 'logo'] },
    ]);
  });
});

describe('IndexService', () => {
  const clock = new ManualClock('2024-05-01T00:00:00Z');
  const setup = () => {
    const store = memoryStore();
    let woken = 0;
    const service = createIndexService({ store, clock, eventsWritten: () => woken++ });
    return { store, service, woken: () => woken };
  };
  const marengo = [{ name: 'marengo2.6', options: ['visual' as const] }];

  describe('create', () => {
    it('creates an index with a fresh id, trimmed name and an index.created event', async () => {
      const { service, store, woken } = setup();
      const index = await service.create(ORG, { name: '  ads  ', models: marengo, addons: [] });
      expect(index).toMatchObject({ orgId: ORG, name: 'ads', videoCount: 0, createdAt: clock.now(), expiresAt: null });
      expect(index.id).toMatch(/^[0-9a-f]{24}$/);
      expect(store.events.map((e) => [e.type, e.key])).toEqual([['index.created', index.id]]);
      expect(woken()).toBe(1);
    });

    it.each([
      ['', 'parameter_not_provided'],
      ['   ', 'parameter_not_provided'],
      ['x'.repeat(201), 'parameter_invalid'],
    ])('rejects the name %p with %s', async (name, code) => {
      expect(await codeOf(setup().service.create(ORG, { name, models: marengo, addons: [] }))).toBe(code);
    });

    it('refuses a duplicate name in one organization but not across organizations', async () => {
      const { service } = setup();
      await service.create(ORG, { name: 'ads', models: marengo, addons: [] });
      expect(await codeOf(service.create(ORG, { name: 'ads', models: marengo, addons: [] }))).toBe('index_name_already_exists');
      expect(await codeOf(service.create(OTHER_ORG, { name: 'ads', models: marengo, addons: [] }))).toBe(false);
    });
  });

  describe('get, rename and delete', () => {
    it('treats another organization’s index exactly like a missing one', async () => {
      const { service } = setup();
      const index = await service.create(ORG, { name: 'ads', models: marengo, addons: [] });
      for (const attempt of [
        service.get(OTHER_ORG, index.id),
        service.rename(OTHER_ORG, index.id, 'mine'),
        service.delete(OTHER_ORG, index.id),
      ]) {
        expect(await codeOf(attempt)).toBe('resource_not_exist');
      }
      expect(await service.get(ORG, index.id)).toMatchObject({ name: 'ads' });
    });

    it('renames and stamps updated_at', async () => {
      const { service } = setup();
      const index = await service.create(ORG, { name: 'ads', models: marengo, addons: [] });
      clock.advance(60_000);
      const renamed = await service.rename(ORG, index.id, 'promos');
      expect(renamed).toMatchObject({ name: 'promos', updatedAt: clock.now(), createdAt: index.createdAt });
    });

    it('deletes once, with an index.deleted event', async () => {
      const { service, store } = setup();
      const index = await service.create(ORG, { name: 'ads', models: marengo, addons: [] });
      await service.delete(ORG, index.id);
      expect(store.events.at(-1)).toMatchObject({ type: 'index.deleted', key: index.id, org_id: ORG });
      expect(await codeOf(service.delete(ORG, index.id))).toBe('resource_not_exist');
    });
  });

  describe('list', () => {
    it('pages and reports page info, with an empty page past the end', async () => {
      const { service } = setup();
      for (let i = 0; i < 3; i++) await service.create(ORG, { name: `i${i}`, models: marengo, addons: [] });
      const sort = { by: 'created_at' as const, order: 'desc' as const };
      expect((await service.list(ORG, {}, sort, { page: 1, pageLimit: 2 })).pageInfo).toEqual({
        page: 1,
        limit_per_page: 2,
        total_page: 2,
        total_results: 3,
      });
      expect((await service.list(ORG, {}, sort, { page: 3, pageLimit: 2 })).data).toEqual([]);
      expect(await codeOf(service.list(ORG, {}, sort, { pageLimit: 51 }))).toBe('parameter_invalid');
    });
  });
});
