/**
 * Single search: which segments answer a query through each requested option (retrieval.ts, with
 * the query's word groups of query-groups.ts), scored, merged into clips, filtered, ranked, stored
 * as a result set and served a page at a time (result-pages.ts). This module composes them.
 */
import { errors } from '@vus/core';
import { clipsOf, type Clip, type SearchOption, type SegmentMatch } from './clips';
import { checkQueryImage, checkSeveralImagesModel } from './query-image';
import { createQueryGroups } from './query-groups';
import { createResultPages } from './result-pages';
import { createRetrieval } from './retrieval';
import { createSearchableIndex } from './searchable-index';
import type { Query, ResultPage, Scope, SearchDeps, SearchParams } from './search-types';
import { entitySearchUnavailable } from './entity-parts';
export { entitySearchParts } from './entity-parts';
import { entityMatchesIn, joinEntityMatches, resolveEntities } from './entity-query';
import { entityMentions } from './entity-search';

/**
 * MatchClips (a classification's prompt) wants every match in its videos, not the best few: it
 * reads this many candidates per option and answers at most as many clips. A whole index of 1,000
 * videos classified with 200 candidates found 725 of the 999 videos that showed a class.
 */
export const MATCH_CANDIDATES_PER_OPTION = 10_000;

export function createSearch(deps: SearchDeps) {
  const onSearchableIndex = createSearchableIndex(deps.indexes);
  const { textMatches, matchesOf } = createRetrieval({ ...deps, semanticGroups: createQueryGroups(deps) });
  const { saveAndServe, page } = createResultPages(deps);

  /**
   * A query's matching segments, with `<@entity_id>` mentions in its text found by face and joined
   * with the rest (entity-query.ts), and the options its clips are made for: the visual one alone
   * when only mentions or an image are left to search. Single and combined searches alike.
   */
  async function matchesWithEntities(
    scope: Scope,
    query: Query,
    params: Pick<SearchParams, 'options' | 'conversationOption'>,
  ): Promise<{ matches: SegmentMatch[]; options: readonly SearchOption[] }> {
    const mentions = query.text === undefined ? undefined : entityMentions(query.text);
    const entityIds = mentions?.entityIds ?? [];
    const rest: Query = entityIds.length > 0 ? { ...query, text: mentions!.text || undefined } : query;
    const options: readonly SearchOption[] = rest.text === undefined ? ['visual'] : params.options;
    if (entityIds.length === 0) return { matches: await matchesOf(scope, query, params), options };
    if (!deps.entities) throw entitySearchUnavailable();
    const references = await resolveEntities(deps.entities, scope.orgId, entityIds);
    const [perEntity, restMatches] = await Promise.all([
      entityMatchesIn(deps.entities, scope, references, (images) =>
        matchesOf(scope, { image: images[0], moreImages: images.slice(1) }, { ...params, options: ['visual'] }),
      ),
      rest.text !== undefined || rest.image ? matchesOf(scope, rest, params) : undefined,
    ]);
    return { matches: joinEntityMatches(perEntity, restMatches), options };
  }

  return {
    onSearchableIndex,
    /** Entity search's face tracks (written by IngestFaceTracks); absent without entity search. */
    faceTracks: deps.entities?.faceTracks,
    saveAndServe,
    page,

    /** Starts loading what queries are expanded with (word vectors, WordNet definitions), if nothing has yet; not awaited. */
    prepare: (): void => void deps.neighboursReady?.(),

    matchesWithEntities,

    async search(orgId: string, indexId: string, query: Query, params: SearchParams, includeUserMetadata: boolean): Promise<ResultPage> {
      const images = query.image ? [query.image, ...(query.moreImages ?? [])] : [];
      // The image is checked inside the work: an index error is still the one reported first.
      const { index, result } = await onSearchableIndex(orgId, indexId, params.options, params.filter, async (scope) => {
        if (images.length > 0) {
          for (const image of images) await checkQueryImage(image);
          if (!params.options.includes('visual'))
            throw errors.invalid('search_options', 'A query image is searched through the visual option; include visual.');
        }
        return matchesWithEntities(scope, query, params);
      });
      checkSeveralImagesModel(images.length, indexId, index.searchModel);
      const clips = clipsOf(result.matches, {
        operator: params.operator,
        options: result.options,
        threshold: params.threshold,
        adjustConfidenceLevel: params.adjustConfidenceLevel,
      });
      return saveAndServe(orgId, index, params, clips, includeUserMetadata);
    },

    /**
     * Every clip a text matches in some videos of the index (all of them when `videoIds` is empty),
     * ranked, neither paged nor stored: a classification's prompt. Videos not in the index match nothing.
     */
    async matchClips(
      orgId: string,
      indexId: string,
      text: string,
      params: Pick<SearchParams, 'options' | 'conversationOption' | 'threshold'> & { videoIds: readonly string[] },
    ): Promise<Clip[]> {
      const filter = params.videoIds.length > 0 ? { ids: [...params.videoIds] } : undefined;
      const candidates = { lexical: MATCH_CANDIDATES_PER_OPTION, nearest: MATCH_CANDIDATES_PER_OPTION };
      const { result: matches } = await onSearchableIndex(orgId, indexId, params.options, filter, (scope) =>
        scope.videoIds && scope.videoIds.length === 0
          ? Promise.resolve([])
          : textMatches(scope, text, params.options, params.conversationOption, candidates),
      );
      return clipsOf(matches, { operator: 'or', options: params.options, threshold: params.threshold, adjustConfidenceLevel: 0.5 }).slice(
        0,
        MATCH_CANDIDATES_PER_OPTION,
      );
    },
  };
}

export type Search = ReturnType<typeof createSearch>;
