/**
 * Combined queries: the tree is planned into single searches (one per distinct leaf), each leaf's
 * matching moments are found like a single search's clips, and the tree is evaluated over the
 * moments of each video (combined.ts, intervals.ts).
 */
import type { VideoFilter__Input } from '@vus/grpc/types/index/v1/VideoFilter';
import type { CombinedQuery } from '@vus/grpc/types/search/v1/CombinedQuery';
import { clipsOf, rankClips, type Clip, type SearchOption } from './clips';
import { evaluate, fromProtoQuery, leavesOf } from './combined';
import type { Moment } from '@vus/domain';
import { confidenceOf, meetsThreshold, type Threshold } from './scoring';
import type { Search } from './search';
import type { ResultPage } from './search-types';

export interface CombinedParams {
  /** The request's defaults for leaves without their own (proto strings: '' when unset). */
  searchOptions: string[];
  conversationOption: string;
  threshold: Threshold;
  adjustConfidenceLevel: number;
  pageLimit: number;
  filter?: VideoFilter__Input | undefined;
}

export function createCombinedSearch(search: Search) {
  return {
    async search(orgId: string, indexId: string, query: CombinedQuery, params: CombinedParams): Promise<ResultPage> {
      const adjust = params.adjustConfidenceLevel;
      const tree = fromProtoQuery(query, { searchOptions: params.searchOptions, conversationOption: params.conversationOption });
      const leaves = leavesOf(tree);
      const options = [...new Set(leaves.flatMap((leaf) => leaf.searchOptions))] as SearchOption[];
      // Leaves are found at every confidence and the threshold applies to the combined moments: a
      // weak match still counts for `not` (it removes), and `and` already keeps the weaker score.
      // The leaves' searches are independent: they run at once.
      const { index, result: leafClips } = await search.onSearchableIndex(orgId, indexId, options, params.filter, (scope) =>
        Promise.all(
          leaves.map(async (leaf) => {
            // A leaf may name entities (`<@entity_id> at the podium`) as a single search's text may.
            const { matches, options: leafOptions } = await search.matchesWithEntities(
              scope,
              { text: leaf.text },
              { options: leaf.searchOptions as SearchOption[], conversationOption: leaf.conversationOption },
            );
            return clipsOf(matches, { operator: 'or', options: leafOptions, threshold: 'none', adjustConfidenceLevel: adjust });
          }),
        ),
      );
      const leafMoments = new Map<string, Map<string, Moment[]>>();
      const leafClipsByVideo = new Map<string, Clip[]>();
      for (const [i, leaf] of leaves.entries()) {
        const clips = leafClips[i]!;
        leafMoments.set(leaf.key, momentsByVideo(clips));
        for (const clip of clips) {
          const list = leafClipsByVideo.get(clip.videoId);
          if (list) list.push(clip);
          else leafClipsByVideo.set(clip.videoId, [clip]);
        }
      }
      const moments = evaluate(tree, (key) => leafMoments.get(key));

      const clips: Clip[] = [];
      for (const [videoId, list] of moments) {
        for (const moment of list) {
          const confidence = confidenceOf(moment.score, adjust);
          if (!meetsThreshold(confidence, params.threshold)) continue;
          clips.push(clipOfMoment(videoId, moment, confidence, leafClipsByVideo.get(videoId) ?? []));
        }
      }
      return search.saveAndServe(
        orgId,
        index,
        { groupBy: 'clip', sortOption: 'score', pageLimit: params.pageLimit },
        rankClips(clips),
        false,
      );
    },
  };
}

export type CombinedSearch = ReturnType<typeof createCombinedSearch>;

function momentsByVideo(clips: readonly Clip[]): Map<string, Moment[]> {
  const byVideo = new Map<string, Moment[]>();
  for (const clip of clips) {
    const moment = { start: clip.start, end: clip.end, score: clip.score };
    const list = byVideo.get(clip.videoId);
    if (list) list.push(moment);
    else byVideo.set(clip.videoId, [moment]);
  }
  return byVideo;
}

/** A combined moment as a clip; what matched and the thumbnail come from the video's leaf clips inside it. */
function clipOfMoment(videoId: string, moment: Moment, confidence: Clip['confidence'], videoLeafClips: readonly Clip[]): Clip {
  const inside = videoLeafClips.filter((c) => c.start < moment.end && c.end > moment.start).sort((a, b) => b.score - a.score);
  const matches: Clip['matches'] = [];
  for (const match of inside.flatMap((c) => c.matches)) {
    if (!matches.some((m) => m.option === match.option && m.text === match.text)) matches.push(match);
  }
  return {
    videoId,
    start: moment.start,
    end: moment.end,
    score: moment.score,
    confidence,
    modules: [],
    matches: matches.slice(0, 5),
    thumbnailKey: inside.find((c) => c.thumbnailKey)?.thumbnailKey ?? '',
    transcription: inside
      .map((c) => c.transcription)
      .filter(Boolean)
      .join(' '),
    rank: 0,
  };
}
