/**
 * Single search: which segments answer a query through each requested option, scored, merged into
 * clips, filtered, ranked, stored as a result set and served a page at a time.
 */
import { ApiError, currentCaller, errors, type Clock, type Logger } from '@vus/core';
import type { PlainMetadataValue } from '@vus/grpc';
import type { VideoFilter__Input } from '@vus/grpc/types/index/v1/VideoFilter';
import { describeImage } from '@vus/models';
import { clipsOf, composedMatches, groupByVideo, type Clip, type SearchOption, type SegmentMatch, type VideoGroup } from './clips';
import { hitCoverage, lexicalPlan, scoreHit, type LexicalPlan, type TermGroup } from './lexical';
import { newResultSetId, parsePageToken, slicePage } from './pages';
import { coverageScore, vectorScore, type Threshold } from './scoring';
import { withNeighbours, type Neighbour } from './semantic';

/** Which segments a search may read: one organization's index, and maybe only some of its videos. */
export interface Scope {
  orgId: string;
  indexId: string;
  /** Only these videos (a search filter); undefined: every video of the index. */
  videoIds?: readonly string[] | undefined;
}

export interface SegmentHit {
  id: string;
  videoId: string;
  modality: SearchOption;
  start: number;
  end: number;
  text: string;
  thumbnailKey: string;
}

/**
 * A lexical hit and how it matched each query alternative: `d` the segment's own words (direct),
 * `e` only with expansions, `-` not at all.
 */
export interface LexicalHit extends SegmentHit {
  kinds: string;
}

export interface VectorHit extends SegmentHit {
  similarity: number;
}

/** A search's results, kept so that later pages are served from it. */
export interface StoredResultSet {
  id: string;
  orgId: string;
  indexId: string;
  groupBy: 'clip' | 'video';
  pageLimit: number;
  items: unknown[];
  totalResults: number;
  totalInnerMatches: number;
  searchPool: unknown;
  createdAt: Date;
  expiresAt: Date;
}

/** What search needs from storage: store.ts implements it on SQL, tests on memory. */
export interface SearchStore {
  /**
   * Segments of the given modalities that match the plan, at most `limit`, each with its match
   * kinds (one character per alternative of the plan).
   */
  lexical(scope: Scope, modalities: readonly SearchOption[], plan: LexicalPlan, limit: number): Promise<LexicalHit[]>;
  /** Conversation segments containing `phrase` word for word (unstemmed, in order). */
  exactPhrase(scope: Scope, phrase: string, limit: number): Promise<SegmentHit[]>;
  /** Whether vectors are stored at all (pgvector present). */
  vectorsEnabled(): Promise<boolean>;
  /** Visual segments nearest to `vector` (cosine) among those embedded by `model`; none without vectors. */
  nearest(scope: Scope, model: string, vector: readonly number[], limit: number): Promise<VectorHit[]>;
  saveResultSet(set: StoredResultSet): Promise<void>;
  /** The organization's result set, expired or not (the caller tells the two apart). */
  loadResultSet(orgId: string, id: string): Promise<StoredResultSet | undefined>;
  /** The index's plain words (what its videos say and show), at most `limit`. */
  vocabulary(orgId: string, indexId: string, limit: number): Promise<string[]>;
}

/** What search needs to know of an index (index-service owns it). */
export interface IndexInfo {
  id: string;
  /** Options of the index's search (Marengo) models; empty: the index cannot be searched. */
  searchOptions: SearchOption[];
  videoCount: number;
  totalDuration: number;
}

export interface IndexDirectory {
  /** The organization's index; resource_not_exist otherwise. */
  getIndex(orgId: string, indexId: string): Promise<IndexInfo>;
  /** Ids of the index's videos that pass the filter. */
  videoIdsMatching(orgId: string, indexId: string, filter: VideoFilter__Input): Promise<string[]>;
  userMetadata(orgId: string, indexId: string, videoIds: readonly string[]): Promise<Map<string, Record<string, PlainMetadataValue>>>;
}

/**
 * What a query needs of the models (embed-service serves them); each may be unavailable, and then
 * that path is skipped (vectors: the search is lexical) or refused (an image with neither).
 */
export interface QueryModels {
  /** The query's vector in the visual model's space and that model's name; undefined when no visual model answers. */
  embed(orgId: string, input: { text: string } | { image: Buffer }): Promise<{ model: string; vector: Float32Array } | undefined>;
  /** The objects the detector sees in the image; undefined when no detector answers. */
  imageLabels(orgId: string, image: Buffer): Promise<string[] | undefined>;
}

export interface SearchDeps {
  store: SearchStore;
  indexes: IndexDirectory;
  expand(text: string): TermGroup[];
  /**
   * A word's nearest words among `vocabulary` by word vectors (semantic.ts nearestWords), leaving
   * out `exclude`; absent: no semantic neighbours (WordNet only).
   */
  neighbours?: ((word: string, vocabulary: readonly string[], exclude: ReadonlySet<string>) => Neighbour[]) | undefined;
  /**
   * Settles when what `neighbours` draws on is loaded (or has failed): the word vectors load on the
   * first query, and a query answered before would silently miss what it means.
   */
  neighboursReady?: (() => Promise<void>) | undefined;
  models: QueryModels;
  clock: Clock;
  logger: Logger;
  /** How long a result set can be paged. */
  pageTtlMs: number;
}

/**
 * How speech is matched: `semantic` by meaning (the words, WordNet's synonyms and broader words,
 * and word-vector neighbours), `lexical` by the words said (stemmed, any order), `exact_match` by
 * the phrase as said, word for word. v1.3's transcription_options map onto the first two.
 */
export type ConversationOption = 'semantic' | 'lexical' | 'exact_match';

/** One query: text, an image, or both. */
export interface Query {
  text?: string | undefined;
  image?: Buffer | undefined;
}

export interface SearchParams {
  options: SearchOption[];
  conversationOption: ConversationOption;
  operator: 'or' | 'and';
  threshold: Threshold;
  adjustConfidenceLevel: number;
  groupBy: 'clip' | 'video';
  sortOption: 'score' | 'clip_count';
  pageLimit: number;
  filter?: VideoFilter__Input | undefined;
}

export interface ResultPage {
  groupBy: 'clip' | 'video';
  clips: Clip[];
  videos: VideoGroup[];
  pageInfo: {
    limitPerPage: number;
    totalResults: number;
    totalInnerMatches: number;
    nextPageToken: string;
    prevPageToken: string;
    expiresAt: Date;
  };
  searchPool: { totalCount: number; totalDuration: number; indexId: string };
  /** Per video of the page, only when asked for. */
  userMetadata?: Map<string, Record<string, PlainMetadataValue>> | undefined;
}

/**
 * How long a query waits for the semantic neighbours to load (the word vectors: 2–8 s on the first
 * query after start, more on a loaded machine) before it goes on with WordNet alone, at most
 * (neighboursWaitMs: half the time its caller gives it, so 15 s under the gateway's 30 s).
 */
export const NEIGHBOURS_READY_WAIT_MS = 20_000;
/**
 * The share of the time left before the caller's deadline that a query may spend waiting: the rest
 * is the search's, which runs while the loading goes on beside it (seconds on a loaded machine).
 */
export const NEIGHBOURS_WAIT_SHARE = 0.5;

/**
 * How long a query may wait for the neighbours: NEIGHBOURS_READY_WAIT_MS, but never so long that the
 * caller's deadline passes before the search answers (a gRPC client's own 10 s default, say). Pure.
 */
export function neighboursWaitMs(nowMs: number, deadline: Date | undefined): number {
  if (!deadline) return NEIGHBOURS_READY_WAIT_MS;
  return Math.max(0, Math.min(NEIGHBOURS_READY_WAIT_MS, Math.floor((deadline.getTime() - nowMs) * NEIGHBOURS_WAIT_SHARE)));
}

/** The most words of an index compared with a query's words (semantic neighbours). */
const VOCABULARY_LIMIT = 50_000;
/**
 * An index's vocabulary is read again after this long: a new video's words become neighbours
 * within it (its segments are searchable at once). Each new vocabulary is packed again (semantic.ts:
 * about 0.2 s for 7,000 words here), so not every minute.
 */
const VOCABULARY_TTL_MS = 10 * 60_000;

/** Candidates read per option and per query path. */
const CANDIDATES_PER_OPTION = 200;
const NEAREST_CANDIDATES = 200;
/** The most clips a result set keeps (later pages beyond it are not offered). */
export const MAX_RESULTS = 1000;
/**
 * MatchClips (a classification's prompt) wants every match in its videos, not the best few: it
 * reads this many candidates per option and answers at most as many clips. A whole index of 1,000
 * videos classified with 200 candidates found 725 of the 999 videos that showed a class.
 */
export const MATCH_CANDIDATES_PER_OPTION = 10_000;

/** Image queries: at most 5 MB, JPEG or PNG, at least 64 px on each side (API-CONTRACT §5.5). */
export const QUERY_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const QUERY_IMAGE_MIN_SIDE = 64;

/**
 * Image-to-image similarities run higher than text-to-image ones: the same object photographed
 * twice sits around 0.8–0.9 in CLIP space, unrelated pictures around 0.4–0.5.
 */
const IMAGE_QUERY_BAND = { floor: 0.5, ceiling: 0.85 } as const;
/**
 * The bundled scene descriptor's band (embed-service's visual model without CLIP, `scene`): the same
 * shot seen again scores about 0.95–1; another angle of the same scene about 0.85 (a medium
 * match); the same footage in half the frame about 0.7 (weak); unrelated shots 0.2–0.6 (nothing).
 */
const SCENE_QUERY_BAND = { floor: 0.6, ceiling: 0.92 } as const;
const imageQueryBand = (model: string) => (model === 'scene' ? SCENE_QUERY_BAND : IMAGE_QUERY_BAND);

export function createSearch(deps: SearchDeps) {
  const { store, indexes } = deps;
  const vocabularies = new Map<string, { words: Promise<string[]>; until: number }>();

  /** The index's vocabulary, read at most once per VOCABULARY_TTL_MS per index (a few hundred indexes kept). */
  function vocabularyOf(scope: Scope): Promise<string[]> {
    const key = `${scope.orgId}/${scope.indexId}`;
    const now = deps.clock.now().getTime();
    const held = vocabularies.get(key);
    if (held && held.until > now) return held.words;
    if (vocabularies.size >= 500) vocabularies.clear();
    const words = store.vocabulary(scope.orgId, scope.indexId, VOCABULARY_LIMIT);
    vocabularies.set(key, { words, until: now + VOCABULARY_TTL_MS });
    words.catch(() => vocabularies.delete(key));
    return words;
  }

  /** The query's word groups, with word-vector neighbours from the index's vocabulary when available. */
  async function semanticGroups(scope: Scope, text: string, withWordNeighbours: boolean): Promise<TermGroup[]> {
    const groups = deps.expand(text);
    const neighbours = deps.neighbours;
    if (!neighbours || !withWordNeighbours || groups.length === 0) return groups;
    // Deadlines are wall-clock instants: Date.now(), not the injected clock (a manual one in tests).
    const waitMs = neighboursWaitMs(Date.now(), currentCaller()?.deadline);
    if (deps.neighboursReady && !(await settlesWithin(deps.neighboursReady(), waitMs))) {
      deps.logger.warn({ waitedMs: waitMs }, 'semantic neighbours still loading: this query is expanded with WordNet only');
    }
    const vocabulary = await vocabularyOf(scope);
    return withNeighbours(groups, (word, exclude) => neighbours(word, vocabulary, exclude));
  }

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
  async function onSearchableIndex<T>(
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
  }

  /** Segments answering a text through the lexical options (and exact_match), scored; `candidates` per option and path. */
  async function textMatches(
    scope: Scope,
    text: string,
    options: readonly SearchOption[],
    conversationOption: ConversationOption,
    candidates = { lexical: CANDIDATES_PER_OPTION, nearest: NEAREST_CANDIDATES },
  ): Promise<SegmentMatch[]> {
    const matches: SegmentMatch[] = [];
    const lexicalOptions = options.filter((o) => !(o === 'conversation' && conversationOption === 'exact_match'));
    // Word neighbours serve speech matched by meaning, on-screen text and logos only.
    const forMeaning = lexicalOptions.some((o) => o !== 'visual' && !(o === 'conversation' && conversationOption === 'lexical'));
    const groups = lexicalOptions.length === 0 ? [] : await semanticGroups(scope, text, forMeaning);
    // `lexical` speech: the query's own words only (the same groups, so coverage lines up with the other options').
    const spokenGroups =
      conversationOption === 'lexical'
        ? groups.map((g) => ({ ...g, alternatives: g.alternatives.filter((a) => a.kind === 'exact') }))
        : groups;
    // Visual labels are expanded by WordNet at ingest: word-vector neighbours are for words said and shown.
    const labelGroups = groups.map((g) => ({ ...g, alternatives: g.alternatives.filter((a) => a.kind !== 'related') }));
    const plans = {
      semantic: lexicalPlan(groups),
      spoken: conversationOption === 'lexical' ? lexicalPlan(spokenGroups) : undefined,
      labels: lexicalPlan(labelGroups),
    };
    // One query per option, so that a common option cannot crowd out the others' candidates.
    const perOption = await Promise.all(
      lexicalOptions.map(async (option) => {
        const [optionGroups, plan] =
          option === 'conversation' && plans.spoken
            ? [spokenGroups, plans.spoken]
            : option === 'visual'
              ? [labelGroups, plans.labels]
              : [groups, plans.semantic];
        if (!plan) return [];
        const spoken = plan === plans.spoken;
        const hits = await store.lexical(scope, [option], plan, candidates.lexical);
        return hits.flatMap((hit) => {
          // Lexical speech counts the words said, not what a line stands for (its speech terms: `e`).
          const coverage = hitCoverage(optionGroups, plan, spoken ? hit.kinds.replaceAll('e', '-') : hit.kinds);
          const score = coverageScore(coverage);
          return score > 0 ? [{ ...matchOf(hit, option, score), coverage }] : [];
        });
      }),
    );
    for (const list of perOption) matches.push(...list);
    if (options.includes('conversation') && conversationOption === 'exact_match' && text.trim()) {
      for (const hit of await store.exactPhrase(scope, text, candidates.lexical)) matches.push(matchOf(hit, 'conversation', 1));
    }
    if (options.includes('visual')) {
      const query = await deps.models.embed(scope.orgId, { text });
      if (query) {
        for (const hit of await store.nearest(scope, query.model, [...query.vector], candidates.nearest)) {
          const score = vectorScore(hit.similarity);
          if (score > 0) matches.push(matchOf(hit, 'visual', score));
        }
      }
    }
    return matches;
  }

  /**
   * Segments answering an image: the nearest vectors of embed-service's visual model (CLIP, or the
   * bundled scene descriptor: shots that look like it) where vectors are stored, and the objects
   * the detector sees in it, searched as visual labels. Both count; a moment with both scores higher.
   */
  async function imageMatches(scope: Scope, image: Buffer): Promise<SegmentMatch[]> {
    const [query, labels] = await Promise.all([
      (await store.vectorsEnabled()) ? deps.models.embed(scope.orgId, { image }) : undefined,
      deps.models.imageLabels(scope.orgId, image),
    ]);
    if (!query && !labels) {
      throw new ApiError(
        'model_unavailable',
        'Searching by image needs an image model or the object detector, and neither is available on this server.',
      );
    }
    const matches: SegmentMatch[] = [];
    if (query) {
      const band = imageQueryBand(query.model);
      for (const hit of await store.nearest(scope, query.model, [...query.vector], NEAREST_CANDIDATES)) {
        const score = vectorScore(hit.similarity, band);
        if (score > 0) matches.push(matchOf(hit, 'visual', score));
      }
    }
    if (labels && labels.length > 0) {
      // Each detected object is one alternative of one group: a scene showing any of them matches.
      const groups: TermGroup[] = [{ term: labels.join(' '), alternatives: labels.map((label) => ({ text: label, weight: 1 })) }];
      const plan = lexicalPlan(groups);
      if (plan) {
        const hits = await store.lexical(scope, ['visual'], plan, CANDIDATES_PER_OPTION);
        matches.push(...hits.map((hit) => matchOf(hit, 'visual', scoreHit(groups, plan, hit.kinds))));
      }
    }
    return matches;
  }

  async function matchesOf(
    scope: Scope,
    query: Query,
    params: Pick<SearchParams, 'options' | 'conversationOption'>,
  ): Promise<SegmentMatch[]> {
    if (scope.videoIds && scope.videoIds.length === 0) return [];
    const byText = query.text !== undefined ? await textMatches(scope, query.text, params.options, params.conversationOption) : undefined;
    const byImage = query.image ? await imageMatches(scope, query.image) : undefined;
    if (byText && byImage) return composedMatches(byText, byImage);
    return byText ?? byImage ?? [];
  }

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
    await store.saveResultSet(set);
    return servePage(set, 1, includeUserMetadata);
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

  return {
    onSearchableIndex,
    matchesOf,
    saveAndServe,

    /** Starts loading what queries are expanded with (word vectors, WordNet definitions), if nothing has yet; not awaited. */
    prepare: (): void => void deps.neighboursReady?.(),

    async search(orgId: string, indexId: string, query: Query, params: SearchParams, includeUserMetadata: boolean): Promise<ResultPage> {
      // The image is checked inside the work: an index error is still the one reported first.
      const { index, result: matches } = await onSearchableIndex(orgId, indexId, params.options, params.filter, async (scope) => {
        if (query.image) {
          await checkQueryImage(query.image);
          if (!params.options.includes('visual'))
            throw errors.invalid('search_options', 'A query image is searched through the visual option; include visual.');
        }
        return matchesOf(scope, query, params);
      });
      const clips = clipsOf(matches, {
        operator: params.operator,
        options: query.text === undefined ? ['visual'] : params.options,
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

    /** A later page. Unknown, malformed, another organization's and expired tokens all read as expired. */
    async page(orgId: string, token: string, includeUserMetadata: boolean): Promise<ResultPage> {
      const parsed = parsePageToken(token);
      const set = parsed && (await store.loadResultSet(orgId, parsed.setId));
      if (!parsed || !set || set.expiresAt.getTime() <= deps.clock.now().getTime()) {
        throw new ApiError('search_page_token_expired', `The page token ${token} has expired or does not exist. Run the search again.`, {
          param: 'page_token',
        });
      }
      return servePage(set, parsed.page, includeUserMetadata);
    },
  };
}

export type Search = ReturnType<typeof createSearch>;

function matchOf(hit: SegmentHit, option: SearchOption, score: number): SegmentMatch {
  return { videoId: hit.videoId, start: hit.start, end: hit.end, option, score, text: hit.text, thumbnailKey: hit.thumbnailKey };
}

/** A query image must be a real JPEG or PNG (by its bytes), within the size limits. */
export async function checkQueryImage(image: Buffer): Promise<void> {
  if (image.length > QUERY_IMAGE_MAX_BYTES) {
    throw errors.invalid('query_media_file', `The image is ${image.length} bytes; at most ${QUERY_IMAGE_MAX_BYTES} bytes are accepted.`);
  }
  const facts = await describeImage(image);
  if (!facts || (facts.format !== 'jpeg' && facts.format !== 'png')) {
    throw errors.invalid('query_media_file', 'It is not a JPEG or PNG image.');
  }
  if (facts.width < QUERY_IMAGE_MIN_SIDE || facts.height < QUERY_IMAGE_MIN_SIDE) {
    throw errors.invalid(
      'query_media_file',
      `The image is ${facts.width}x${facts.height}; at least ${QUERY_IMAGE_MIN_SIDE}x${QUERY_IMAGE_MIN_SIDE} pixels are needed.`,
    );
  }
}

/** Whether `promise` settles within `ms` (it is not cancelled either way). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
