import { readAsset, readIndexedAssetRef, readKnowledgeStore, readKnowledgeStoreItem } from '../src/api';
import { describePlan, planIndexVideos } from '../src/lib/library';

const ready = (videoId: string, assetId: string) => ({ videoId, assetId, status: 'ready' });

describe("planIndexVideos: which of the index's videos can become items", () => {
  it.each([
    ['an empty index', [], [], [], { add: [], already: 0, notReady: 0, withoutAsset: 0 }],
    [
      'videos from assets',
      ['v1', 'v2'],
      [ready('v1', 'a1'), ready('v2', 'a2')],
      [],
      { add: ['a1', 'a2'], already: 0, notReady: 0, withoutAsset: 0 },
    ],
    [
      'videos uploaded to /tasks have no asset',
      ['v1', 'v2', 'v3'],
      [ready('v1', 'a1')],
      [],
      { add: ['a1'], already: 0, notReady: 0, withoutAsset: 2 },
    ],
    [
      'an asset already in the store',
      ['v1', 'v2'],
      [ready('v1', 'a1'), ready('v2', 'a2')],
      ['a1'],
      { add: ['a2'], already: 1, notReady: 0, withoutAsset: 0 },
    ],
    [
      'one still indexing',
      ['v1'],
      [
        { videoId: 'v1', assetId: 'a1', status: 'indexing' },
        { videoId: 'v9', assetId: 'a9', status: 'ready' },
      ],
      [],
      { add: ['a9'], already: 0, notReady: 1, withoutAsset: 0 },
    ],
    [
      'one asset indexed twice: added once',
      ['v1', 'v2'],
      [ready('v1', 'a1'), ready('v2', 'a1')],
      [],
      { add: ['a1'], already: 0, notReady: 0, withoutAsset: 0 },
    ],
  ])('%s', (_name, videoIds, indexed, itemAssetIds, expected) => {
    expect(planIndexVideos(videoIds, indexed, itemAssetIds)).toEqual(expected);
  });
});

describe('describePlan', () => {
  it.each([
    [{ add: [], already: 0, notReady: 0, withoutAsset: 0 }, 0, 'This index has no video to add.'],
    [{ add: ['a1'], already: 0, notReady: 0, withoutAsset: 0 }, 1, 'Added 1 video of this index.'],
    [
      { add: ['a1', 'a2'], already: 1, notReady: 2, withoutAsset: 1 },
      2,
      'Added 2 videos of this index. 1 video is already in the store. 2 videos are still being indexed: add again once ready. ' +
        '1 video was uploaded without an asset, so cannot be added: upload the file to the store instead.',
    ],
    [
      { add: [], already: 0, notReady: 0, withoutAsset: 3 },
      0,
      '3 videos were uploaded without an asset, so cannot be added: upload the file to the store instead.',
    ],
  ])('%j, %i added', (plan, added, expected) => {
    expect(describePlan(plan, added)).toBe(expected);
  });
});

describe('the knowledge-store readers', () => {
  it('reads a store, an item with its source media, and a failed asset with why', () => {
    expect(readKnowledgeStore({ _id: 'ks_1', name: 'Garden', item_count: 2 })).toEqual({ id: 'ks_1', name: 'Garden', itemCount: 2 });
    expect(
      readKnowledgeStoreItem({
        _id: 'ksi_1',
        asset_id: 'a1',
        status: 'processing',
        system_metadata: { asset_type: 'video', filename: 'garden.mp4', duration: 12.5 },
      }),
    ).toEqual({ id: 'ksi_1', assetId: 'a1', status: 'processing', filename: 'garden.mp4', duration: 12.5 });
    expect(readKnowledgeStoreItem({ _id: 'ksi_2', asset_id: 'a2' })).toMatchObject({
      status: 'unknown',
      filename: 'a2',
      duration: undefined,
    });
    expect(readIndexedAssetRef({ _id: 'v1', asset_id: 'a1', status: 'ready', system_metadata: {} })).toEqual({
      videoId: 'v1',
      assetId: 'a1',
      status: 'ready',
    });
    expect(readAsset({ _id: 'a1', status: 'failed', error: { code: 'media_invalid', message: 'This is not a video.' } })).toEqual({
      id: 'a1',
      status: 'failed',
      error: 'This is not a video. (media_invalid)',
    });
  });
});
