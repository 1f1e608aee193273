/**
 * Classification (API-CONTRACT §5.6): each class is a set of prompts, each prompt a search restricted
 * to the videos being classified (search-service's MatchClips); scoring.ts turns the clips into
 * per-video class scores; the ranked list is stored as a result set and served a page at a time.
 */
import { ApiError, errors, KeyedGate, neighbourTokens, newResultSetId, parsePageToken, type Clock, type KeyedGateLimits } from '@vus/core';
import { type CanonicalOption } from '@vus/domain';
import {
  byBestClass,
  classifyVideo,
  clipsByClassAndVideo,
  type ClassMatches,
  type ClassScore,
  type PromptClip,
  type Thresholds,
  type VideoClassification,
  type VideoToClassify,
} from './scoring';

export type ConversationOption = 'semantic' | 'exact_match';
/** Search's confidence floor for the clips a prompt finds (v1.1's string threshold). */
export type Confidence = 'high' | 'medium' | 'low' | 'none';

/** A video to classify: where it is and how long it is. */
export interface VideoRef {
  id: string;
  indexId: string;
  duration: number;
}

export interface PromptSearch {
  options: CanonicalOption[];
  conversationOption: ConversationOption;
  confidence: Confidence;
  /** Empty: every video of the index. */
  videoIds: readonly string[];
}

/** What classification needs of the services that own videos and segments. */
export interface ClassifyDirectory {
  /** The organization's videos, in any of its indexes; resource_not_exist for any other id. */
  videos(orgId: string, videoIds: readonly string[]): Promise<VideoRef[]>;
  /** Every video of the organization's index; resource_not_exist for another's. */
  indexVideos(orgId: string, indexId: string): Promise<VideoRef[]>;
  /**
   * Every clip `prompt` matches in the videos (search_option_not_supported for options the index
   * lacks); `signal` (the caller left) cancels the search.
   */
  matchClips(orgId: string, indexId: string, prompt: string, search: PromptSearch, signal?: AbortSignal): Promise<PromptClip[]>;
}

/** A video's classes as answered: detailed scores and clips only when the request asked for them. */
export interface ClassifiedVideo {
  videoId: string;
  classes: (Omit<ClassScore, 'detailedScores'> & { detailedScores?: ClassScore['detailedScores'] | undefined })[];
}

/** A classification's ranked list, kept so that later pages are served from it. */
export interface StoredClassification {
  id: string;
  orgId: string;
  pageLimit: number;
  items: ClassifiedVideo[];
  createdAt: Date;
  expiresAt: Date;
}

/** One page of a stored set: the set without its items, how many it holds, and the page's. */
export interface StoredPage {
  set: Omit<StoredClassification, 'items'>;
  total: number;
  items: ClassifiedVideo[];
}

export interface ClassifyStore {
  saveResultSet(set: StoredClassification): Promise<void>;
  /**
   * Page `page` (1-based) of the organization's result set, expired or not (the caller tells the
   * two apart): only that page's items are read, however large the set.
   */
  loadPage(orgId: string, id: string, page: number): Promise<StoredPage | undefined>;
}

export interface ClassDefinition {
  name: string;
  prompts: string[];
  /** Unset: the request's. */
  options?: CanonicalOption[] | undefined;
  conversationOption?: ConversationOption | undefined;
}

export interface ClassifyParams {
  classes: ClassDefinition[];
  options: CanonicalOption[];
  conversationOption: ConversationOption;
  confidence: Confidence;
  thresholds: Thresholds;
  showDetailedScore: boolean;
  includeClips: boolean;
  pageLimit: number;
}

export interface ClassifyPage {
  data: ClassifiedVideo[];
  pageInfo: { limitPerPage: number; totalResults: number; nextPageToken: string; prevPageToken: string; expiresAt: Date };
}

export interface ClassifyDeps {
  directory: ClassifyDirectory;
  store: ClassifyStore;
  clock: Clock;
  /** How long a result set can be paged. */
  pageTtlMs: number;
  /** Classifications one organization runs at once and may queue; default CLASSIFICATIONS_PER_ORGANIZATION. */
  perOrganization?: KeyedGateLimits;
}

/** API-CONTRACT §5.6: at most 100 prompts per request and 10 hours of video. */
export const MAX_PROMPTS = 100;
export const MAX_TOTAL_SECONDS = 10 * 3600;
/** Prompts searched at once per request (each is one search over the videos). */
const PROMPT_CONCURRENCY = 4;
/**
 * One organization's classifications at once, and waiting: each runs up to 100 searches, so
 * without a bound one organization's few requests take every core from everyone else's searches.
 */
export const CLASSIFICATIONS_PER_ORGANIZATION: KeyedGateLimits = { running: 2, waiting: 4 };
/** Videos scored between two turns of the event loop (other requests run in between). */
const SCORING_BATCH = 100;

/** The request's classes, checked: named, with non-empty prompts, at most MAX_PROMPTS in all. */
export function checkClasses(classes: readonly ClassDefinition[], field = 'classes'): void {
  if (classes.length === 0) throw errors.notProvided(field);
  let prompts = 0;
  classes.forEach((c, i) => {
    if (!c.name.trim()) throw errors.invalid(`${field}[${i}].name`, 'Every class needs a name.');
    if (c.prompts.length === 0) throw errors.invalid(`${field}[${i}].prompts`, 'Every class needs at least one prompt.');
    if (c.prompts.some((p) => !p.trim())) throw errors.invalid(`${field}[${i}].prompts`, 'A prompt must not be empty.');
    prompts += c.prompts.length;
  });
  if (prompts > MAX_PROMPTS)
    throw errors.invalid(field, `The classes hold ${prompts} prompts; at most ${MAX_PROMPTS} are accepted per request.`);
}

/** The classes of each video, best first: scored a batch of videos at a time, letting other work run in between. */
async function scoreVideos(
  videos: readonly VideoToClassify[],
  classes: readonly ClassMatches[],
  thresholds: Thresholds,
  signal?: AbortSignal,
): Promise<VideoClassification[]> {
  const clipsByClass = clipsByClassAndVideo(classes);
  const results: VideoClassification[] = [];
  for (let i = 0; i < videos.length; i++) {
    if (i % SCORING_BATCH === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
    const classified = classifyVideo(videos[i]!, classes, clipsByClass, thresholds);
    if (classified) results.push(classified);
  }
  return results.sort(byBestClass);
}

/** Runs `work` over `items`, at most `limit` at a time, results in input order; none starts once `signal` aborted. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export function createClassify(deps: ClassifyDeps) {
  const { directory, store } = deps;
  const gate = new KeyedGate(
    deps.perOrganization ?? CLASSIFICATIONS_PER_ORGANIZATION,
    (_orgId, load) =>
      new ApiError(
        'too_many_requests',
        `This organization already has ${load.running} classifications running and ${load.waiting} waiting, the most it may have at once. ` +
          'Try again when one has finished.',
      ),
  );

  /** Every prompt of every class searched over the videos, grouped per index; the classes' clips. */
  async function matchClasses(
    orgId: string,
    videosByIndex: Map<string, { videoIds: string[] }>,
    params: ClassifyParams,
    signal: AbortSignal | undefined,
  ): Promise<ClassMatches[]> {
    const searches = params.classes.flatMap((c, classIndex) =>
      [...new Set(c.prompts)].flatMap((prompt) =>
        [...videosByIndex].map(([indexId, { videoIds }]) => ({
          classIndex,
          indexId,
          prompt,
          search: {
            options: [...new Set(c.options && c.options.length > 0 ? c.options : params.options)],
            conversationOption: c.conversationOption ?? params.conversationOption,
            confidence: params.confidence,
            videoIds,
          },
        })),
      ),
    );
    const found = await mapLimited(
      searches,
      PROMPT_CONCURRENCY,
      (s) => directory.matchClips(orgId, s.indexId, s.prompt, s.search, signal),
      signal,
    );
    return params.classes.map((c, classIndex) => ({
      name: c.name,
      clips: searches.flatMap((s, i) => (s.classIndex === classIndex ? found[i]! : [])),
    }));
  }

  async function classifyAndServe(
    orgId: string,
    videos: readonly VideoRef[],
    byIndex: Map<string, { videoIds: string[] }>,
    params: ClassifyParams,
    signal: AbortSignal | undefined,
  ): Promise<ClassifyPage> {
    checkClasses(params.classes);
    const matches = await matchClasses(orgId, byIndex, params, signal);
    const items: ClassifiedVideo[] = (await scoreVideos(videos, matches, params.thresholds, signal)).map((video) => ({
      videoId: video.videoId,
      // Stored as answered, so that every page shows what the request asked for.
      classes: video.classes.map(({ detailedScores, clips, ...c }) => ({
        ...c,
        clips: params.includeClips ? clips : [],
        detailedScores: params.showDetailedScore ? detailedScores : undefined,
      })),
    }));
    const now = deps.clock.now();
    const set: StoredClassification = {
      id: newResultSetId(),
      orgId,
      pageLimit: params.pageLimit,
      items,
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.pageTtlMs),
    };
    await store.saveResultSet(set);
    return servePage({ set, total: items.length, items: items.slice(0, set.pageLimit) }, 1);
  }

  function servePage({ set, total, items }: StoredPage, page: number): ClassifyPage {
    const tokens = neighbourTokens(set.id, page, set.pageLimit, total);
    return { data: items, pageInfo: { limitPerPage: set.pageLimit, totalResults: total, ...tokens, expiresAt: set.expiresAt } };
  }

  /** The given videos' classes (any of the organization's indexes; at most 10 hours in all). */
  async function classifyGivenVideos(
    orgId: string,
    videoIds: readonly string[],
    params: ClassifyParams,
    signal: AbortSignal | undefined,
  ): Promise<ClassifyPage> {
    const videos = await directory.videos(orgId, [...new Set(videoIds)]);
    const total = videos.reduce((sum, v) => sum + v.duration, 0);
    if (total > MAX_TOTAL_SECONDS) {
      throw errors.invalid(
        'video_ids',
        `The videos last ${Math.round(total)} seconds in all; at most ${MAX_TOTAL_SECONDS} seconds (10 hours) are classified per request.`,
      );
    }
    const byIndex = new Map<string, { videoIds: string[] }>();
    for (const video of videos) {
      const group = byIndex.get(video.indexId);
      if (group) group.videoIds.push(video.id);
      else byIndex.set(video.indexId, { videoIds: [video.id] });
    }
    return classifyAndServe(orgId, videos, byIndex, params, signal);
  }

  return {
    /**
     * Classifies the given videos once one of the organization's places is free (refused when its
     * queue is full); `signal` (the caller left, its deadline passed) stops the work.
     */
    async classify(orgId: string, videoIds: readonly string[], params: ClassifyParams, signal?: AbortSignal): Promise<ClassifyPage> {
      if (videoIds.length === 0) throw errors.notProvided('video_ids');
      checkClasses(params.classes);
      return gate.run(orgId, () => classifyGivenVideos(orgId, videoIds, params, signal), signal);
    },

    /** Classifies every video of the index, as `classify` does. */
    async classifyIndex(orgId: string, indexId: string, params: ClassifyParams, signal?: AbortSignal): Promise<ClassifyPage> {
      checkClasses(params.classes);
      return gate.run(
        orgId,
        async () => {
          const videos = await directory.indexVideos(orgId, indexId);
          // Empty: the whole index, so one search per prompt, however many videos it holds.
          return classifyAndServe(orgId, videos, new Map([[indexId, { videoIds: [] }]]), params, signal);
        },
        signal,
      );
    },

    /** A later page. Unknown, malformed, another organization's and expired tokens all read as expired. */
    async page(orgId: string, token: string): Promise<ClassifyPage> {
      const parsed = parsePageToken(token);
      const stored = parsed && (await store.loadPage(orgId, parsed.setId, parsed.page));
      if (!parsed || !stored || stored.set.expiresAt.getTime() <= deps.clock.now().getTime()) {
        throw new ApiError('search_page_token_expired', `The page token ${token} has expired or does not exist. Classify again.`, {
          param: 'page_token',
        });
      }
      return servePage(stored, parsed.page);
    },
  };
}

export type Classify = ReturnType<typeof createClassify>;
