import { fromMetadataValues, fromTimestamp } from '@vus/grpc';
import type { MetadataValue } from '@vus/grpc/types/common/v1/MetadataValue';
import type { TokenPageInfo } from '@vus/grpc/types/common/v1/TokenPageInfo';
import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { VersionAdapter } from '../versions';

export interface SearchPresentation {
  version: VersionAdapter;
  /** The signed URL of a clip's thumbnail, or undefined when it has none. */
  thumbnailUrl(clip: SearchClip, indexId: string): string | undefined;
}

function userMetadata(values: Record<string, MetadataValue>): Record<string, string | number | boolean> | undefined {
  const entries = Object.entries(fromMetadataValues(values)).filter((e): e is [string, string | number | boolean] => e[1] != null);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** A result item in the version's shape: py requires score, start, end, video_id, confidence. */
function presentClip(clip: SearchClip, indexId: string, how: SearchPresentation): Record<string, unknown> {
  const item: Record<string, unknown> = {
    score: clip.score,
    start: clip.start,
    end: clip.end,
    video_id: clip.video_id,
    confidence: clip.confidence,
  };
  const thumbnail = how.thumbnailUrl(clip, indexId);
  if (thumbnail) item.thumbnail_url = thumbnail;
  Object.assign(item, how.version.search.presentClipFields(clip));
  const metadata = how.version.search.userMetadata ? userMetadata(clip.user_metadata) : undefined;
  if (metadata) item.user_metadata = metadata;
  return item;
}

/** A token page's `page_info` in the version's names (search and classify pages). */
export function presentTokenPageInfo(info: TokenPageInfo | null | undefined, version: VersionAdapter): Record<string, unknown> {
  const names = version.search.pageFields ?? { next: 'next_page_token', prev: 'prev_page_token', total: 'total_results' };
  const pageInfo: Record<string, unknown> = {
    limit_per_page: info?.limit_per_page ?? 0,
    [names.total]: info?.total_results ?? 0,
    [version.search.pageExpiryField]: fromTimestamp(info?.page_expires_at)?.toISOString() ?? null,
    // Falsy on the last page: every SDK stops on it (API-CONTRACT §2.6).
    [names.next]: info?.next_page_token || null,
  };
  if (info?.prev_page_token) pageInfo[names.prev] = info.prev_page_token;
  return pageInfo;
}

/** The search envelope: `data`, `page_info` with the version's expiry name, `search_pool`. */
export function presentSearchPage(page: SearchResultPage, how: SearchPresentation): Record<string, unknown> {
  const indexId = page.search_pool?.index_id ?? '';
  const data =
    page.group_by === 'video'
      ? page.videos.map((group) => {
          const item: Record<string, unknown> = { id: group.id, clips: group.clips.map((clip) => presentClip(clip, indexId, how)) };
          const metadata = how.version.search.userMetadata ? userMetadata(group.user_metadata) : undefined;
          if (metadata) item.user_metadata = metadata;
          return item;
        })
      : page.clips.map((clip) => presentClip(clip, indexId, how));
  const info = page.page_info;
  const pageInfo = presentTokenPageInfo(info, how.version);
  if (page.group_by === 'video') pageInfo.total_inner_matches = info?.total_inner_matches ?? 0;
  return {
    data,
    page_info: pageInfo,
    search_pool: {
      total_count: page.search_pool?.total_count ?? 0,
      total_duration: page.search_pool?.total_duration ?? 0,
      index_id: indexId,
    },
  };
}
