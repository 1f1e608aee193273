/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Entity search end to end (issue 32 §1): a video composed from real faces (face-video.ts) indexed
 * by the real worker (BlazeFace + face-api's recogniser), its face tracks written to a real
 * search-service; entities made of portrait assets in task-service, their reference faces embedded
 * by task-service; searches with `<@entity_id>` through search-service's gRPC Search, which asks
 * task-service for the references. True matches, a different person not matched, the join with the
 * rest of the text, a video indexed without face tracks named, and unknown or other-organization
 * entities refused.
 */
import { createSearchClient, type SearchClient } from '@vus/clients';
import { createLogger, newId } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { Entity } from '@vus/grpc/types/task/v1/Entity';
import type { EntityCollection } from '@vus/grpc/types/task/v1/EntityCollection';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { blazeFaceProvider, faceRecognitionProvider, ModelRegistry } from '@vus/models';
import { startSearchService, type RunningSearchService } from '@vus/search-service';
import { codeOf, errorOf } from '@vus/testing';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { faceVideo, type FaceVideo } from './face-video';
import { startTaskStack, type TaskStack } from './stack';

jest.setTimeout(300_000);

/** A free loopback port: search-service's address is needed by the worker before search-service starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('entity search through the worker, task-service and search-service', () => {
  const registry = new ModelRegistry([blazeFaceProvider(), faceRecognitionProvider()]);
  const org = newId();
  const otherOrg = newId();
  const ctx: OutgoingContext = { orgId: org };
  let stack: TaskStack;
  let searchService: RunningSearchService;
  let search: SearchClient;
  let video: FaceVideo;
  let indexId: string;
  let videoId: string;
  const entities = { her: '', other: '' };

  /** An image asset, ready, its file in the blob store (what an upload leaves). */
  async function imageAsset(orgId: string, jpeg: Buffer): Promise<string> {
    const id = newId();
    const key = `assets/${id}/portrait.jpg`;
    await stack.blobs.put(key, Readable.from([jpeg]));
    await stack.database!.db.query(
      `INSERT INTO assets (id, org_id, method, status, filename, file_type, mime_type, blob_key, size, created_at, updated_at)
       VALUES ($1, $2, 'direct', 'ready', 'portrait.jpg', 'image', 'image/jpeg', $3, $4, now(), now())`,
      [id, orgId, key, jpeg.length],
    );
    return id;
  }

  async function entityOf(orgId: string, name: string, assetIds: string[]): Promise<string> {
    const collection = await stack.rpc<EntityCollection>(orgId, (md, opts, cb) =>
      stack.tasks.CreateEntityCollection({ name: `people of ${name}` }, md, opts, cb),
    );
    const entity = await stack.rpc<Entity>(orgId, (md, opts, cb) =>
      stack.tasks.CreateEntity({ entity_collection_id: collection.id, entity: { name, asset_ids: assetIds } }, md, opts, cb),
    );
    return entity.id;
  }

  const clipsFor = async (queryText: string, extra: Record<string, unknown> = {}) => {
    const page = await search.search(ctx, { index_id: indexId, query_text: queryText, search_options: ['visual'], ...extra });
    return page.clips.map((c) => [c.video_id, Math.round(c.start), Math.round(c.end)]).sort((a, b) => Number(a[1]) - Number(b[1]));
  };

  beforeAll(async () => {
    const searchAddress = `127.0.0.1:${await freePort()}`;
    stack = await startTaskStack({
      name: 'entity-search',
      database: 'postgres',
      worker: () => ({ models: registry, searchServiceAddress: searchAddress }),
    });
    searchService = await startSearchService({
      bind: searchAddress,
      database: { kind: 'pglite', dataDir: 'memory://' },
      indexServiceAddress: stack.indexService.address,
      taskServiceAddress: stack.taskService.address,
      logger: createLogger({ service: 'search-test', level: 'silent' }),
    });
    search = createSearchClient(searchService.address);

    video = await faceVideo(stack.dir, await registry.get('face_embedder'));
    indexId = await stack.createIndex(org, ['visual']);
    const blobKey = await stack.upload(video.path);
    const task = await stack.rpc<Task>(org, (md, opts, cb) =>
      stack.tasks.CreateTask({ index_id: indexId, video_blob_key: blobKey, filename: 'faces.mp4' }, md, opts, cb),
    );
    const done = await stack.waitForTask(org, task.id, { timeoutMs: 240_000 });
    expect(done.status).toBe('ready');
    videoId = done.video_id;
    entities.her = await entityOf(org, 'her', [await imageAsset(org, video.portraits.her)]);
    entities.other = await entityOf(org, 'the other woman', [await imageAsset(org, video.portraits.other)]);
  });

  afterAll(async () => {
    search?.close();
    await searchService?.stop();
    await stack?.stop();
    await registry.dispose();
  });

  it('finds her where she is on screen, also mirrored, smaller and recompressed', async () => {
    expect(await clipsFor(`<@${entities.her}>`)).toEqual([
      [videoId, 0, 4],
      [videoId, 8, 12],
    ]);
  });

  it('finds the other woman only where she is', async () => {
    expect(await clipsFor(`<@${entities.other}>`)).toEqual([[videoId, 4, 8]]);
  });

  it('joins the entity with the rest of the query: a face seen with her is where she is; a word nothing matches leaves nothing', async () => {
    // The worker labels frames with a face 'face' (visual segments): "face" matches every scene.
    expect(await clipsFor(`<@${entities.her}> face`)).toEqual([
      [videoId, 0, 4],
      [videoId, 8, 12],
    ]);
    expect(await clipsFor(`<@${entities.her}> bicycle`)).toEqual([]);
    // Both women are never on screen together.
    expect(await clipsFor(`<@${entities.her}> and <@${entities.other}>`)).toEqual([]);
  });

  it('reads mentions in a combined query’s leaves as a single search does', async () => {
    const combined = async (query: unknown) => {
      const page = await search.combinedSearch(ctx, { index_id: indexId, query: query as never, search_options: ['visual'] });
      return page.clips.map((c) => [c.video_id, Math.round(c.start), Math.round(c.end)]).sort((a, b) => Number(a[1]) - Number(b[1]));
    };
    expect(await combined({ leaf: { text: `<@${entities.her}>` } })).toEqual([
      [videoId, 0, 4],
      [videoId, 8, 12],
    ]);
    // Every scene shows a face; without her, what is left is the other woman's.
    expect(await combined({ not: { origin: { leaf: { text: 'face' } }, sub: { leaf: { text: `<@${entities.her}>` } } } })).toEqual([
      [videoId, 4, 8],
    ]);
  });

  it('refuses unknown entities and another organization’s as not existing', async () => {
    expect(await codeOf(clipsFor(`<@${newId()}> walking`))).toBe('resource_not_exist');
    const theirs = await entityOf(otherOrg, 'theirs', [await imageAsset(otherOrg, video.portraits.her)]);
    expect(await codeOf(clipsFor(`<@${theirs}>`))).toBe('resource_not_exist');
  });

  it('matches an entity none of whose images shows a face by the visual embedding instead: here no image model, said so', async () => {
    const grey = await (
      await import('sharp')
    )
      .default({ create: { width: 200, height: 200, channels: 3, background: { r: 128, g: 128, b: 128 } } })
      .jpeg()
      .toBuffer();
    const faceless = await entityOf(org, 'a grey square', [await imageAsset(org, grey)]);
    // This search-service has no model server (no image model, no detector): the image query says so, never an empty answer.
    expect(await codeOf(clipsFor(`<@${faceless}>`))).toBe('model_unavailable');
    // An entity with a face and a faceless image is still found by the face.
    const both = await entityOf(org, 'her and a grey square', [await imageAsset(org, video.portraits.her), await imageAsset(org, grey)]);
    expect(await clipsFor(`<@${both}>`)).toEqual([
      [videoId, 0, 4],
      [videoId, 8, 12],
    ]);
  });

  it('waits for a reference image still being processed: refused saying so, found once the asset is ready', async () => {
    const id = newId();
    await stack.database!.db.query(
      `INSERT INTO assets (id, org_id, method, status, filename, created_at, updated_at)
       VALUES ($1, $2, 'url', 'processing', 'portrait.jpg', now(), now())`,
      [id, org],
    );
    // An asset by URL before its file arrives; the entity is made in SQL (the entity API asks for ready assets).
    const collection = await stack.rpc<EntityCollection>(org, (md, opts, cb) =>
      stack.tasks.CreateEntityCollection({ name: 'pending people' }, md, opts, cb),
    );
    const entityId = newId();
    await stack.database!.db.query(
      `INSERT INTO entities (id, org_id, collection_id, name, status, created_at, updated_at) VALUES ($1, $2, $3, 'pending', 'ready', now(), now())`,
      [entityId, org, collection.id],
    );
    await stack.database!.db.query('INSERT INTO entity_assets (entity_id, asset_id, position) VALUES ($1, $2, 0)', [entityId, id]);
    const error = await errorOf(clipsFor(`<@${entityId}>`));
    expect(error && error.code).toBe('parameter_invalid');
    expect(error && error.message).toContain(`still being processed (${id})`);

    const key = `assets/${id}/portrait.jpg`;
    await stack.blobs.put(key, Readable.from([video.portraits.her]));
    await stack.database!.db.query(
      `UPDATE assets SET status = 'ready', file_type = 'image', mime_type = 'image/jpeg', blob_key = $2, size = $3 WHERE id = $1`,
      [id, key, video.portraits.her.length],
    );
    expect(await clipsFor(`<@${entityId}>`)).toEqual([
      [videoId, 0, 4],
      [videoId, 8, 12],
    ]);
  });

  it('names a video indexed before face tracks existed instead of silently missing it, and searches it once filtered out', async () => {
    const old = newId();
    await stack.rpc(org, (md, opts, cb) =>
      stack.indexes.CreateVideo(
        {
          index_id: indexId,
          video_id: old,
          system_metadata: { filename: 'old.mp4', duration: 10, fps: 25, width: 1280, height: 720, size: 1000 },
          extractors_run: ['visual'],
          media_blob_key: '',
        },
        md,
        opts,
        cb,
      ),
    );
    await search.ingestSegments(ctx, {
      index_id: indexId,
      video_id: old,
      segments: [{ start: 0, end: 10, modality: 'visual', labels: ['face'] }],
    });
    const error = await errorOf(clipsFor(`<@${entities.her}>`));
    expect(error && error.code).toBe('parameter_invalid');
    expect(error && error.message).toContain(old);
    expect(error && error.message).not.toContain(videoId);
    expect(await clipsFor(`<@${entities.her}>`, { filter: { ids: [videoId] } })).toEqual([
      [videoId, 0, 4],
      [videoId, 8, 12],
    ]);
  });
});
