/**
 * Combined queries: the tree is planned into single searches (one per distinct leaf), each leaf's
 * matching moments are found like a single search's clips, and the tree is evaluated over the
 * moments of each video (combined.ts, intervals.ts).
 */
import { errors, parseInput } from '@vus/core';
import type { CombinedSearchRequest } from '@vus/grpc/types/search/v1/CombinedSearchRequest';
import { z } from 'zod';
import { clipsOf, rankClips, type Clip, type SearchOption } from './clips';
import { evaluate, fromProtoQuery, leavesOf } from './combined';
import type { Moment } from './intervals';
import { confidenceOf, meetsThreshold } from './scoring';
import type { ResultPage, Search } from './search';

const paramsSchema = z.object({
  threshold: z.enum(['', 'high', 'medium', 'low', 'none']).transform((v) => v || 'low'),
  adjust_confidence_level: z.number().min(0).max(1).optional(),
  page_limit: z.number().int().min(0).max(50).transform((v) => v || 10),
});

export function createCombinedSearch(search: Search) {
  return {
    async search(orgId: string, indexId: string, request: CombinedSearchRequest): Promise<ResultPage> {
      if (!request.query) throw errors.notProvided('query');
      const params = parseInput(paramsSchema, request);
      const adjust = params.adjust_confidence_level ?? 0.5;
      const tree = fromProtoQuery(request.query, { searchOptions: request.search_options, conversationOption: request.conversation_option });
      const leaves = leavesOf(tree);
      const options = [...new Set(leaves.flatMap((leaf) => leaf.searchOptions))] as SearchOption[];
      const index = await search.searchableIndex(orgId, indexId, options);
      const scope = await search.scopeOf(orgId, indexId, request.filter ?? undefined);

      // Leaves are found at every confidence and the threshold applies to the combined moments: a
      // weak match still counts for `not` (it removes), and `and` already keeps the weaker score.
      const leafClips = new Map<string, Clip[]>();
      for (const leaf of leaves) {
        const leafOptions = leaf.searchOptions as SearchOption[];
        const matches = await search.matchesOf(scope, { text: leaf.text }, { options: leafOptions, conversationOption: leaf.conversationOption });
        leafClips.set(leaf.key, clipsOf(matches, { operator: 'or', options: leafOptions, threshold: 'none', adjustConfidenceLevel: adjust }));
      }
      const moments = evaluate(tree, (key) => momentsByVideo(leafClips.get(key) ?? []));

      const everyLeafClip = [...leafClips.values()].flat();
      const clips: Clip[] = [];
      for (const [videoId, list] of moments) {
        for (const moment of list) {
          const confidence = confidenceOf(moment.score, adjust);
          if (!meetsThreshold(confidence, params.threshold)) continue;
          clips.push(clipOfMoment(videoId, moment, confidence, everyLeafClip));
        }
      }
      return search.saveAndServe(orgId, index, { groupBy: 'clip', sortOption: 'score', pageLimit: params.page_limit }, rankClips(clips), false);
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

/** A combined moment as a clip; what matched and the thumbnail come from the leaf clips inside it. */
function clipOfMoment(videoId: string, moment: Moment, confidence: Clip['confidence'], leafClips: readonly Clip[]): Clip {
  const inside = leafClips
    .filter((c) => c.videoId === videoId && c.start < moment.end && c.end > moment.start)
    .sort((a, b) => b.score - a.score);
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
    transcription: inside.map((c) => c.transcription).filter(Boolean).join(' '),
    rank: 0,
  };
}
