/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Knowledge stores and their items end to end with the official 1.x SDK, unchanged (v1.3):
 * TwelveLabs.knowledgeStores and knowledgeStoreItems as examples/knowledgeStores.ts calls them
 * (create with each ingestion_config variant, retrieve, update, list pages, delete; items from a
 * ready video and image asset, processed by the worker until ready, listed by status, their index
 * hidden from /indexes), another organization's ids answered 404, and
 * every answer checked against the v1.3 OpenAPI document.
 */
import { createTaskClient } from '@vus/clients';
import { photoPath, silentVideo } from '@vus/testing';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { readyAsset, sleep } from './sdk-assets';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let client: TwelveLabs;
let owner: { orgId: string; key: string };
let other: TwelveLabs;
let recorder: RecordingProxy;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

beforeAll(async () => {
  // The worker processes items (issue 33).
  stack = await startIndexingStack({ worker: true });
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  owner = await stack.newOrg();
  client = new TwelveLabs({ apiKey: owner.key });
  other = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
}, 120_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await recorder?.stop();
  await stack?.stop();
});

/** The HTTP status of the SDK's error (TwelvelabsApiError and its subclasses carry statusCode), or undefined when it succeeds. */
const statusOf = async (call: Promise<unknown>): Promise<number | undefined> => {
  try {
    await call;
    return undefined;
  } catch (error) {
    return (error as { statusCode?: number }).statusCode ?? -1;
  }
};

describe('knowledge stores (twelvelabs-js 1.x)', () => {
  it('creates stores with each ingestion_config variant; ingestion_config stays as created', async () => {
    const plain = await client.knowledgeStores.create({ name: 'ks-plain', description: 'No enrichment config', metadata: { team: 'qa' } });
    expect(plain).toMatchObject({ name: 'ks-plain', description: 'No enrichment config', itemCount: 0, metadata: { team: 'qa' } });
    expect(plain.ingestionConfig).toBeUndefined();
    expect(plain.createdAt).toBeInstanceOf(Date);

    const described = await client.knowledgeStores.create({
      name: 'ks-desc',
      ingestionConfig: { enrichmentConfig: { type: 'description', description: 'The main subject of each shot.' } },
    });
    expect(described.ingestionConfig).toEqual({ enrichmentConfig: { type: 'description', description: 'The main subject of each shot.' } });

    const jsonSchema = { type: 'object' as const, properties: { subject: { type: 'string', description: 'The primary subject.' } } };
    const schemed = await client.knowledgeStores.create({
      name: 'ks-schema',
      ingestionConfig: { enrichmentConfig: { type: 'json_schema', jsonSchema } },
    });
    const updated = await client.knowledgeStores.update(schemed.id!, { name: 'ks-schema-renamed', metadata: { stage: 'updated' } });
    expect(updated).toMatchObject({ name: 'ks-schema-renamed', metadata: { stage: 'updated' } });
    expect(updated.ingestionConfig).toEqual({ enrichmentConfig: { type: 'json_schema', jsonSchema } });

    // Unsupported schema keywords and properties without a description are refused, as the reference says.
    const refused = client.knowledgeStores.create({
      name: 'ks-bad',
      ingestionConfig: { enrichmentConfig: { type: 'json_schema', jsonSchema: { type: 'object', properties: { a: { type: 'string' } } } } },
    });
    expect(await statusOf(refused)).toBe(400);
    for (const ks of [plain, described, schemed]) await client.knowledgeStores.delete(ks.id!);
  });

  it('retrieves, updates, lists in pages and deletes; another organization gets 404', async () => {
    const client = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
    const ks = await client.knowledgeStores.create({ name: 'ks-crud' });
    for (const name of ['ks-b', 'ks-c']) await client.knowledgeStores.create({ name });
    const retrieved = await client.knowledgeStores.retrieve(ks.id!);
    expect(retrieved).toMatchObject({ id: ks.id, name: 'ks-crud', itemCount: 0 });

    const updated = await client.knowledgeStores.update(ks.id!, { description: 'Updated description', metadata: { stage: 'updated' } });
    expect(updated).toMatchObject({ name: 'ks-crud', description: 'Updated description', metadata: { stage: 'updated' } });

    const first = await client.knowledgeStores.list({ pageLimit: 2, sortOption: 'asc' });
    expect(first.data.map((s) => s.name)).toEqual(['ks-crud', 'ks-b']);
    const all: string[] = [];
    for await (const store of await client.knowledgeStores.list({ pageLimit: 2, sortOption: 'asc' })) all.push(store.name!);
    expect(all).toEqual(['ks-crud', 'ks-b', 'ks-c']);

    expect(await statusOf(other.knowledgeStores.retrieve(ks.id!))).toBe(404);
    expect(await statusOf(other.knowledgeStores.update(ks.id!, { name: 'x' }))).toBe(404);
    expect(await statusOf(other.knowledgeStores.delete(ks.id!))).toBe(404);
    expect((await other.knowledgeStores.list()).data).toEqual([]);

    await client.knowledgeStores.delete(ks.id!);
    expect(await statusOf(client.knowledgeStores.retrieve(ks.id!))).toBe(404);
  });

  it('adds a ready video and image as items processed until ready; lists by status; their index stays hidden; deletes them', async () => {
    const [videoAssetId, imageAssetId] = await Promise.all([
      readyAsset(client, (await silentVideo()).path),
      readyAsset(client, await photoPath('cat')),
    ]);
    const ks = await client.knowledgeStores.create({ name: 'ks-items' });

    const video = await client.knowledgeStoreItems.create(ks.id!, {
      assetId: videoAssetId,
      assetType: 'video',
      metadata: { scene: 'intro' },
    });
    expect(video).toMatchObject({ assetId: videoAssetId, assetType: 'video', metadata: { scene: 'intro' } });
    // Its indexing task is checking the media: queued (as the reference creates an item), never a ready that search cannot back.
    expect(video.status).toBe('queued');
    expect(video.systemMetadata).toMatchObject({ assetType: 'video', width: 640, height: 480 });
    const image = await client.knowledgeStoreItems.create(ks.id!, { assetId: imageAssetId });
    expect(image).toMatchObject({ assetType: 'image', status: 'queued', systemMetadata: { assetType: 'image' } });

    expect(await statusOf(client.knowledgeStoreItems.create(ks.id!, { assetId: imageAssetId, assetType: 'video' }))).toBe(400);
    expect(await statusOf(other.knowledgeStoreItems.create(ks.id!, { assetId: imageAssetId }))).toBe(404);
    expect(await statusOf(other.knowledgeStoreItems.retrieve(ks.id!, video.id!))).toBe(404);
    expect((await client.knowledgeStores.retrieve(ks.id!)).itemCount).toBe(2);

    for (const id of [video.id!, image.id!]) {
      for (;;) {
        const item = await client.knowledgeStoreItems.retrieve(ks.id!, id);
        if (item.status === 'ready') break;
        if (item.status === 'failed') throw new Error(`item ${id} failed`);
        await sleep(200);
      }
    }
    const ready = await client.knowledgeStoreItems.list(ks.id!, { status: 'ready' });
    expect(ready.data.map((i) => i.id).sort()).toEqual([video.id, image.id].sort());
    expect((await client.knowledgeStoreItems.list(ks.id!, { status: ['queued', 'pending', 'processing'] })).data).toEqual([]);

    // The store's index (task-service knows it) is no index of the user's: not listed, and its id is unknown to /indexes.
    const { orgId } = owner;
    const tasks = createTaskClient(stack.taskService.address);
    const { index_id: indexId } = await tasks
      .resolveKnowledgeStoreItems({ orgId, deadline: new Date(Date.now() + 10_000) }, { knowledge_store_id: ks.id! })
      .finally(() => tasks.close());
    expect(indexId).not.toBe('');
    expect((await client.indexes.list()).data.map((i) => i.id)).not.toContain(indexId);
    expect(await statusOf(client.indexes.retrieve(indexId))).toBe(404);
    expect(await statusOf(client.indexes.videos.list(indexId))).toBe(404);
    expect(await statusOf(client.indexes.update(indexId, { indexName: 'mine now' }))).toBe(404);
    expect(await statusOf(client.indexes.delete(indexId))).toBe(404);
    expect((await client.tasks.list()).data).toEqual([]);

    await client.knowledgeStoreItems.delete(ks.id!, video.id!);
    expect(await statusOf(client.knowledgeStoreItems.retrieve(ks.id!, video.id!))).toBe(404);
    await client.knowledgeStores.delete(ks.id!);
    expect((await client.assets.retrieve(imageAssetId)).status).toBe('ready');
  }, 240_000);

  it('is v1.3 only: v1.2 answers api_upgrade_required', async () => {
    const { key } = await stack.newOrg();
    const answer = await fetch(`${stack.url}/v1.2/knowledge-stores`, { headers: { 'x-api-key': key } });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'api_upgrade_required' });
  });

  it('answers as the v1.3 OpenAPI document says', async () => {
    expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
  });
});
