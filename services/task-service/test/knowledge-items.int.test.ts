/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Knowledge-store items through the indexing pipeline (issue 33): task-service on PostgreSQL with
 * its worker, and index-service, over gRPC. A video item and an image item (a still video of it)
 * from real assets go pending → processing → ready; resolve answers their videos in the store's
 * internal index, which ListIndexes never shows, and their tasks are neither listed nor sent to
 * webhooks; deleting an item deletes its video, deleting its asset too, deleting the store its index.
 */
import { createIndexClient, createTaskClient, type IndexClient, type TaskClient } from '@vus/clients';
import { isApiError, newId } from '@vus/core';
import { InProcessEventBus } from '@vus/events';
import type { OutgoingContext } from '@vus/grpc';
import type { KnowledgeStoreItem } from '@vus/grpc/types/task/v1/KnowledgeStoreItem';
import { photoPath, silentVideo, waitFor } from '@vus/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllowList } from '../src/main';
import { stillVideoKey } from '../src/worker/stages/still';
import { startTaskStack, type TaskStack } from './stack';

const ORG = newId();
const OTHER_ORG = newId();

let stack: TaskStack;
let tasks: TaskClient;
let indexes: IndexClient;
const ctx = (orgId = ORG): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + 30_000) });

/** An asset of the file, made as POST /assets makes one (the upload stored, then processed), once ready. */
async function readyAsset(path: string, filename: string): Promise<string> {
  const blobKey = await stack.upload(path);
  const created = await tasks.createAsset(ctx(), { method: 'direct', blob_key: blobKey, filename });
  for (const deadline = Date.now() + 30_000; ;) {
    const asset = await tasks.getAsset(ctx(), created.id);
    if (asset.status === 'ready') return asset.id;
    if (asset.status === 'failed' || Date.now() > deadline) throw new Error(`asset ${filename} is ${asset.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls the item until it is ready or failed; every status it was seen in, in order, without repeats. */
async function statusesUntilSettled(storeId: string, first: KnowledgeStoreItem): Promise<string[]> {
  const seen = [first.status];
  for (const deadline = Date.now() + 120_000; ;) {
    const item = await tasks.getKnowledgeStoreItem(ctx(), storeId, first.id);
    if (item.status !== seen.at(-1)) seen.push(item.status);
    if (item.status === 'failed') seen.push(await failureOf(first.id));
    if (item.status === 'ready' || item.status === 'failed') return seen;
    if (Date.now() > deadline) throw new Error(`item ${first.id} is still ${item.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Why the item's task failed (shown in the assertion that fails). */
async function failureOf(itemId: string): Promise<string> {
  const { rows } = await stack.database!.db.query<{ failure_code: string; failure_message: string }>(
    'SELECT t.failure_code, t.failure_message FROM tasks t JOIN knowledge_store_items i ON i.task_id = t.id WHERE i.id = $1',
    [itemId],
  );
  return JSON.stringify(rows[0]);
}

/** The id of the item's task. */
async function taskOf(itemId: string): Promise<string> {
  const { rows } = await stack.database!.db.query<{ task_id: string }>('SELECT task_id FROM knowledge_store_items WHERE id = $1', [itemId]);
  return rows[0]!.task_id;
}

/** The bodies of the webhook deliveries planned so far. */
async function deliveryBodies(): Promise<string[]> {
  return (await stack.database!.db.query<{ body: string }>('SELECT body FROM webhook_deliveries')).rows.map((r) => r.body);
}

const codeOf = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'ok',
    (error: unknown) => (isApiError(error) ? error.code : String(error)),
  );

beforeAll(async () => {
  stack = await startTaskStack({
    name: 'knowledge-items',
    bus: new InProcessEventBus(),
    database: 'postgres',
    worker: () => ({}),
    // Deliveries are planned (and checked), never sent.
    taskService: { webhooks: { allowList: parseAllowList('localhost'), dispatch: false } },
  });
  tasks = createTaskClient(stack.taskService.address);
  indexes = createIndexClient(stack.indexService.address);
  await tasks.createWebhookEndpoint(ctx(), { url: 'http://localhost:9/hook', event_types: [] });
}, 60_000);

afterAll(async () => {
  tasks?.close();
  indexes?.close();
  await stack?.stop();
});

it('processes a video item and an image item into the store’s index until ready; resolve answers their videos; deletes remove them', async () => {
  const [videoAsset, imageAsset] = [
    await readyAsset((await silentVideo()).path, 'silence.mp4'),
    await readyAsset(await photoPath('cat'), 'cat.png'),
  ];
  const store = await tasks.createKnowledgeStore(ctx(), { name: 'library', description: '', metadata: {} });
  const video = await tasks.createKnowledgeStoreItem(ctx(), {
    knowledge_store_id: store.id,
    asset_id: videoAsset,
    asset_type: 'video',
    metadata: { part: 'one' },
  });
  const image = await tasks.createKnowledgeStoreItem(ctx(), {
    knowledge_store_id: store.id,
    asset_id: imageAsset,
    asset_type: '',
    metadata: {},
  });
  expect([video.status, image.status, image.asset_type]).toEqual(['queued', 'queued', 'image']);
  // The image's still video is the worker's to make: none exists when the item is created.
  const stillKey = stillVideoKey(await taskOf(image.id));
  expect(await stack.blobs.stat(stillKey)).toBeUndefined();

  // Each goes through the pipeline's steps in order (pending, waiting for a worker, may pass between two polls).
  for (const item of [video, image]) {
    const seen = await statusesUntilSettled(store.id, item);
    expect(seen.filter((s) => s !== 'pending')).toEqual(['queued', 'processing', 'ready']);
  }

  const resolved = await tasks.resolveKnowledgeStoreItems(ctx(), {
    knowledge_store_id: store.id,
    item_ids: [],
    collection_ids: [],
    asset_type: '',
  });
  expect(resolved.index_id).not.toBe('');
  expect(
    resolved.items.map(({ item_id, asset_type, status, title, duration, metadata }) => ({
      item_id,
      asset_type,
      status,
      title,
      duration,
      metadata,
    })),
  ).toEqual([
    { item_id: video.id, asset_type: 'video', status: 'ready', title: 'silence.mp4', duration: 6, metadata: { part: 'one' } },
    { item_id: image.id, asset_type: 'image', status: 'ready', title: 'cat.png', duration: 0, metadata: {} },
  ]);
  const [videoId, stillId] = resolved.items.map((i) => i.video_id);
  expect(await stack.blobs.stat(stillKey)).toBeDefined();
  // Both are videos of the store's index: the still is 4 s of the image.
  expect((await indexes.getVideo(ctx(), resolved.index_id, videoId!)).system_metadata?.duration).toBeCloseTo(6, 0);
  expect((await indexes.getVideo(ctx(), resolved.index_id, stillId!)).system_metadata?.duration).toBeCloseTo(4, 0);
  const images = await tasks.resolveKnowledgeStoreItems(ctx(), { knowledge_store_id: store.id, asset_type: 'image' });
  expect(images.items.map((i) => i.item_id)).toEqual([image.id]);

  // The index is internal: never listed; the items' tasks are not the user's tasks either.
  expect((await indexes.listIndexes(ctx(), {})).data).toEqual([]);
  expect((await tasks.listTasks(ctx(), {})).data).toEqual([]);
  // Webhooks: the items' tasks send nothing (their index is the store's); a task into the user's own index does.
  const mine = await stack.createIndex(ORG, ['visual']);
  const control = await tasks.createTask(ctx(), {
    index_id: mine,
    video_blob_key: await stack.upload((await silentVideo()).path),
    filename: 'mine.mp4',
  });
  await waitFor(async () => (await deliveryBodies()).some((body) => body.includes(control.id)), "the user's task webhook");
  const itemTasks = await stack.database!.db.query<{ task_id: string }>(
    'SELECT task_id FROM knowledge_store_items WHERE task_id IS NOT NULL',
  );
  expect(itemTasks.rows).toHaveLength(2);
  expect((await deliveryBodies()).filter((body) => itemTasks.rows.some((r) => body.includes(r.task_id)))).toEqual([]);

  // Another organization resolves nothing of it.
  expect(await codeOf(tasks.resolveKnowledgeStoreItems(ctx(OTHER_ORG), { knowledge_store_id: store.id }))).toBe('resource_not_exist');

  await tasks.deleteKnowledgeStoreItem(ctx(), store.id, video.id);
  expect(await codeOf(indexes.getVideo(ctx(), resolved.index_id, videoId!))).toBe('resource_not_exist');
  expect((await tasks.resolveKnowledgeStoreItems(ctx(), { knowledge_store_id: store.id })).items.map((i) => i.item_id)).toEqual([image.id]);

  // Deleting an asset takes its items, and their videos after them; the asset was not "in use" by them.
  await tasks.deleteAsset(ctx(), imageAsset);
  expect((await tasks.resolveKnowledgeStoreItems(ctx(), { knowledge_store_id: store.id })).items).toEqual([]);
  expect(await codeOf(indexes.getVideo(ctx(), resolved.index_id, stillId!))).toBe('resource_not_exist');
  // The still video was the item's own file: it goes with its video (the asset's own file is the asset's).
  await waitFor(async () => (await stack.blobs.stat(stillKey)) === undefined, "the still video's file to go");

  // An item deleted while it is processed goes at once; the store's deletion takes its index and the tasks into it.
  const again = await tasks.createKnowledgeStoreItem(ctx(), { knowledge_store_id: store.id, asset_id: videoAsset, asset_type: '' });
  await tasks.deleteKnowledgeStoreItem(ctx(), store.id, again.id);
  expect(await codeOf(tasks.getKnowledgeStoreItem(ctx(), store.id, again.id))).toBe('resource_not_exist');
  await tasks.deleteKnowledgeStore(ctx(), store.id);
  expect(await codeOf(indexes.getIndex(ctx(), resolved.index_id))).toBe('resource_not_exist');
  // The video asset stays: an item is not a use of its asset.
  expect((await tasks.getAsset(ctx(), videoAsset)).status).toBe('ready');
}, 240_000);

it('keeps one index for a store whose first items are added at once', async () => {
  const assets = [await readyAsset((await silentVideo()).path, 'a.mp4'), await readyAsset(await photoPath('phone'), 'b.png')];
  const store = await tasks.createKnowledgeStore(ctx(), { name: 'at once', description: '', metadata: {} });
  const items = await Promise.all(
    assets.map((asset_id) =>
      tasks.createKnowledgeStoreItem(ctx(), { knowledge_store_id: store.id, asset_id, asset_type: '', metadata: {} }),
    ),
  );
  const resolved = await tasks.resolveKnowledgeStoreItems(ctx(), { knowledge_store_id: store.id });
  expect(resolved.items.map((i) => i.item_id).sort()).toEqual(items.map((i) => i.id).sort());
  // Both items' tasks index into the store's one index (the other one made was deleted).
  const { rows } = await stack.database!.db.query<{ index_id: string }>(
    'SELECT DISTINCT t.index_id FROM tasks t JOIN knowledge_store_items i ON i.task_id = t.id WHERE i.knowledge_store_id = $1',
    [store.id],
  );
  expect(rows).toEqual([{ index_id: resolved.index_id }]);
  await tasks.deleteKnowledgeStore(ctx(), store.id);
}, 120_000);

it('ends an item of an image ffmpeg cannot read failed, with the reason, and keeps the asset’s file', async () => {
  // A PNG signature, then bytes no decoder reads: the asset is an image by its signature; its still cannot be made.
  const dir = await mkdtemp(join(tmpdir(), 'vus-broken-'));
  const file = join(dir, 'broken.png');
  await writeFile(file, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(600, 7)]));
  const asset = await readyAsset(file, 'broken.png');
  await rm(dir, { recursive: true, force: true });
  const store = await tasks.createKnowledgeStore(ctx(), { name: 'broken', description: '', metadata: {} });
  const item = await tasks.createKnowledgeStoreItem(ctx(), { knowledge_store_id: store.id, asset_id: asset, asset_type: '' });
  expect([item.status, item.asset_type]).toEqual(['queued', 'image']);
  const seen = await statusesUntilSettled(store.id, item);
  expect(seen.at(-2)).toBe('failed');
  expect(JSON.parse(seen.at(-1)!)).toEqual({
    failure_code: 'unsupported_file_type',
    failure_message: 'The image cannot be read. Upload a JPEG, PNG, WebP, BMP, GIF or TIFF file.',
  });
  expect(await stack.blobs.stat(stillVideoKey(await taskOf(item.id)))).toBeUndefined();
  expect((await tasks.getAsset(ctx(), asset)).status).toBe('ready');
  await tasks.deleteKnowledgeStore(ctx(), store.id);
}, 120_000);
