import type { IndexClient, SearchClient } from '@vus/clients';
import type { CanonicalOption } from '@vus/domain';
import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import { mapLimited, type ClassifyDirectory, type VideoRef } from './classify';
import type { PromptClip } from './scoring';

/** Video lookups at once per request. */
const LOOKUP_CONCURRENCY = 8;
/** index-service's largest page. */
const LIST_PAGE = 50;

const refOf = (video: { id: string; index_id: string; system_metadata?: { duration: number } | null }): VideoRef => ({
  id: video.id,
  indexId: video.index_id,
  duration: video.system_metadata?.duration ?? 0,
});

/** A search clip as a prompt's clip: its option is the one that matched it best. */
function promptClip(clip: SearchClip, indexId: string, prompt: string): PromptClip {
  const best = [...clip.modules].sort((a, b) => b.score - a.score)[0];
  return {
    videoId: clip.video_id,
    indexId,
    start: clip.start,
    end: clip.end,
    score: clip.score,
    option: (best?.type ?? 'visual') as CanonicalOption,
    prompt,
    thumbnailKey: clip.thumbnail_key,
  };
}

/**
 * Videos from index-service (any index of the organization: a video id alone finds its index) and
 * prompts' clips from search-service. Calls carry the caller's deadline and organization.
 */
export function serviceDirectory(index: IndexClient, search: SearchClient): ClassifyDirectory {
  return {
    async videos(orgId, videoIds) {
      return mapLimited(videoIds, LOOKUP_CONCURRENCY, async (id) => refOf(await index.getVideo({ orgId }, '', id)));
    },
    async indexVideos(orgId, indexId) {
      const videos: VideoRef[] = [];
      for (let page = 1; ; page++) {
        const answer = await index.listVideos({ orgId }, { index_id: indexId, page: { page, page_limit: LIST_PAGE } });
        videos.push(...answer.data.map(refOf));
        if (answer.data.length < LIST_PAGE || page >= (answer.page_info?.total_page ?? page)) return videos;
      }
    },
    async matchClips(orgId, indexId, prompt, s, signal) {
      const answer = await search.matchClips(
        { orgId, signal },
        {
          index_id: indexId,
          query_text: prompt,
          search_options: s.options,
          conversation_option: s.conversationOption,
          threshold: s.confidence,
          video_ids: [...s.videoIds],
        },
      );
      return answer.clips.map((clip) => promptClip(clip, indexId, prompt));
    },
  };
}
