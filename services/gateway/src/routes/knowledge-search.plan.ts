import { ApiError, errors } from '@vus/core';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { ResolvedKnowledgeStoreItem } from '@vus/grpc/types/task/v1/ResolvedKnowledgeStoreItem';
import { z } from 'zod';
import { v13ToCanonicalOptions, type CanonicalOption } from '../versions/options';
import {
  GROUP_BY,
  SEARCH_MODALITIES,
  type KnowledgeGroupBy,
  type KnowledgeSearchInput,
  type SearchModality,
} from './knowledge-search.schema';

/**
 * How a knowledge-store search is run: the store's items are videos of one internal index
 * (task-service makes it, with this model), so the search is search-service's over that index,
 * restricted to the ready items' videos; its later pages come by search-service's page token,
 * wrapped with what the store's answer needs besides (page_token below). Pure.
 */

/** The model of a store's internal index (task-service): its options are v1.3's visual and audio. */
const STORE_MODEL = 'marengo3.0';

/** What one search reads: the ready items' videos, through these canonical options. */
export interface SearchScope {
  videoIds: string[];
  options: CanonicalOption[];
}

/** An item that can be searched: ready, with its video in the store's index. */
export const isSearchable = (item: ResolvedKnowledgeStoreItem): boolean => item.status === 'ready' && item.video_id !== '';

/**
 * The search over `items` (already narrowed by the filter), or undefined when none is ready (an
 * empty page, not an error). Videos are matched through the modalities asked for; images (still
 * videos in the index) always through the visual one, as the reference says. One search cannot
 * do both when the modalities leave visual out, so that combination over a store holding both
 * is refused with what to change rather than answered wrong.
 */
export function searchScope(items: readonly ResolvedKnowledgeStoreItem[], modalities: readonly SearchModality[]): SearchScope | undefined {
  const ready = items.filter(isSearchable);
  if (ready.length === 0) return undefined;
  const hasVideos = ready.some((item) => item.asset_type === 'video');
  const hasImages = ready.some((item) => item.asset_type === 'image');
  if (hasVideos && hasImages && !modalities.includes('visual')) {
    throw new ApiError(
      'search_option_combination_not_supported',
      'Images are matched on their visual content, which these modalities leave out: add visual to search_options.video.modalities, or set filter.asset_type to video.',
      { param: 'search_options' },
    );
  }
  return {
    videoIds: ready.map((item) => item.video_id),
    options: v13ToCanonicalOptions(STORE_MODEL, hasVideos ? modalities : ['visual']),
  };
}

/** filter.asset_type as ResolveKnowledgeStoreItems takes it: '' for any. */
export const resolvedAssetType = (input: Pick<KnowledgeSearchInput, 'assetTypes'>): string =>
  input.assetTypes.length === 1 ? input.assetTypes[0]! : '';

/** Where a later page of a search starts. */
export interface SearchCursor {
  storeId: string;
  groupBy: KnowledgeGroupBy;
  /** The video modalities searched (the answer's effective_search_options); empty when videos were not. */
  modalities: SearchModality[];
  /** Results before the page: its first rank is offset + 1. */
  offset: number;
  /** search-service's token of the page. */
  searchToken: string;
}

const TOKEN_PREFIX = 'ks1.';
const cursorSchema = z.strictObject({
  s: z.string().min(1).max(64),
  g: z.enum(GROUP_BY),
  m: z.array(z.enum(SEARCH_MODALITIES)).max(SEARCH_MODALITIES.length),
  o: z.int().min(0).max(1_000_000),
  t: z.string().min(1).max(256),
});

/** The next_page_token after `page` (whose cursor is `cursor`), or undefined on the last page. */
export function nextPageToken(cursor: Omit<SearchCursor, 'searchToken'>, page: SearchResultPage | undefined): string | undefined {
  const info = page?.page_info;
  if (!info?.next_page_token) return undefined;
  return encodePageToken({ ...cursor, offset: cursor.offset + info.limit_per_page, searchToken: info.next_page_token });
}

/** The next_page_token: the cursor as base64url JSON. Not secret: every part is the caller's own, read again under its organization. */
export function encodePageToken(cursor: SearchCursor): string {
  const wire: z.infer<typeof cursorSchema> = {
    s: cursor.storeId,
    g: cursor.groupBy,
    m: cursor.modalities,
    o: cursor.offset,
    t: cursor.searchToken,
  };
  return TOKEN_PREFIX + Buffer.from(JSON.stringify(wire)).toString('base64url');
}

/** The cursor of a page_token given for store `storeId`; a 400 naming page_token for anything else. */
export function decodePageToken(token: string, storeId: string): SearchCursor {
  const malformed = () =>
    errors.invalid('page_token', 'It is not a page token of a knowledge-store search: pass next_page_token as it was returned.');
  if (!token.startsWith(TOKEN_PREFIX)) throw malformed();
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  const parsed = cursorSchema.safeParse(raw);
  if (!parsed.success) throw malformed();
  const { s, g, m, o, t } = parsed.data;
  if (s !== storeId) throw errors.invalid('page_token', 'It belongs to a search of another knowledge store.');
  return { storeId: s, groupBy: g, modalities: m, offset: o, searchToken: t };
}
