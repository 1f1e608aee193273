/**
 * Result sets: a search's clips kept (at most MAX_RESULTS) and served a page at a time until they
 * expire. A set is written only when it has a later page to ask for (a single page names no set:
 * both its tokens are empty), and the search answers while its row is written: a page asked of this
 * process before the row lands is served from memory (unwritten), any process reads the row after.
 */
import { ApiError, newResultSetId, parsePageToken, slicePage } from '@vus/core';
import { groupByVideo, type Clip, type VideoGroup } from './clips';
import type { IndexInfo, ResultPage, SearchDeps, SearchParams, StoredResultSet } from './search-types';

/** The most clips a result set keeps (later pages beyond it are not offered). */
export const MAX_RESULTS = 1000;
/**
 * Sets whose row is still being written, at most: past it a search waits for its own row, so a
 * database slower than the searches holds them back instead of letting memory grow.
 */
export const MAX_UNWRITTEN_SETS = 256;

export function createResultPages(deps: Pick<SearchDeps, 'store' | 'indexes' | 'clock' | 'pageTtlMs' | 'logger'>) {
  const { store, indexes } = deps;
  const unwritten = new Map<string, StoredResultSet>();

  /** Writes the set's row without holding up the search (see the module's comment). */
  async function keep(set: StoredResultSet): Promise<void> {
    unwritten.set(set.id, set);
    const written = store
      .saveResultSet(set)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, resultSetId: set.id }, 'result set not stored: its later pages read as expired'),
      )
      .finally(() => unwritten.delete(set.id));
    if (unwritten.size > MAX_UNWRITTEN_SETS) await written;
  }

  /** Keeps the clips as a new result set and serves its first page. */
  async function saveAndServe(
    orgId: string,
    index: IndexInfo,
    params: Pick<SearchParams, 'groupBy' | 'sortOption' | 'pageLimit'>,
    clips: Clip[],
    includeUserMetadata: boolean,
  ): Promise<ResultPage> {
    const kept = clips.slice(0, MAX_RESULTS);
    const videos = params.groupBy === 'video' ? groupByVideo(kept, params.sortOption) : [];
    const now = deps.clock.now();
    const set: StoredResultSet = {
      id: newResultSetId(),
      orgId,
      indexId: index.id,
      groupBy: params.groupBy,
      pageLimit: params.pageLimit,
      items: params.groupBy === 'video' ? videos : kept,
      totalResults: params.groupBy === 'video' ? videos.length : kept.length,
      totalInnerMatches: kept.length,
      searchPool: { totalCount: index.videoCount, totalDuration: index.totalDuration, indexId: index.id },
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.pageTtlMs),
    };
    const first = await servePage(set, 1, includeUserMetadata);
    if (first.pageInfo.nextPageToken) await keep(set);
    return first;
  }

  async function servePage(set: StoredResultSet, page: number, includeUserMetadata: boolean): Promise<ResultPage> {
    const slice = slicePage(set.id, set.items, page, set.pageLimit);
    const clips = set.groupBy === 'clip' ? (slice.items as Clip[]) : [];
    const videos = set.groupBy === 'video' ? (slice.items as VideoGroup[]) : [];
    const videoIds = [...new Set([...clips.map((c) => c.videoId), ...videos.map((v) => v.videoId)])];
    return {
      groupBy: set.groupBy,
      clips,
      videos,
      pageInfo: {
        limitPerPage: set.pageLimit,
        totalResults: set.totalResults,
        totalInnerMatches: set.totalInnerMatches,
        nextPageToken: slice.nextPageToken,
        prevPageToken: slice.prevPageToken,
        expiresAt: set.expiresAt,
      },
      searchPool: set.searchPool as ResultPage['searchPool'],
      userMetadata: includeUserMetadata && videoIds.length > 0 ? await indexes.userMetadata(set.orgId, set.indexId, videoIds) : undefined,
    };
  }

  /** A later page. Unknown, malformed, another organization's and expired tokens all read as expired. */
  async function page(orgId: string, token: string, includeUserMetadata: boolean): Promise<ResultPage> {
    const parsed = parsePageToken(token);
    const held = parsed && unwritten.get(parsed.setId);
    const set = parsed && (held?.orgId === orgId ? held : await store.loadResultSet(orgId, parsed.setId));
    if (!parsed || !set || set.expiresAt.getTime() <= deps.clock.now().getTime()) {
      throw new ApiError('search_page_token_expired', `The page token ${token} has expired or does not exist. Run the search again.`, {
        param: 'page_token',
      });
    }
    return servePage(set, parsed.page, includeUserMetadata);
  }

  return { saveAndServe, page };
}
