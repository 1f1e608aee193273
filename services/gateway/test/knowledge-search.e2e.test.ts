/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Search over a knowledge store end to end (issue 33), through twelvelabs-js 1.x's own
 * knowledgeStores.search: two video items indexed by the real pipeline (the worker reads on-screen
 * words and subtitles), a search that finds the moment a word is shown in the right item, one that
 * finds a sentence said, a filter by item id, grouping by item, metadata, pages by token, an empty
 * store, another organization's store; a store holding a video and an image (an image matches as a
 * whole, and always visually); and every answer checked against the v1.3 OpenAPI document.
 */
import { photoPath, subtitledVideo, textScenesVideo } from '@vus/testing';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { readyAsset, sleep } from './sdk-assets';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let client: TwelveLabs;
let other: TwelveLabs;
let recorder: RecordingProxy;
let ksId: string;
/** The item of textScenesVideo (ORANGE 0–4 s, PLANET 4–8 s, BICYCLE 8–12 s) and of subtitledVideo (sentences said). */
let scenesItem: string;
let subtitledItem: string;
let scenesAsset: string;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

/** The HTTP status of the SDK's error, or undefined when the call succeeds. */
const statusOf = async (call: Promise<unknown>): Promise<number | undefined> => {
  try {
    await call;
    return undefined;
  } catch (error) {
    return (error as { statusCode?: number }).statusCode ?? -1;
  }
};

/** Adds the asset as an item and waits until the pipeline has made it searchable. */
async function readyItem(
  storeId: string,
  assetId: string,
  metadata: Record<string, string>,
  assetType: 'video' | 'image' = 'video',
): Promise<string> {
  const item = await client.knowledgeStoreItems.create(storeId, { assetId, assetType, metadata });
  for (;;) {
    const now = await client.knowledgeStoreItems.retrieve(storeId, item.id!);
    if (now.status === 'ready') return item.id!;
    if (now.status === 'failed') throw new Error(`item ${item.id} failed`);
    await sleep(300);
  }
}

beforeAll(async () => {
  let scenes, subtitled;
  [stack, scenes, subtitled] = await Promise.all([startIndexingStack({ worker: true }), textScenesVideo(), subtitledVideo()]);
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  client = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
  other = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
  let subtitledAsset: string;
  [scenesAsset, subtitledAsset] = await Promise.all([readyAsset(client, scenes.path), readyAsset(client, subtitled.path)]);
  ksId = (await client.knowledgeStores.create({ name: 'ks-search' })).id!;
  // One after the other: the store's first item makes its index.
  scenesItem = await readyItem(ksId, scenesAsset, { scene: 'words' });
  subtitledItem = await readyItem(ksId, subtitledAsset, { scene: 'interview' });
}, 300_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await recorder?.stop();
  await stack?.stop();
});

describe('knowledgeStores.search (twelvelabs-js 1.x)', () => {
  it('finds the moment a word is on screen, in the item that shows it', async () => {
    const found = await client.knowledgeStores.search(ksId, { query: { text: 'bicycle' } });
    expect(found.effectiveSearchOptions).toEqual({ video: { modalities: ['visual'] } });
    const best = found.data[0]!;
    expect(best).toMatchObject({ assetType: 'video', rank: 1, itemId: scenesItem });
    const match = (best as { matches: { startSec: number; endSec: number; modalities: string[] }[] }).matches[0]!;
    // BICYCLE is shown from 8 s to the end (12 s).
    expect(match.startSec).toBeGreaterThanOrEqual(7);
    expect(match.endSec).toBeLessThanOrEqual(12.5);
    expect(match.modalities).toEqual(['visual']);
    expect(found.data.map((hit) => hit.rank)).toEqual(found.data.map((_, i) => i + 1));
  });

  it('finds a sentence said through audio, with the words of the clip', async () => {
    const found = await client.knowledgeStores.search(ksId, {
      query: { text: 'quick brown fox' },
      searchOptions: { video: { modalities: ['audio'] } },
    });
    expect(found.effectiveSearchOptions).toEqual({ video: { modalities: ['audio'] } });
    const best = found.data[0] as { itemId: string; matches: { modalities: string[]; transcription?: string }[] };
    expect(best.itemId).toBe(subtitledItem);
    expect(best.matches[0]!.modalities).toEqual(['audio']);
    expect(best.matches[0]!.transcription).toMatch(/fox/i);
  });

  it('searches only the items a filter names', async () => {
    const found = await client.knowledgeStores.search(ksId, {
      query: { text: 'bicycle' },
      filter: { itemId: { in: [subtitledItem] }, assetType: { eq: 'video' } },
    });
    expect(found.data.every((hit) => hit.itemId === subtitledItem)).toBe(true);
    const scenesOnly = await client.knowledgeStores.search(ksId, { query: { text: 'bicycle' }, filter: { itemId: { eq: scenesItem } } });
    expect(scenesOnly.data.length).toBeGreaterThan(0);
    expect(scenesOnly.data.every((hit) => hit.itemId === scenesItem)).toBe(true);
  });

  it('groups clips under their item, with the item metadata when asked', async () => {
    const found = await client.knowledgeStores.search(ksId, {
      query: { text: 'orange bicycle' },
      groupBy: 'item',
      includeMetadata: true,
    });
    const ids = found.data.map((hit) => hit.itemId);
    expect(new Set(ids).size).toBe(ids.length);
    const scenes = found.data.find((hit) => hit.itemId === scenesItem) as {
      matches: unknown[];
      metadata: { system: { duration: number }; user: Record<string, unknown> };
    };
    // ORANGE (0–4 s) and BICYCLE (8–12 s) are two moments of the one item (what lies between matches neither word).
    expect(scenes.matches.length).toBeGreaterThan(1);
    expect(scenes.metadata.user).toEqual({ scene: 'words' });
    expect(scenes.metadata.system.duration).toBeCloseTo(12, 0);
  });

  it('pages by next_page_token: the same request with the token, ranks going on', async () => {
    const request = { query: { text: 'orange bicycle' }, pageSize: 1 };
    const first = await client.knowledgeStores.search(ksId, request);
    expect(first.data).toHaveLength(1);
    expect(first.nextPageToken).toBeTruthy();
    const second = await client.knowledgeStores.search(ksId, { ...request, pageToken: first.nextPageToken });
    expect(second.data.map((hit) => hit.rank)).toEqual([2]);
    expect(await statusOf(client.knowledgeStores.search(ksId, { ...request, pageToken: 'not-a-token' }))).toBe(400);
  });

  it('answers an empty page for a store with no ready item; 404 for an unknown or another organization’s store', async () => {
    const empty = await client.knowledgeStores.create({ name: 'ks-empty' });
    expect(await client.knowledgeStores.search(empty.id!, { query: { text: 'bicycle' } })).toEqual({
      data: [],
      effectiveSearchOptions: { video: { modalities: ['visual'] } },
    });
    expect(await statusOf(other.knowledgeStores.search(ksId, { query: { text: 'bicycle' } }))).toBe(404);
    expect(await statusOf(client.knowledgeStores.search('6528dde58f9cd95a98cbd075', { query: { text: 'bicycle' } }))).toBe(404);
  });

  it('finds an image as a whole among videos; matches it visually whatever the video modalities', async () => {
    const mixed = (await client.knowledgeStores.create({ name: 'ks-mixed' })).id!;
    const videoItem = await readyItem(mixed, scenesAsset, {});
    const imageItem = await readyItem(mixed, await readyAsset(client, await photoPath('cat')), { kind: 'photo' }, 'image');

    const found = await client.knowledgeStores.search(mixed, { query: { text: 'cat' }, includeMetadata: true });
    expect(found.data[0]).toEqual({ assetType: 'image', rank: 1, itemId: imageItem, metadata: { system: {}, user: { kind: 'photo' } } });
    expect(found.data.some((hit) => hit.itemId === videoItem)).toBe(false);

    const images = await client.knowledgeStores.search(mixed, { query: { text: 'cat' }, filter: { assetType: { eq: 'image' } } });
    expect(images).toEqual({ data: [{ assetType: 'image', rank: 1, itemId: imageItem }], effectiveSearchOptions: {} });
    const byAudio = { query: { text: 'cat' }, searchOptions: { video: { modalities: ['audio' as const] } } };
    // Images alone: matched visually although the video modality asked is audio.
    expect((await client.knowledgeStores.search(mixed, { ...byAudio, filter: { itemId: { eq: imageItem } } })).data).toEqual([
      { assetType: 'image', rank: 1, itemId: imageItem },
    ]);
    // Audio for the videos and sight for the images is two searches, which one request does not run.
    expect(await statusOf(client.knowledgeStores.search(mixed, byAudio))).toBe(400);
    const refused = client.knowledgeStores.search(mixed, { ...byAudio, filter: { assetType: { eq: 'image' } } });
    expect(await statusOf(refused)).toBe(400);
  }, 120_000);

  it('answers as the v1.3 OpenAPI document says', async () => {
    expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
  });
});
