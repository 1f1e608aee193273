import type { IndexClient } from '@vus/clients';
import { familyOfEngine } from '@vus/domain';
import { fromMetadataValues, type OutgoingContext, type PlainMetadataValue } from '@vus/grpc';
import { SEARCH_OPTIONS, type SearchOption } from './clips';
import type { IndexDirectory } from './search-types';

const CALL_TIMEOUT_MS = 10_000;
/** Ids a filter may narrow a search to; past it the search runs on the first ones (logged). */
const MAX_FILTERED_VIDEOS = 100_000;

/** Search models are Marengo's (Pegasus indexes generate text; they are not searched). */
function isSearchModel(name: string): boolean {
  return familyOfEngine(name) === 'marengo';
}

/** The IndexDirectory port over index-service's RPCs. */
export function indexDirectory(client: IndexClient): IndexDirectory {
  const ctx = (orgId: string): OutgoingContext => ({ orgId, deadline: new Date(Date.now() + CALL_TIMEOUT_MS) });
  return {
    async getIndex(orgId, indexId) {
      const index = await client.getIndex(ctx(orgId), indexId);
      const options = new Set(index.models.filter((m) => isSearchModel(m.name)).flatMap((m) => m.options));
      return {
        id: index.id,
        searchOptions: SEARCH_OPTIONS.filter((o): o is SearchOption => options.has(o)),
        searchModel: index.models.find((m) => isSearchModel(m.name))?.name,
        videoCount: index.video_count,
        totalDuration: index.total_duration,
      };
    },
    async videoIdsMatching(orgId, indexId, filter) {
      const { ids } = await client.listVideoIds(ctx(orgId), { index_id: indexId, filter, limit: MAX_FILTERED_VIDEOS });
      return ids;
    },
    async userMetadata(orgId, indexId, videoIds) {
      const found = new Map<string, Record<string, PlainMetadataValue>>();
      // A page of results names at most 50 videos: one list call.
      const { data } = await client.listVideos(ctx(orgId), {
        index_id: indexId,
        filter: { ids: [...videoIds] },
        page: { page: 1, page_limit: 50 },
      });
      for (const video of data) {
        const values = fromMetadataValues(video.user_metadata);
        found.set(
          video.id,
          Object.fromEntries(Object.entries(values).filter((e): e is [string, PlainMetadataValue] => e[1] !== undefined)),
        );
      }
      return found;
    },
  };
}
