/**
 * The shapes a single search speaks in: its scope and hits, what it needs of storage, of
 * index-service and of the models, and its parameters and pages.
 */
import type { Clock, Logger } from '@vus/core';
import type { PlainMetadataValue } from '@vus/grpc';
import type { VideoFilter__Input } from '@vus/grpc/types/index/v1/VideoFilter';
import type { Clip, SearchOption, VideoGroup } from './clips';
import type { LexicalPlan, TermGroup } from './lexical';
import type { Threshold } from './scoring';
import type { Neighbour } from './semantic';
import type { EntitySearchDeps } from './entity-parts';

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
   * Segments of the given modalities that match the plan, at most `limit` of each modality, each
   * with its match kinds (one character per alternative of the plan).
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
  /** The index's search model (marengo3.0, marengo2.7 …); absent where unknown. */
  searchModel?: string | undefined;
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
  /** Entity search (`<@entity_id>` in query_text); absent, a query naming an entity answers 501. */
  entities?: EntitySearchDeps | undefined;
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
  /** Further query images (v1.3, Marengo 3.0 indexes): searched with `image` as one (query-image.ts meanDirection). */
  moreImages?: readonly Buffer[] | undefined;
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
