/*
 * Entity collections and entities end to end (issue 32 §1), v1.3: through the official 1.x SDK,
 * unchanged (TwelveLabs.entityCollections and .entities as reference.md calls them: CRUD, bulk,
 * pages with name/status filters and sort by name, add/remove assets, listByAsset), another
 * organization's ids answered 404 resource_not_exist, every answer checked against the v1.3
 * OpenAPI document; and over plain HTTP what the SDK's types cannot send: wrong types, huge arrays,
 * malformed ids, v1.2.
 */
import { photoPath, shortVideo } from '@vus/testing';
import { createReadStream } from 'node:fs';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { readyAsset } from './sdk-assets';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let client: TwelveLabs;
let other: TwelveLabs;
let key: string;
let recorder: RecordingProxy;
/** Ready image assets of `client`'s organization, and a ready video asset. */
let images: string[];
let video: string;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

beforeAll(async () => {
  stack = await startIndexingStack();
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  key = (await stack.newOrg()).key;
  client = new TwelveLabs({ apiKey: key });
  other = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
  const paths = await Promise.all([photoPath('people'), photoPath('cat'), photoPath('phone')]);
  images = await Promise.all(paths.map((path) => readyAsset(client, path)));
  video = await readyAsset(client, (await shortVideo()).path);
}, 180_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await recorder?.stop();
  await stack?.stop();
});

/** The HTTP status of the SDK's error, or undefined when the call succeeds. */
const statusOf = async (call: Promise<unknown>): Promise<number | undefined> => {
  try {
    await call;
    return undefined;
  } catch (error) {
    return (error as { statusCode?: number }).statusCode ?? -1;
  }
};
/** The SDK error's status and body. */
const errorOf = async (call: Promise<unknown>): Promise<{ status?: number; body?: unknown }> => {
  try {
    await call;
    return {};
  } catch (error) {
    const e = error as { statusCode?: number; body?: unknown };
    return { status: e.statusCode, body: e.body };
  }
};

/** A raw v1.3 request as the given organization's key. */
async function http(
  method: string,
  path: string,
  body?: unknown,
  apiKey = key,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${stack.url}/v1.3${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await answer.text();
  return { status: answer.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('entity collections (twelvelabs-js 1.x)', () => {
  it('creates, retrieves, updates, lists in pages by name and sort, deletes; another organization gets 404', async () => {
    const tl = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
    const players = await tl.entityCollections.create({ name: 'Players', description: 'The team' });
    expect(players).toMatchObject({ name: 'Players', description: 'The team' });
    expect(players.id).toMatch(/^[0-9a-f]{24}$/);
    expect(players.createdAt).toBeInstanceOf(Date);
    for (const name of ['coaches', 'Referees']) await tl.entityCollections.create({ name });

    expect(await tl.entityCollections.retrieve(players.id!)).toEqual(players);
    const renamed = await tl.entityCollections.update(players.id!, { name: 'Squad' });
    expect(renamed).toMatchObject({ id: players.id, name: 'Squad', description: 'The team' });
    // The reference's own call: an update with nothing changes nothing.
    expect(await tl.entityCollections.update(players.id!)).toMatchObject({ name: 'Squad', description: 'The team' });

    const byName = await tl.entityCollections.list({ sortBy: 'name', sortOption: 'asc', pageLimit: 2 });
    expect(byName.data.map((c) => c.name)).toEqual(['coaches', 'Referees']);
    const all: string[] = [];
    for await (const c of await tl.entityCollections.list({ sortBy: 'name', sortOption: 'asc', pageLimit: 2 })) all.push(c.name!);
    expect(all).toEqual(['coaches', 'Referees', 'Squad']);
    expect((await tl.entityCollections.list({ name: 'REF' })).data.map((c) => c.name)).toEqual(['Referees']);

    expect(await errorOf(other.entityCollections.retrieve(players.id!))).toMatchObject({
      status: 404,
      body: { code: 'resource_not_exist' },
    });
    expect(await statusOf(other.entityCollections.update(players.id!, { name: 'x' }))).toBe(404);
    expect(await statusOf(other.entityCollections.delete(players.id!))).toBe(404);
    expect((await other.entityCollections.list()).data).toEqual([]);

    await tl.entityCollections.delete(players.id!);
    expect(await statusOf(tl.entityCollections.retrieve(players.id!))).toBe(404);
    expect(await statusOf(tl.entityCollections.delete(players.id!))).toBe(404);
  });
});

describe('entities (twelvelabs-js 1.x)', () => {
  it('creates an entity from ready images, retrieves, updates (metadata replaced), lists with filters, deletes', async () => {
    const collection = await client.entityCollections.create({ name: 'People' });
    const metadata = { sport: 'soccer', teamId: 42, performanceScore: 8.7, isActive: true };
    const entity = await client.entityCollections.entities.create(collection.id!, {
      name: 'Alice',
      description: 'Forward',
      metadata,
      assetIds: [images[0]!, images[1]!, images[0]!],
    });
    expect(entity).toMatchObject({
      entityCollectionId: collection.id,
      name: 'Alice',
      description: 'Forward',
      metadata,
      assetIds: [images[0], images[1]],
      status: 'ready',
    });
    expect(await client.entityCollections.entities.retrieve(collection.id!, entity.id!)).toEqual(entity);

    const updated = await client.entityCollections.entities.update(collection.id!, entity.id!, { metadata: { role: 'captain' } });
    expect(updated).toMatchObject({
      name: 'Alice',
      description: 'Forward',
      metadata: { role: 'captain' },
      assetIds: [images[0], images[1]],
    });
    expect((await client.entityCollections.entities.update(collection.id!, entity.id!, { name: 'Alicia' })).metadata).toEqual({
      role: 'captain',
    });

    await client.entityCollections.entities.create(collection.id!, { name: 'Bob', assetIds: [images[2]!] });
    const page = await client.entityCollections.entities.list(collection.id!, { sortBy: 'name', sortOption: 'desc', status: 'ready' });
    expect(page.data.map((e) => e.name)).toEqual(['Bob', 'Alicia']);
    expect((await client.entityCollections.entities.list(collection.id!, { name: 'lic' })).data.map((e) => e.name)).toEqual(['Alicia']);
    expect((await client.entityCollections.entities.list(collection.id!, { status: 'processing' })).data).toEqual([]);

    expect(await statusOf(other.entityCollections.entities.retrieve(collection.id!, entity.id!))).toBe(404);
    expect(await statusOf(other.entityCollections.entities.list(collection.id!))).toBe(404);
    expect(await statusOf(other.entityCollections.entities.update(collection.id!, entity.id!, { name: 'x' }))).toBe(404);
    expect(await statusOf(other.entityCollections.entities.delete(collection.id!, entity.id!))).toBe(404);

    await client.entityCollections.entities.delete(collection.id!, entity.id!);
    expect(await statusOf(client.entityCollections.entities.retrieve(collection.id!, entity.id!))).toBe(404);
    // Deleting the collection takes its entities, never their assets.
    await client.entityCollections.delete(collection.id!);
    expect((await client.assets.retrieve(images[2]!)).status).toBe('ready');
  });

  it('needs ready image assets of the organization: none, a video, another organization’s or unknown ones are refused', async () => {
    const collection = await client.entityCollections.create({ name: 'Refusals' });
    const create = (assetIds: string[]) => errorOf(client.entityCollections.entities.create(collection.id!, { name: 'X', assetIds }));
    expect(await create([])).toMatchObject({ status: 400, body: { code: 'parameter_invalid' } });
    const asVideo = await create([video]);
    expect(asVideo).toMatchObject({ status: 400, body: { code: 'parameter_invalid' } });
    expect((asVideo.body as { message: string }).message).toContain('must be images');
    expect(await create(['0123456789abcdef01234567'])).toMatchObject({ status: 404, body: { code: 'resource_not_exist' } });
    const theirs = await other.assets.create({ method: 'direct', file: createReadStream(await photoPath('cat')) });
    expect(await create([theirs.id!])).toMatchObject({ status: 404, body: { code: 'resource_not_exist' } });
    // Another organization cannot name this organization's images either.
    const otherCollection = await other.entityCollections.create({ name: 'Theirs' });
    expect(await statusOf(other.entityCollections.entities.create(otherCollection.id!, { name: 'X', assetIds: [images[0]!] }))).toBe(404);
    await client.entityCollections.delete(collection.id!);
  });

  it('waits for an image asset still processing (created just before, as examples/entities.ts does)', async () => {
    const collection = await client.entityCollections.create({ name: 'Fresh' });
    const fresh = await client.assets.create({ method: 'direct', file: createReadStream(await photoPath('people')) });
    const entity = await client.entityCollections.entities.create(collection.id!, { name: 'Fresh', assetIds: [fresh.id!] });
    expect(entity).toMatchObject({ assetIds: [fresh.id], status: 'ready' });
    await client.entityCollections.delete(collection.id!);
  });

  it('bulk creates the valid entities and reports the others by position', async () => {
    const collection = await client.entityCollections.create({ name: 'Roster' });
    const result = await client.entityCollections.entities.createBulk(collection.id!, {
      entities: [
        { name: 'One', assetIds: [images[0]!] },
        { name: 'Video', assetIds: [video] },
        { name: 'Two', description: 'second', metadata: { n: 2 }, assetIds: [images[1]!, images[2]!] },
        { name: 'None', assetIds: [] },
        { name: '   ', assetIds: [images[0]!] },
      ],
    });
    expect(result.successCount).toBe(2);
    expect(result.failedCount).toBe(3);
    expect(result.entities!.map((e) => [e.name, e.status])).toEqual([
      ['One', 'ready'],
      ['Two', 'ready'],
    ]);
    expect(result.errors!.map((e) => [e.entityIndex, e.entityName])).toEqual([
      [1, 'Video'],
      [3, 'None'],
      [4, '   '],
    ]);
    expect(result.errors!.every((e) => e.errorReason && e.errorReason.length > 10)).toBe(true);
    const two = await client.entityCollections.entities.retrieve(collection.id!, result.entities![1]!.id!);
    expect(two).toMatchObject({ name: 'Two', description: 'second', metadata: { n: 2 }, assetIds: [images[1], images[2]] });
    await client.entityCollections.delete(collection.id!);
  });

  it('adds and removes assets; the last one stays; listByAsset finds the entities of any collection', async () => {
    const a = await client.entityCollections.create({ name: 'A' });
    const b = await client.entityCollections.create({ name: 'B' });
    const alice = await client.entityCollections.entities.create(a.id!, { name: 'Alice', assetIds: [images[0]!] });
    const bob = await client.entityCollections.entities.create(b.id!, { name: 'Bob', assetIds: [images[1]!] });

    const added = await client.entityCollections.entities.createAssets(a.id!, alice.id!, {
      assetIds: [images[1]!, images[0]!, images[2]!],
    });
    expect(added.assetIds).toEqual([images[0], images[1], images[2]]);
    const byAsset = await client.entityCollections.entities.listByAsset(images[1]!);
    expect(byAsset.data.map((e) => e.name).sort()).toEqual(['Alice', 'Bob']);
    expect((await client.entityCollections.entities.listByAsset(images[1]!, { pageLimit: 1 })).data).toHaveLength(1);
    const all: string[] = [];
    for await (const e of await client.entityCollections.entities.listByAsset(images[1]!, { pageLimit: 1 })) all.push(e.name!);
    expect(all.sort()).toEqual(['Alice', 'Bob']);

    const removed = await client.entityCollections.entities.deleteAssets(a.id!, alice.id!, { assetIds: [images[0]!, images[1]!] });
    expect(removed.assetIds).toEqual([images[2]]);
    expect((await client.entityCollections.entities.listByAsset(images[1]!)).data.map((e) => e.name)).toEqual(['Bob']);
    const last = await errorOf(client.entityCollections.entities.deleteAssets(a.id!, alice.id!, { assetIds: [images[2]!] }));
    expect(last).toMatchObject({ status: 400, body: { code: 'parameter_invalid' } });
    expect((last.body as { message: string }).message).toContain('at least one asset');
    expect(await statusOf(client.entityCollections.entities.createAssets(a.id!, alice.id!, { assetIds: [video] }))).toBe(400);

    expect(await statusOf(other.entityCollections.entities.createAssets(a.id!, alice.id!, { assetIds: [images[0]!] }))).toBe(404);
    expect(await statusOf(other.entityCollections.entities.deleteAssets(a.id!, alice.id!, { assetIds: [images[2]!] }))).toBe(404);
    expect(await errorOf(other.entityCollections.entities.listByAsset(images[1]!))).toMatchObject({
      status: 404,
      body: { code: 'resource_not_exist' },
    });
    // An asset no entity shows: an empty page.
    expect((await client.entityCollections.entities.listByAsset(video)).data).toEqual([]);
    for (const c of [a, b]) await client.entityCollections.delete(c.id!);
    expect(bob.id).toBeDefined();
  });
});

describe('hostile requests over HTTP', () => {
  let collectionId: string;
  beforeAll(async () => {
    collectionId = (await client.entityCollections.create({ name: 'Hostile' })).id!;
  });

  it.each([
    ['a collection without a name', 'POST', '/entity-collections', {}, 'parameter_not_provided', 'name'],
    ['a number for a name', 'POST', '/entity-collections', { name: 5 }, 'parameter_invalid', 'name'],
    ['a blank name', 'POST', '/entity-collections', { name: '  ' }, 'parameter_not_provided', 'name'],
    ['a name of 300 characters', 'PATCH', '/entity-collections/:c', { name: 'n'.repeat(300) }, 'parameter_invalid', 'name'],
    [
      'a description of 3000 characters',
      'POST',
      '/entity-collections',
      { name: 'x', description: 'd'.repeat(3000) },
      'parameter_invalid',
      'description',
    ],
    ['no asset_ids', 'POST', '/entity-collections/:c/entities', { name: 'x' }, 'parameter_not_provided', 'asset_ids'],
    ['asset_ids as a string', 'POST', '/entity-collections/:c/entities', { name: 'x', asset_ids: 'abc' }, 'parameter_invalid', 'asset_ids'],
    [
      'a malformed asset id',
      'POST',
      '/entity-collections/:c/entities',
      { name: 'x', asset_ids: ['../etc'] },
      'parameter_invalid',
      'asset_ids.0',
    ],
    [
      '51 asset ids',
      'POST',
      '/entity-collections/:c/entities',
      { name: 'x', asset_ids: Array(51).fill('0'.repeat(24)) },
      'parameter_invalid',
      'asset_ids',
    ],
    [
      'nested metadata',
      'POST',
      '/entity-collections/:c/entities',
      { name: 'x', asset_ids: [], metadata: { a: { b: 1 } } },
      'parameter_invalid',
      'metadata.a',
    ],
    [
      'metadata as an array',
      'PATCH',
      '/entity-collections/:c/entities/0123456789abcdef01234567',
      { metadata: [1] },
      'parameter_invalid',
      'metadata',
    ],
    ['no entities', 'POST', '/entity-collections/:c/entities/bulk', { entities: [] }, 'parameter_invalid', 'entities'],
    [
      '101 entities',
      'POST',
      '/entity-collections/:c/entities/bulk',
      { entities: Array(101).fill({ name: 'x', asset_ids: [] }) },
      'parameter_invalid',
      'entities',
    ],
    ['an entity of the wrong type', 'POST', '/entity-collections/:c/entities/bulk', { entities: ['x'] }, 'parameter_invalid', 'entities.0'],
    [
      'no asset ids to add',
      'POST',
      '/entity-collections/:c/entities/0123456789abcdef01234567/assets',
      { asset_ids: [] },
      'parameter_invalid',
      'asset_ids',
    ],
    ['an unknown sort', 'GET', '/entity-collections?sort_by=size', undefined, 'parameter_invalid', 'sort_by'],
    ['an unknown status', 'GET', '/entity-collections/:c/entities?status=gone', undefined, 'parameter_invalid', 'status'],
    ['a page limit of 51', 'GET', '/entity-collections/:c/entities?page_limit=51', undefined, 'parameter_invalid', 'page_limit'],
  ] as const)('%s: 400 %s on %s', async (_, method, path, body, code, param) => {
    const answer = await http(method, path.replace(':c', collectionId), body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code });
    expect(String(answer.body.message)).toContain(param.split('.')[0]);
  });

  it('JSON that does not parse is a 400, not a 500', async () => {
    const answer = await http('POST', `/entity-collections/${collectionId}/entities`, '{"name": "x", "asset_ids": [');
    expect(answer.status).toBe(400);
  });

  it.each([
    ['GET', '/entity-collections/not-an-id'],
    ['GET', '/entity-collections/0123456789abcdef01234567'],
    ['GET', '/entity-collections/:c/entities/0123456789abcdef01234567'],
    ['DELETE', '/entity-collections/:c/entities/not-an-id'],
    ['GET', '/assets/0123456789abcdef01234567/entities'],
    ['GET', '/assets/not-an-id/entities'],
  ])('%s %s: 404 resource_not_exist', async (method, path) => {
    const answer = await http(method, path.replace(':c', collectionId));
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'resource_not_exist' });
  });

  it('a missing collection is answered at once, not after waiting for assets', async () => {
    const fresh = await client.assets.create({ method: 'direct', file: createReadStream(await photoPath('phone')) });
    const answer = await http('POST', '/entity-collections/0123456789abcdef01234567/entities', { name: 'x', asset_ids: [fresh.id] });
    expect(answer).toMatchObject({ status: 404, body: { code: 'resource_not_exist' } });
  });

  it('is v1.3 only: v1.2 answers api_upgrade_required', async () => {
    for (const path of ['/entity-collections', `/assets/${images[0]}/entities`]) {
      const answer = await fetch(`${stack.url}/v1.2${path}`, { headers: { 'x-api-key': key } });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'api_upgrade_required' });
    }
  });
});

it('answers as the v1.3 OpenAPI document says', async () => {
  const entityExchanges = recorder.exchanges.filter((e) => /entit/.test(e.url));
  expect(entityExchanges.length).toBeGreaterThan(30);
  expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
});
