import { knownId } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { ResolvedKnowledgeStoreItem } from '@vus/grpc/types/task/v1/ResolvedKnowledgeStoreItem';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { itemsByVideo, presentKnowledgeSearchPage } from '../presenters/knowledge-search';
import { configured, type RouteDeps } from './deps';
import * as docs from './knowledge-search.docs';
import { decodePageToken, nextPageToken, resolvedAssetType, searchScope, type SearchCursor } from './knowledge-search.plan';
import { parseKnowledgeSearch, type KnowledgeSearchInput } from './knowledge-search.schema';

/** A page of results, the store's items it is read against, and where it starts. */
interface Found {
  page: SearchResultPage | undefined;
  items: ResolvedKnowledgeStoreItem[];
  cursor: Omit<SearchCursor, 'searchToken'>;
}

/**
 * POST /knowledge-stores/{id}/search (v1.3, twelvelabs-js 1.3.4 `knowledgeStores.search`):
 * task-service resolves the store's items (narrowed by the filter) to their videos in the store's
 * internal index, search-service searches those videos, and the answer names items, not videos.
 * A later page (page_token) is search-service's page of the same result set, read against the
 * store's items as they are now.
 */
export function knowledgeSearchEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const task = () => configured(clients.task, 'knowledgeStores');
  const search = () => configured(clients.search, 'search');

  const firstPage = async (ctx: OutgoingContext, storeId: string, input: KnowledgeSearchInput): Promise<Found> => {
    const resolved = await task().resolveKnowledgeStoreItems(ctx, {
      knowledge_store_id: storeId,
      item_ids: input.itemIds,
      collection_ids: [],
      asset_type: resolvedAssetType(input),
    });
    const cursor = { storeId, groupBy: input.groupBy, modalities: input.assetTypes.includes('video') ? input.modalities : [], offset: 0 };
    const scope = resolved.index_id ? searchScope(resolved.items, input.modalities) : undefined;
    if (!scope) return { page: undefined, items: resolved.items, cursor };
    const page = await search().search(ctx, {
      index_id: resolved.index_id,
      query_text: input.text,
      search_options: scope.options,
      group_by: input.groupBy === 'item' ? 'video' : 'clip',
      page_limit: input.pageSize,
      filter: { ids: scope.videoIds },
    });
    return { page, items: resolved.items, cursor };
  };

  // The result set holds the first request's items only; every item of the store maps them back.
  const laterPage = async (ctx: OutgoingContext, cursor: SearchCursor): Promise<Found> => {
    const [resolved, page] = await Promise.all([
      task().resolveKnowledgeStoreItems(ctx, { knowledge_store_id: cursor.storeId, item_ids: [], collection_ids: [], asset_type: '' }),
      search().getSearchPage(ctx, { page_token: cursor.searchToken, include_user_metadata: false }),
    ]);
    return { page, items: resolved.items, cursor };
  };

  return [
    {
      method: 'post',
      path: '/knowledge-stores/:storeId/search',
      availability: 'POST /knowledge-stores',
      // As /search: a search counts, fetching a later page of one does not (API-CONTRACT §2.6).
      rate: (body) => (body.page_token === undefined ? ['search'] : []),
      doc: docs.searchKnowledgeStore,
      handle: async (req, res) => {
        // A server without the services says so before anything is read, as the store's other endpoints do.
        task();
        search();
        const storeId = knownId('Knowledge store', req.params.storeId);
        const input = parseKnowledgeSearch(req.body);
        const ctx = outgoing(res, timeoutMs);
        const { page, items, cursor } =
          input.pageToken === undefined
            ? await firstPage(ctx, storeId, input)
            : await laterPage(ctx, decodePageToken(input.pageToken, storeId));
        res.json(
          presentKnowledgeSearchPage(page, {
            itemsByVideo: itemsByVideo(items),
            offset: cursor.offset,
            includeMetadata: input.includeMetadata,
            modalities: cursor.modalities,
            nextPageToken: nextPageToken(cursor, page),
          }),
        );
      },
    },
  ];
}
