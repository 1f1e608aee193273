import type { ResolvedKnowledgeStoreItem } from '@vus/grpc/types/task/v1/ResolvedKnowledgeStoreItem';
import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { SearchModality } from '../routes/knowledge-search.schema';
import { canonicalToV13Options } from '../versions/options';

/** What a page of a knowledge-store search is presented with, besides search-service's page. */
export interface KnowledgeSearchPresentation {
  /** The store's items by the video that holds each in the store's index. */
  itemsByVideo: ReadonlyMap<string, ResolvedKnowledgeStoreItem>;
  /** Results before this page: the first hit's rank is offset + 1. */
  offset: number;
  includeMetadata: boolean;
  /** The video modalities searched; empty when the search left videos out (effective_search_options is then {}). */
  modalities: readonly SearchModality[];
  /** The token of the next page, when there is one. */
  nextPageToken?: string | undefined;
}

/** The items of a resolve, by video id (items not ready have none and cannot be in a result). */
export const itemsByVideo = (items: readonly ResolvedKnowledgeStoreItem[]): Map<string, ResolvedKnowledgeStoreItem> =>
  new Map(items.filter((item) => item.video_id !== '').map((item) => [item.video_id, item]));

/** A matching clip (VideoMatch): its times, the modalities that matched, and the words said in it when known. */
function presentMatch(clip: SearchClip) {
  return {
    start_sec: clip.start,
    end_sec: clip.end,
    modalities: canonicalToV13Options(clip.modules.map((module) => module.type)),
    ...(clip.transcription ? { transcription: clip.transcription } : {}),
  };
}

/** include_metadata's object: the item's media as the resolve knows it (a video's duration), and the metadata set on it. */
function presentMetadata(item: ResolvedKnowledgeStoreItem) {
  return {
    system: item.asset_type === 'video' && item.duration > 0 ? { duration: item.duration } : {},
    user: item.metadata,
  };
}

/** One hit: a video with its matching clips, or an image, which matches as a whole (no times). */
function presentHit(item: ResolvedKnowledgeStoreItem, rank: number, clips: readonly SearchClip[], includeMetadata: boolean) {
  const metadata = includeMetadata ? { metadata: presentMetadata(item) } : {};
  if (item.asset_type === 'image') return { asset_type: 'image', rank, item_id: item.item_id, ...metadata };
  return { asset_type: 'video', rank, item_id: item.item_id, ...metadata, matches: clips.map(presentMatch) };
}

/**
 * A page of a knowledge-store search (twelvelabs-js 1.3.4 SearchKnowledgeStoreResponse) from
 * search-service's page over the store's index: each clip (group_by none) or video group (item)
 * becomes its item's hit, ranked by its place in the whole result. A result whose video no item
 * holds any more (the item was deleted since the search) is left out; the ranks of the others stay.
 * No page: the search had no ready item to read, an empty page. Pure.
 */
export function presentKnowledgeSearchPage(page: SearchResultPage | undefined, how: KnowledgeSearchPresentation) {
  const results: { videoId: string; clips: SearchClip[] }[] =
    page?.group_by === 'video'
      ? page.videos.map((group) => ({ videoId: group.id, clips: group.clips }))
      : (page?.clips ?? []).map((clip) => ({ videoId: clip.video_id, clips: [clip] }));
  const data = results.flatMap(({ videoId, clips }, i) => {
    const item = how.itemsByVideo.get(videoId);
    return item ? [presentHit(item, how.offset + i + 1, clips, how.includeMetadata)] : [];
  });
  return {
    data,
    ...(how.nextPageToken ? { next_page_token: how.nextPageToken } : {}),
    effective_search_options: how.modalities.length > 0 ? { video: { modalities: [...how.modalities] } } : {},
  };
}
