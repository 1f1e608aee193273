import type { ResolvedKnowledgeStoreItem } from '@vus/grpc/types/task/v1/ResolvedKnowledgeStoreItem';
import { errorOf } from '@vus/testing';
import { scopeOf } from '../src/routes/responses.scope';

const item = (id: string, status: string, over: Partial<ResolvedKnowledgeStoreItem> = {}): ResolvedKnowledgeStoreItem => ({
  item_id: id,
  asset_type: 'video',
  status,
  video_id: status === 'ready' ? `video-of-${id}` : '',
  title: `${id}.mp4`,
  duration: 12,
  metadata: {},
  ...over,
});

const store = (...items: ResolvedKnowledgeStoreItem[]) => ({ index_id: 'index1', items });

describe('scopeOf', () => {
  it('cites every ready item of the store, and only those', () => {
    const scope = scopeOf([], store(item('a', 'ready'), item('b', 'processing'), item('c', 'ready', { asset_type: 'image' })), []);
    expect(scope).toEqual({
      indexId: 'index1',
      items: [
        { item_id: 'a', asset_type: 'video', video_id: 'video-of-a', title: 'a.mp4', duration: 12 },
        { item_id: 'c', asset_type: 'image', video_id: 'video-of-c', title: 'c.mp4', duration: 12 },
      ],
      selections: [],
    });
  });

  it('spells selections out: an item by its title, a collection by its name and members', () => {
    const scope = scopeOf(
      [
        { kind: 'collection', id: 'col' },
        { kind: 'item', id: 'b' },
      ],
      store(item('a', 'ready'), item('b', 'ready'), item('c', 'queued')),
      [{ id: 'col', name: 'Garden tours', itemIds: ['a', 'c'] }],
    );
    expect(scope.selections).toEqual([
      { kind: 'collection', id: 'col', label: 'Garden tours', item_ids: ['a', 'c'] },
      { kind: 'item', id: 'b', label: 'b.mp4', item_ids: ['b'] },
    ]);
  });

  it.each([
    ['a store without items', [], [], 'parameter_invalid', 'has no items'],
    [
      'a store whose items are all processing',
      [item('a', 'processing'), item('b', 'failed')],
      [],
      'parameter_invalid',
      '1 still being processed',
    ],
    ['a store whose items all failed', [item('a', 'failed')], [], 'parameter_invalid', 'no ready item to answer from.'],
    ['an item selection not of the store', [item('a', 'ready')], [{ kind: 'item' as const, id: 'z' }], 'resource_not_exist', 'z'],
    [
      'an item selection not ready',
      [item('a', 'ready'), item('b', 'pending')],
      [{ kind: 'item' as const, id: 'b' }],
      'parameter_invalid',
      'selections.0',
    ],
  ])('refuses %s', (_case, items, selections, code, says) => {
    const error = errorOf(() => scopeOf(selections, store(...items), []));
    expect(error && error.code).toBe(code);
    expect(error && error.message).toContain(says);
  });

  it('refuses a collection with no ready member, naming the selection', () => {
    const error = errorOf(() =>
      scopeOf([{ kind: 'collection', id: 'col' }], store(item('a', 'ready'), item('b', 'queued')), [
        { id: 'col', name: 'c', itemIds: ['b'] },
      ]),
    );
    expect(error).toMatchObject({ code: 'parameter_invalid' });
    expect(error && error.message).toContain('selections.0');
  });
});
