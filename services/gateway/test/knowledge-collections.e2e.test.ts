/*
 * Knowledge store item collections end to end with the official 1.x SDK, unchanged (v1.3):
 * TwelveLabs.knowledgeStoreItemCollections as examples/knowledgeStores.ts's demoItemCollections calls
 * it (create, addItems, listItems, update, removeItems, list, delete), then paging and sorting,
 * idempotent adds, the refusals (another store's items, duplicates, 501 ids, wrong types), another
 * organization's ids answered 404, cascades from a deleted item or store, and every answer checked
 * against the v1.3 OpenAPI document.
 */
import { photoPath, shortVideo } from '@vus/testing';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { readyAsset } from './sdk-assets';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let client: TwelveLabs;
let other: TwelveLabs;
let recorder: RecordingProxy;
let key: string;
let assetIds: { video: string; image: string };
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

/** What the SDK's error carried (TwelvelabsApiError: statusCode and the JSON body), or undefined when the call succeeds. */
const refusal = async (call: Promise<unknown>): Promise<{ status: number; code?: string; message?: string } | undefined> => {
  try {
    await call;
    return undefined;
  } catch (error) {
    const { statusCode, body } = error as { statusCode?: number; body?: { code?: string; message?: string } };
    return { status: statusCode ?? -1, code: body?.code, message: body?.message };
  }
};

/** A store with an item of each asset: the items' ids, video first. */
async function storeWithItems(name: string): Promise<{ ksId: string; items: string[] }> {
  const ks = await client.knowledgeStores.create({ name });
  const items: string[] = [];
  for (const assetId of [assetIds.video, assetIds.image]) items.push((await client.knowledgeStoreItems.create(ks.id!, { assetId })).id!);
  return { ksId: ks.id!, items };
}

/** A raw v1.3 request, for bodies the SDK's types would not send. */
const raw = (method: string, path: string, body?: unknown) =>
  fetch(`${recorder.url}/v1.3${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  stack = await startIndexingStack();
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  key = (await stack.newOrg()).key;
  client = new TwelveLabs({ apiKey: key });
  other = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
  const [video, image] = await Promise.all([readyAsset(client, (await shortVideo()).path), readyAsset(client, await photoPath('cat'))]);
  assetIds = { video, image };
}, 120_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await recorder?.stop();
  await stack?.stop();
});

describe('knowledge store item collections (twelvelabs-js 1.x)', () => {
  it("runs the calls of examples/knowledgeStores.ts's demoItemCollections, with what each answers", async () => {
    const { ksId, items } = await storeWithItems('ks-collections-demo');
    const collection = await client.knowledgeStoreItemCollections.create(ksId, {
      name: `collection-${Date.now()}`,
      description: 'A subset of items',
      metadata: { group: 'highlights' },
    });
    expect(collection).toMatchObject({
      knowledgeStoreId: ksId,
      description: 'A subset of items',
      metadata: { group: 'highlights' },
      memberCount: 0,
    });
    expect(collection.id).toMatch(/^[0-9a-f]{24}$/);
    expect(collection.createdAt).toBeInstanceOf(Date);

    const added = await client.knowledgeStoreItemCollections.addItems(ksId, collection.id!, { itemIds: items });
    expect(added.memberCount).toBe(2);

    const members = await client.knowledgeStoreItemCollections.listItems(ksId, collection.id!);
    expect((members.data ?? []).map((i) => i.id)).toEqual(items);
    expect(members.data[0]).toMatchObject({ assetId: assetIds.video, assetType: 'video', systemMetadata: { assetType: 'video' } });

    const updated = await client.knowledgeStoreItemCollections.update(ksId, collection.id!, {
      description: 'Updated collection description',
    });
    expect(updated).toMatchObject({
      name: collection.name,
      description: 'Updated collection description',
      metadata: { group: 'highlights' },
    });

    await client.knowledgeStoreItemCollections.removeItems(ksId, collection.id!, { itemIds: [items[0]!] });
    expect((await client.knowledgeStoreItemCollections.retrieve(ksId, collection.id!)).memberCount).toBe(1);

    const cols = await client.knowledgeStoreItemCollections.list(ksId);
    expect((cols.data ?? []).map((c) => c.id)).toEqual([collection.id]);

    await client.knowledgeStoreItemCollections.delete(ksId, collection.id!);
    expect((await refusal(client.knowledgeStoreItemCollections.retrieve(ksId, collection.id!)))?.status).toBe(404);
    // The items remain in the knowledge store.
    expect((await client.knowledgeStores.retrieve(ksId)).itemCount).toBe(2);
    await client.knowledgeStores.delete(ksId);
  });

  it('lists collections sorted by name, created_at or updated_at, in pages the SDK walks', async () => {
    const ks = await client.knowledgeStores.create({ name: 'ks-collections-list' });
    for (const name of ['bravo', 'alpha', 'charlie']) await client.knowledgeStoreItemCollections.create(ks.id!, { name });
    const byName = await client.knowledgeStoreItemCollections.list(ks.id!, { sortBy: 'name', sortOption: 'asc', pageLimit: 2 });
    expect(byName.data.map((c) => c.name)).toEqual(['alpha', 'bravo']);
    const walked: string[] = [];
    for await (const c of await client.knowledgeStoreItemCollections.list(ks.id!, { sortBy: 'name', sortOption: 'desc', pageLimit: 2 }))
      walked.push(c.name!);
    expect(walked).toEqual(['charlie', 'bravo', 'alpha']);
    const oldest = await client.knowledgeStoreItemCollections.list(ks.id!, {
      sortBy: 'created_at',
      sortOption: 'asc',
      page: 1,
      pageLimit: 1,
    });
    expect(oldest.data.map((c) => c.name)).toEqual(['bravo']);
    const unknownSort = await raw('GET', `/knowledge-stores/${ks.id}/item-collections?sort_by=member_count`);
    expect(unknownSort.status).toBe(400);
    expect(await unknownSort.json()).toMatchObject({ code: 'parameter_invalid' });
    expect((await raw('GET', `/knowledge-stores/${ks.id}/item-collections?page_limit=51`)).status).toBe(400);
    await client.knowledgeStores.delete(ks.id!);
  });

  it('adds idempotently and lists members in the order added, in pages', async () => {
    const { ksId, items } = await storeWithItems('ks-collections-members');
    const col = await client.knowledgeStoreItemCollections.create(ksId, { name: 'members' });
    await client.knowledgeStoreItemCollections.addItems(ksId, col.id!, { itemIds: [items[1]!] });
    const again = await client.knowledgeStoreItemCollections.addItems(ksId, col.id!, { itemIds: [items[0]!, items[1]!] });
    expect(again.memberCount).toBe(2);
    const walked: string[] = [];
    for await (const item of await client.knowledgeStoreItemCollections.listItems(ksId, col.id!, { pageLimit: 1 })) walked.push(item.id!);
    expect(walked).toEqual([items[1], items[0]]);
    // A remove ignores ids that are not members.
    await client.knowledgeStoreItemCollections.removeItems(ksId, col.id!, { itemIds: [items[0]!, '6528dde58f9cd95a98cbd075'] });
    expect((await client.knowledgeStoreItemCollections.retrieve(ksId, col.id!)).memberCount).toBe(1);
    await client.knowledgeStores.delete(ksId);
  });

  it("refuses another store's items, duplicate names and ids, 501 ids and wrong types with 400s that say why", async () => {
    const first = await storeWithItems('ks-collections-refusals');
    const second = await storeWithItems('ks-collections-refusals-2');
    const col = await client.knowledgeStoreItemCollections.create(first.ksId, { name: 'refusals' });

    expect(
      await refusal(client.knowledgeStoreItemCollections.addItems(first.ksId, col.id!, { itemIds: [first.items[0]!, second.items[0]!] })),
    ).toEqual({
      status: 400,
      code: 'parameter_invalid',
      message: `The item_ids parameter is invalid. Every id must be an item of this knowledge store; this one is not: ${second.items[0]}. Nothing was added.`,
    });
    expect((await client.knowledgeStoreItemCollections.retrieve(first.ksId, col.id!)).memberCount).toBe(0);

    expect(await refusal(client.knowledgeStoreItemCollections.create(first.ksId, { name: 'refusals' }))).toMatchObject({
      status: 400,
      code: 'parameter_invalid',
      message: expect.stringContaining('names are unique within a store'),
    });
    // The same name in another store is no conflict.
    await client.knowledgeStoreItemCollections.create(second.ksId, { name: 'refusals' });

    expect(
      await refusal(client.knowledgeStoreItemCollections.addItems(first.ksId, col.id!, { itemIds: [first.items[0]!, first.items[0]!] })),
    ).toMatchObject({
      status: 400,
      message: `The item_ids parameter is invalid. It holds ${first.items[0]} more than once.`,
    });
    const tooMany = Array.from({ length: 501 }, (_, i) => i.toString(16).padStart(24, '0'));
    expect(await refusal(client.knowledgeStoreItemCollections.addItems(first.ksId, col.id!, { itemIds: tooMany }))).toMatchObject({
      status: 400,
      code: 'parameter_invalid',
      message: 'The item_ids parameter is invalid: at most 500 ids per request',
    });
    expect(await refusal(client.knowledgeStoreItemCollections.addItems(first.ksId, col.id!, { itemIds: [] }))).toMatchObject({
      status: 400,
    });

    const path = `/knowledge-stores/${first.ksId}/item-collections/${col.id}`;
    for (const [method, suffix, body, param] of [
      ['POST', '/items/add', { item_ids: 'not-a-list' }, 'item_ids'],
      ['POST', '/items/add', { item_ids: [42] }, 'item_ids.0'],
      ['POST', '/items/remove', {}, 'item_ids'],
      ['PATCH', '', { name: 7 }, 'name'],
      ['PATCH', '', { metadata: { a: 1 } }, 'metadata.a'],
      ['PATCH', '', { metadata: { a: null } }, 'metadata.a'],
      ['PATCH', '', { description: 'd'.repeat(2001) }, 'description'],
    ] as const) {
      const answer = await raw(method, `${path}${suffix}`, body);
      expect([method, suffix, answer.status]).toEqual([method, suffix, 400]);
      expect(await answer.json()).toMatchObject({ message: expect.stringContaining(`The ${param} parameter`) });
    }
    // A huge array: within the 1 MiB JSON limit it is the cap's 400; past it, 413 before anything is parsed.
    const huge = Array.from({ length: 30_000 }, (_, i) => i.toString(16).padStart(24, '0'));
    const capped = await raw('POST', `${path}/items/add`, { item_ids: huge });
    expect([capped.status, await capped.json()]).toEqual([
      400,
      expect.objectContaining({ message: expect.stringContaining('at most 500 ids') }),
    ]);
    expect((await raw('POST', `${path}/items/add`, { item_ids: [...huge, ...huge] })).status).toBe(413);
    const blank = await raw('POST', `/knowledge-stores/${first.ksId}/item-collections`, { name: '  ' });
    expect(blank.status).toBe(400);
    expect(
      (
        await raw('POST', `/knowledge-stores/${first.ksId}/item-collections`, {
          name: 'm',
          metadata: Object.fromEntries(tooMany.slice(0, 51).map((k) => [k, 'v'])),
        })
      ).status,
    ).toBe(400);
    for (const ks of [first, second]) await client.knowledgeStores.delete(ks.ksId);
  });

  it("answers 404 resource_not_exist for another organization's store, collection and unknown ids", async () => {
    const { ksId, items } = await storeWithItems('ks-collections-orgs');
    const col = await client.knowledgeStoreItemCollections.create(ksId, { name: 'private' });
    await client.knowledgeStoreItemCollections.addItems(ksId, col.id!, { itemIds: items });
    for (const attempt of [
      other.knowledgeStoreItemCollections.list(ksId),
      other.knowledgeStoreItemCollections.create(ksId, { name: 'theirs' }),
      other.knowledgeStoreItemCollections.retrieve(ksId, col.id!),
      other.knowledgeStoreItemCollections.update(ksId, col.id!, { name: 'x' }),
      other.knowledgeStoreItemCollections.listItems(ksId, col.id!),
      other.knowledgeStoreItemCollections.addItems(ksId, col.id!, { itemIds: items }),
      other.knowledgeStoreItemCollections.removeItems(ksId, col.id!, { itemIds: items }),
      other.knowledgeStoreItemCollections.delete(ksId, col.id!),
      client.knowledgeStoreItemCollections.retrieve(ksId, '6528dde58f9cd95a98cbd075'),
      client.knowledgeStoreItemCollections.retrieve(ksId, 'not-an-id'),
      client.knowledgeStoreItemCollections.list('6528dde58f9cd95a98cbd075'),
    ]) {
      expect(await refusal(attempt)).toMatchObject({ status: 404, code: 'resource_not_exist' });
    }
    expect((await client.knowledgeStoreItemCollections.retrieve(ksId, col.id!)).memberCount).toBe(2);
    await client.knowledgeStores.delete(ksId);
  });

  it('drops the memberships of a deleted item; a deleted store takes its collections', async () => {
    const { ksId, items } = await storeWithItems('ks-collections-cascade');
    const col = await client.knowledgeStoreItemCollections.create(ksId, { name: 'cascade' });
    await client.knowledgeStoreItemCollections.addItems(ksId, col.id!, { itemIds: items });
    await client.knowledgeStoreItems.delete(ksId, items[0]!);
    const members = await client.knowledgeStoreItemCollections.listItems(ksId, col.id!);
    expect(members.data.map((i) => i.id)).toEqual([items[1]]);
    await client.knowledgeStores.delete(ksId);
    expect(await refusal(client.knowledgeStoreItemCollections.retrieve(ksId, col.id!))).toMatchObject({ status: 404 });
  });

  it('is v1.3 only: v1.2 answers api_upgrade_required', async () => {
    const answer = await fetch(`${stack.url}/v1.2/knowledge-stores/6528dde58f9cd95a98cbd075/item-collections`, {
      headers: { 'x-api-key': key },
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'api_upgrade_required' });
  });

  it('answers as the v1.3 OpenAPI document says', async () => {
    expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
  });
});
