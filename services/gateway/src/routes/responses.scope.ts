import { ApiError, errors } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { CitableItem } from '@vus/grpc/types/analyze/v1/CitableItem';
import type { ResponseSelection } from '@vus/grpc/types/analyze/v1/ResponseSelection';
import type { ResolveKnowledgeStoreItemsResponse } from '@vus/grpc/types/task/v1/ResolveKnowledgeStoreItemsResponse';
import type { TaskClient } from '../clients';
import type { Selection } from './responses.schema';

/** What a response reads from: the store's index, its ready items, and the request's selections spelled out. */
export interface ResponseScope {
  indexId: string;
  items: CitableItem[];
  selections: ResponseSelection[];
}

/** A collection the request selected: its name and members, as task-service gave them. */
export interface SelectedCollection {
  id: string;
  name: string;
  itemIds: string[];
}

const isReady = (item: { status: string; video_id: string }) => item.status === 'ready' && item.video_id !== '';

/**
 * The scope of a response (pure): every ready item of the store may be cited; each selection
 * becomes its label ({{sel:N}} reads as the item's title or the collection's name) and its items.
 * A store with no ready item has nothing to answer from, and a selection with no ready item
 * narrows to nothing: both are refused (400) rather than answered with nothing, and cost nothing.
 */
export function scopeOf(
  selections: readonly Selection[],
  store: ResolveKnowledgeStoreItemsResponse,
  collections: readonly SelectedCollection[],
): ResponseScope {
  const ready = store.items.filter(isReady);
  if (ready.length === 0 || !store.index_id) {
    const waiting = store.items.filter((item) => item.status !== 'ready' && item.status !== 'failed').length;
    throw errors.invalid(
      'knowledge_store_id',
      store.items.length === 0
        ? 'The knowledge store has no items: add an asset to it, wait until the item is ready, then ask.'
        : `The knowledge store has no ready item to answer from${waiting > 0 ? ` (${waiting} still being processed: ask again once one is ready)` : ''}.`,
    );
  }
  const readyIds = new Set(ready.map((item) => item.item_id));
  const byId = new Map(store.items.map((item) => [item.item_id, item]));
  return {
    indexId: store.index_id,
    items: ready.map(({ item_id, asset_type, video_id, title, duration }) => ({ item_id, asset_type, video_id, title, duration })),
    selections: selections.map((selection, n) => {
      const spelled = spellSelection(selection, byId, collections);
      if (!spelled.item_ids.some((id) => readyIds.has(id)))
        throw errors.invalid(`selections.${n}`, `The selected ${selection.kind} ${selection.id} has no ready item to answer from.`);
      return spelled;
    }),
  };
}

function spellSelection(
  selection: Selection,
  items: ReadonlyMap<string, { title: string }>,
  collections: readonly SelectedCollection[],
): ResponseSelection {
  if (selection.kind === 'item') {
    const item = items.get(selection.id);
    if (!item) throw errors.notFound('Knowledge store item', selection.id);
    return { kind: 'item', id: selection.id, label: item.title, item_ids: [selection.id] };
  }
  const collection = collections.find((c) => c.id === selection.id);
  // resolveScope fetched every selected collection; a missing one would be a bug here, not the caller's.
  if (!collection) throw new ApiError('internal_error', 'A selected collection was not resolved.');
  return { kind: 'collection', id: collection.id, label: collection.name, item_ids: collection.itemIds };
}

/**
 * The store's items from task-service (404 for an unknown store, before any selection is looked
 * at), then each selected collection's name and members (404 naming one that is not the store's).
 */
export async function resolveScope(
  task: Pick<TaskClient, 'resolveKnowledgeStoreItems' | 'getKnowledgeStoreItemCollection'>,
  ctx: OutgoingContext,
  knowledgeStoreId: string,
  selections: readonly Selection[],
): Promise<ResponseScope> {
  const store = await task.resolveKnowledgeStoreItems(ctx, { knowledge_store_id: knowledgeStoreId });
  const collectionIds = [...new Set(selections.filter((s) => s.kind === 'collection').map((s) => s.id))];
  const collections = await Promise.all(
    collectionIds.map(async (id): Promise<SelectedCollection> => {
      const collection = await task.getKnowledgeStoreItemCollection(ctx, knowledgeStoreId, id);
      const members = await task.resolveKnowledgeStoreItems(ctx, { knowledge_store_id: knowledgeStoreId, collection_ids: [id] });
      return { id, name: collection.name, itemIds: members.items.map((item) => item.item_id) };
    }),
  );
  return scopeOf(selections, store, collections);
}
