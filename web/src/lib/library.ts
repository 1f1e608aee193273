/**
 * Which of the current index's videos the "Ask your library" panel can add to a knowledge store.
 * An item is made from an asset (POST /knowledge-stores/{id}/items {asset_id}); a video has one
 * only when it was indexed from an asset (v1.3 indexed assets), not when it was uploaded straight
 * to POST /tasks, as the playground's Upload panel does. Pure.
 */
export interface IndexedAssetRef {
  /** The indexed asset's id: also its video's id. */
  videoId: string;
  assetId: string;
  status: string;
}

export interface AddPlan {
  /** Asset ids to add as items, each once. */
  add: string[];
  /** Already items of the store. */
  already: number;
  /** Indexed from an asset, but not ready yet. */
  notReady: number;
  /** Videos of the index with no asset: they cannot be items. */
  withoutAsset: number;
}

export function planIndexVideos(
  videoIds: readonly string[],
  indexed: readonly IndexedAssetRef[],
  itemAssetIds: readonly string[],
): AddPlan {
  const inStore = new Set(itemAssetIds);
  const fromAssets = new Set(indexed.map((ref) => ref.videoId));
  const add = new Set<string>();
  let already = 0;
  let notReady = 0;
  for (const ref of indexed) {
    if (inStore.has(ref.assetId)) already++;
    else if (ref.status !== 'ready') notReady++;
    else add.add(ref.assetId);
  }
  return { add: [...add], already, notReady, withoutAsset: videoIds.filter((id) => !fromAssets.has(id)).length };
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What adding the index's videos did, in a sentence or two for the page. */
export function describePlan(plan: AddPlan, added: number): string {
  const said = [
    added > 0 ? `Added ${count(added, 'video', 'videos')} of this index.` : '',
    plan.already > 0 ? `${count(plan.already, 'video is', 'videos are')} already in the store.` : '',
    plan.notReady > 0 ? `${count(plan.notReady, 'video is', 'videos are')} still being indexed: add again once ready.` : '',
    plan.withoutAsset > 0
      ? `${count(plan.withoutAsset, 'video was', 'videos were')} uploaded without an asset, so cannot be added: upload the file to the store instead.`
      : '',
  ].filter(Boolean);
  return said.length > 0 ? said.join(' ') : 'This index has no video to add.';
}
