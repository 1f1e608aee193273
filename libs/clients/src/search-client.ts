import { callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { CombinedSearchRequest__Input } from '@vus/grpc/types/search/v1/CombinedSearchRequest';
import type { GetSearchPageRequest__Input } from '@vus/grpc/types/search/v1/GetSearchPageRequest';
import type { MatchClipsRequest__Input } from '@vus/grpc/types/search/v1/MatchClipsRequest';
import type { MatchClipsResponse } from '@vus/grpc/types/search/v1/MatchClipsResponse';
import type { ListVideoSegmentsResponse } from '@vus/grpc/types/search/v1/ListVideoSegmentsResponse';
import type { IngestSegmentsRequest__Input } from '@vus/grpc/types/search/v1/IngestSegmentsRequest';
import type { IngestFaceTracksRequest__Input } from '@vus/grpc/types/search/v1/IngestFaceTracksRequest';
import type { SearchRequest__Input } from '@vus/grpc/types/search/v1/SearchRequest';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { SearchServiceClient } from '@vus/grpc/types/search/v1/SearchService';

/** search-service: segments in, searches and their pages out. */
export function createSearchClient(address: string) {
  const client = createServiceClient<SearchServiceClient>('search-service', address);
  return {
    ingestSegments: (ctx: OutgoingContext, request: IngestSegmentsRequest__Input) =>
      callUnary<unknown>((md, opts, cb) => client.IngestSegments(request, md, opts, cb), ctx),
    ingestFaceTracks: (ctx: OutgoingContext, request: IngestFaceTracksRequest__Input) =>
      callUnary<unknown>((md, opts, cb) => client.IngestFaceTracks(request, md, opts, cb), ctx),
    deleteVideoSegments: (ctx: OutgoingContext, indexId: string, videoId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteVideoSegments({ index_id: indexId, video_id: videoId }, md, opts, cb), ctx),
    deleteIndexSegments: (ctx: OutgoingContext, indexId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteIndexSegments({ index_id: indexId }, md, opts, cb), ctx),
    listVideoSegments: (ctx: OutgoingContext, indexId: string, videoId: string) =>
      callUnary<ListVideoSegmentsResponse>(
        (md, opts, cb) => client.ListVideoSegments({ index_id: indexId, video_id: videoId }, md, opts, cb),
        ctx,
      ),
    search: (ctx: OutgoingContext, request: SearchRequest__Input) =>
      callUnary<SearchResultPage>((md, opts, cb) => client.Search(request, md, opts, cb), ctx),
    getSearchPage: (ctx: OutgoingContext, request: GetSearchPageRequest__Input) =>
      callUnary<SearchResultPage>((md, opts, cb) => client.GetSearchPage(request, md, opts, cb), ctx),
    combinedSearch: (ctx: OutgoingContext, request: CombinedSearchRequest__Input) =>
      callUnary<SearchResultPage>((md, opts, cb) => client.CombinedSearch(request, md, opts, cb), ctx),
    matchClips: (ctx: OutgoingContext, request: MatchClipsRequest__Input) =>
      callUnary<MatchClipsResponse>((md, opts, cb) => client.MatchClips(request, md, opts, cb), ctx),
    close: () => client.close(),
  };
}

export type SearchClient = ReturnType<typeof createSearchClient>;
