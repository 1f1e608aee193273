/** Whether an organization's index can be searched with some options, and which of its videos a search reads. */
import { ApiError } from '@vus/core';
import type { VideoFilter__Input } from '@vus/grpc/types/index/v1/VideoFilter';
import type { SearchOption } from './clips';
import type { IndexDirectory, IndexInfo, Scope } from './search-types';

export function createSearchableIndex(indexes: IndexDirectory) {
  /** The index, if this organization has it and it can be searched with `options`. */
  async function searchableIndex(orgId: string, indexId: string, options: readonly SearchOption[]): Promise<IndexInfo> {
    const index = await indexes.getIndex(orgId, indexId);
    if (index.searchOptions.length === 0) {
      throw new ApiError('index_not_supported_for_search', `The index ${indexId} has no search model (Marengo); it cannot be searched.`);
    }
    for (const option of options) {
      if (!index.searchOptions.includes(option)) {
        throw new ApiError(
          'search_option_not_supported',
          `Search option ${option} is not supported for index ${indexId}. Please use one of the following search options: ${index.searchOptions.join(', ')}.`,
          { param: 'search_options' },
        );
      }
    }
    return index;
  }

  async function scopeOf(orgId: string, indexId: string, filter: VideoFilter__Input | undefined): Promise<Scope> {
    if (!filter) return { orgId, indexId };
    return { orgId, indexId, videoIds: await indexes.videoIdsMatching(orgId, indexId, filter) };
  }

  /**
   * Runs `work` on the search's scope while the index is checked, rather than after: a round trip
   * to index-service less on every search. The index's error, if any, is the one reported (the
   * work's results are then dropped; its queries were bound to this organization all the same).
   */
  return async function onSearchableIndex<T>(
    orgId: string,
    indexId: string,
    options: readonly SearchOption[],
    filter: VideoFilter__Input | undefined,
    work: (scope: Scope) => Promise<T>,
  ): Promise<{ index: IndexInfo; result: T }> {
    const [index, result] = await Promise.allSettled([
      searchableIndex(orgId, indexId, options),
      scopeOf(orgId, indexId, filter).then(work),
    ]);
    if (index.status === 'rejected') throw index.reason;
    if (result.status === 'rejected') throw result.reason;
    return { index: index.value, result: result.value };
  };
}
