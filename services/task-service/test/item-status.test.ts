import { TASK_STATUSES } from '@vus/domain';
import { itemStatusOf, itemStatusSql, ITEM_STATUS_OF_TASK } from '../src/knowledge/item-status';
import { resolvedItem, type ItemRecord } from '../src/knowledge/knowledge-stores';

describe('itemStatusOf', () => {
  it.each([
    ['uploading', 'queued'],
    ['validating', 'queued'],
    ['pending', 'queued'],
    ['queued', 'pending'],
    ['indexing', 'processing'],
    ['ready', 'ready'],
    ['failed', 'failed'],
  ] as const)('shows a task %s as %s', (task, item) => {
    expect(itemStatusOf(task, 'queued')).toBe(item);
  });

  it('maps every task status', () => {
    expect(Object.keys(ITEM_STATUS_OF_TASK).sort()).toEqual([...TASK_STATUSES].sort());
  });

  it('shows the stored status of an item without a task', () => {
    expect(itemStatusOf(null, 'queued')).toBe('queued');
    expect(itemStatusOf(null, 'failed')).toBe('failed');
  });
});

describe('itemStatusSql', () => {
  it('is the same table as a CASE over the task status, falling back on the stored one', () => {
    const sql = itemStatusSql('t.status', 'i.status');
    expect(sql).toBe(
      "coalesce(CASE t.status WHEN 'uploading' THEN 'queued' WHEN 'validating' THEN 'queued' WHEN 'pending' THEN 'queued' " +
        "WHEN 'queued' THEN 'pending' WHEN 'indexing' THEN 'processing' WHEN 'ready' THEN 'ready' WHEN 'failed' THEN 'failed' END, i.status)",
    );
  });
});

describe('resolvedItem', () => {
  const item = (overrides: Partial<ItemRecord>): ItemRecord => ({
    id: 'item',
    orgId: 'org',
    storeId: 'store',
    assetId: 'asset',
    assetType: 'video',
    status: 'ready',
    task: { id: 'task', indexId: 'index', videoId: 'video' },
    metadata: { k: 'v' },
    media: { filename: 'clip.mp4', duration: 12.5, width: 640, height: 360, size: 10, mimeType: 'video/mp4' },
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...overrides,
  });

  it.each([
    ['a ready video: its video and duration', {}, { videoId: 'video', duration: 12.5 }],
    ['a video being processed: no video yet', { status: 'processing' as const }, { videoId: null, duration: 12.5 }],
    ['an item without a task: no video', { status: 'queued' as const, task: null }, { videoId: null, duration: 12.5 }],
    ['a ready image: its still video, duration 0', { assetType: 'image' as const }, { videoId: 'video', duration: 0 }],
  ])('%s', (_name, overrides, expected) => {
    expect(resolvedItem(item(overrides))).toMatchObject({ id: 'item', title: 'clip.mp4', metadata: { k: 'v' }, ...expected });
  });
});
