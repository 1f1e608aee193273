import { ApiError } from '@vus/core';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import type { Engine } from '@vus/grpc/types/index/v1/Engine';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import type { CanonicalOption } from './options';

/**
 * Endpoints that some versions have and others lack (API-CONTRACT §3), by name. An endpoint's
 * descriptor names the one whose availability it shares (endpoints/endpoint.ts `availability`);
 * every other endpoint is the same in every version.
 */
export type VersionedEndpoint =
  | 'GET /tasks/status'
  | 'POST /tasks/external-provider'
  | 'POST /tasks/transfers'
  | `GET /indexes/{index_id}/videos/{video_id}/${'transcription' | 'text-in-video' | 'logo' | 'thumbnail'}`
  | 'POST /search-v2'
  /** POST /combined-search and its aliases: /search/combined, /beta/search, /search with a query object. */
  | 'POST /combined-search'
  | 'POST /gist'
  | 'POST /summarize'
  | 'POST /generate'
  | 'POST /analyze'
  /** v1's way to a task's video (deprecated there; read `video_id` from the task since v1.1). */
  | 'GET /tasks/{task_id}/video-id'
  /** Classify with its bulk form and later pages (v1.1 → v1.2). */
  | 'POST /classify'
  /** Assets with their multipart uploads, and indexed assets (v1.3; their other endpoints share this availability). */
  | 'POST /assets'
  | 'POST /indexes/{index_id}/indexed-assets'
  /** Knowledge stores and their items (v1.3; their other endpoints share this availability). */
  | 'POST /knowledge-stores'
  /** Entity collections, their entities and GET /assets/{asset_id}/entities (v1.3; all share this availability). */
  | 'POST /entity-collections'
  /** Asynchronous analysis: /analyze/tasks and /analyze/batches (v1.3; all share this availability). */
  | 'POST /analyze/tasks';

/**
 * Why a version lacks an endpoint: gone since an older version (`endpoint_not_found`, 404), or
 * not yet there (`api_upgrade_required`, API-CONTRACT §2.5).
 */
export interface UnavailableEndpoint {
  readonly code: 'endpoint_not_found' | 'api_upgrade_required';
  readonly message: string;
  /** The version whose docs describe the endpoint: the error's `docs_url` points there. */
  readonly docsVersion?: string;
}

/** Where the docs of a version are: the gateway's own docs page (routes/docs.ts), on this server. */
export const docsPath = (version: string) => `/docs?version=${encodeURIComponent(version)}`;

/** The error a call to an unavailable endpoint gets, with its `docs_url` where there is one. */
export const unavailableError = (unavailable: UnavailableEndpoint): ApiError =>
  new ApiError(
    unavailable.code,
    unavailable.message,
    unavailable.docsVersion ? { docs_url: docsPath(unavailable.docsVersion) } : undefined,
  );

/** An endpoint a newer version removed; the message says what replaced it. */
export const removed = (message: string): UnavailableEndpoint => ({ code: 'endpoint_not_found', message });

/** Task statuses as services report them (API-CONTRACT §4), in the order a task passes them. */
export const TASK_STATUSES = ['uploading', 'validating', 'pending', 'queued', 'indexing', 'ready', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export type PlainMetadata = Record<string, string | number | boolean>;

/** A video's metadata in canonical form, for the version to arrange. */
export interface VideoMetadataParts {
  /** The six fields every SDK requires. */
  system: { filename: string; duration: number; fps: number; width: number; height: number; size: number };
  user: PlainMetadata;
  title: string;
  /** Only when the request asked for it (VideoShape.transcriptionOnRetrieve). */
  transcription?: { start: number; end: number; value: string }[] | undefined;
}

/**
 * One URL version of the API (v1.2, v1.3, …) as a mapping to and from the one internal model.
 * Routes and presenters do the common work and ask the adapter only where versions differ; no
 * code outside src/versions/ asks which version it serves. Mostly data: names, vocabularies,
 * flags; a function where a shape really differs.
 */
export interface VersionAdapter {
  /** The URL segment, `v1.2`. */
  readonly name: string;
  /**
   * A documentation revision served under another version's URL (v1.1.1 and v1.1.2 of `/v1.1`,
   * API-CONTRACT §1): that version's name. Its own URL is an alias with the same shapes.
   */
  readonly revisionOf?: string;
  /** Superseded: responses carry `Deprecation: true` and a link to this successor version. */
  readonly deprecation?: { readonly successor: string };
  /**
   * v1's `type` on success bodies (API-CONTRACT §3), by endpoint name (`GET /indexes`,
   * endpoints/endpoint.ts endpointName); versions from v1.1 on have none.
   */
  readonly successTypes?: Readonly<Record<string, string>>;
  /** Endpoints this version lacks, each with the error a call gets. */
  readonly unavailable: Readonly<Partial<Record<VersionedEndpoint, UnavailableEndpoint>>>;
  readonly indexes: IndexShape;
  readonly engines: EngineShape;
  readonly videos: VideoShape;
  readonly tasks: TaskShape;
  readonly search: SearchShape;
  readonly generate: GenerateShape;
  /** Embeddings (API-CONTRACT §5.8); absent where the version has none (v1, v1.1: api_upgrade_required). */
  readonly embed?: EmbedShape;
  /** Classify's request and answer names (API-CONTRACT §5.6); absent where the version has no classify. */
  readonly classify?: ClassifyShape;
  /** An error's body (API-CONTRACT §2.5); the status is the error's own. */
  presentError(error: ApiError): Record<string, unknown>;
}

/** POST /embed and /embed-v2: where versions differ. */
export interface EmbedShape {
  /** The model's name in requests and answers: `engine_name` (v1.2) or `model_name` (v1.3). */
  readonly modelField: 'engine_name' | 'model_name';
  /** v1.2 also answers `text_embedding.float` (py 0.2 reads it; later SDKs read `segments[0].float`). */
  readonly textFloat: boolean;
  /** POST /embed-v2 (Marengo 3.0) exists. */
  readonly embedV2: boolean;
}

export interface IndexShape {
  /** POST /indexes body → the canonical request (model names and canonical options). */
  parseCreate(body: unknown): CreateIndexRequest__Input;
  /** An index's models under this version's names (`engines` or `models`) and options. */
  presentModels(index: Index): Record<string, unknown>;
  /** GET /indexes: the family filter's name; the other versions' names still work. */
  readonly familyFilter: string;
  /** GET /indexes: the option filter's names (errors use the first), accepted values and their canonical meaning. */
  readonly optionFilter: {
    readonly keys: readonly [string, ...string[]];
    readonly values: readonly [string, ...string[]];
    toCanonical(options: readonly string[]): string[];
  };
}

export interface EngineShape {
  /** What an engine object adds to `_id, author, ready, finetune, created_at, updated_at`. */
  presentFields(engine: Engine): Record<string, unknown>;
}

export interface VideoShape {
  /** The metadata fields of a video object (`metadata`, or `system_metadata` and `user_metadata`). */
  presentMetadata(parts: VideoMetadataParts): Record<string, unknown>;
  /** PUT/PATCH …/videos/{id}: the field named when a body carries nothing to change. */
  readonly updateField: 'metadata' | 'user_metadata';
  /** PUT …/videos/{id} replaces the user metadata (PATCH always merges). */
  readonly putReplacesUserMetadata: boolean;
  /** GET …/videos/{id} reads `?transcription=true`. */
  readonly transcriptionOnRetrieve: boolean;
  /** GET …/videos/{id} asks for embeddings with `embed=true` (all of them, v1.2) or `embedding_option` (repeated, v1.3). */
  readonly embeddingsOnRetrieve: 'embed' | 'embedding_option';
}

export interface TaskShape {
  /**
   * The statuses this version shows, each with the canonical ones it stands for (filters,
   * task objects, the counts of GET /tasks/status in this order).
   */
  readonly statuses: Readonly<Record<string, readonly TaskStatus[]>>;
  /** Where a task's video metadata goes. */
  readonly metadataField: 'metadata' | 'system_metadata';
  /** `video_id` on every task, or only once it is ready. */
  readonly videoId: 'always' | 'once-ready';
  /** `estimated_time` and `process` while indexing. */
  readonly showsProgress: boolean;
  /** POST /tasks: the video stream switch this version reads (`negated`: true turns streams off). */
  readonly videoStreamFlag: { readonly field: 'enable_video_stream' | 'disable_video_stream'; readonly negated: boolean };
  /** POST /tasks reads `user_metadata`. */
  readonly acceptsUserMetadata: boolean;
  /** POST /tasks answer: its status, and whether it names the video. */
  readonly created: { readonly status: 200 | 201; readonly withVideoId: boolean };
  /** v1 served the task endpoints under `/indexes` (`/indexes/tasks…`, API-CONTRACT §3). */
  readonly pathPrefix?: '/indexes';
}

/**
 * Classify (v1.1 → v1.2): how the classes and the videos are named. On v1.1 (whose URL its
 * revisions share) the request may use either name and is answered in the shape it used.
 */
export interface ClassifyShape {
  /** `labels` (v1.1) or `classes` (v1.1.1 on). */
  readonly classesField: 'labels' | 'classes';
  /** One `video_id` (v1.1, v1.1.1) or a list `video_ids` (v1.1.2 on). */
  readonly videos: 'video_id' | 'video_ids';
  /** `threshold`: a confidence name (v1.1), an integer (v1.1.1) or an object of minimums (v1.1.2 on). */
  readonly threshold: 'level' | 'integer' | 'object';
}

/** Text generation (API-CONTRACT §5.7): /gist, /summarize, /generate, /analyze. */
export interface GenerateShape {
  /** POST /generate streams when the request does not say (`stream`); /analyze always does. */
  readonly generateStreamsByDefault: boolean;
  /** /summarize answers carry `summarize_type` (js 1.x discriminates on it). */
  readonly summarizeType: boolean;
  /** Answers carry `usage` (gist, summarize, non-streamed generate/analyze) and `finish_reason`. */
  readonly usage: boolean;
  /** Requests may carry `response_format` (json_schema) and `max_tokens`; elsewhere they are ignored. */
  readonly responseFormat: boolean;
}

export interface SearchShape {
  /** Search option names and the canonical options each stands for. */
  readonly options: Readonly<Record<string, readonly CanonicalOption[]>>;
  /** A single search reads `conversation_option` (where it is gone it is ignored, not refused). */
  readonly conversationOption: boolean;
  /**
   * A single search reads v1.3's `transcription_options` (`lexical`, `semantic` or both), sent to
   * search-service as its canonical conversation option (lexical alone: `lexical`; else `semantic`,
   * whose matches include every lexical one).
   */
  readonly transcriptionOptions?: boolean;
  /** The JSON search's text is `query`: a missing text is reported under that name when the body used it. */
  readonly jsonQuery: boolean;
  /** A result clip's fields beyond score, start, end, video_id, confidence, thumbnail_url. */
  presentClipFields(clip: SearchClip): Record<string, unknown>;
  /** Clips and video groups carry their video's `user_metadata` (when asked and present). */
  readonly userMetadata: boolean;
  /** The page expiry's name in `page_info`. */
  readonly pageExpiryField: 'page_expired_at' | 'page_expires_at';
  /** v1's names for the page links and the total (`next_page_id`, `prev_page_id`, `total_result`); default the tokens. */
  readonly pageFields?: { readonly next: string; readonly prev: string; readonly total: string };
  /**
   * Only the JSON search with a text `query` (v1, v1.1): the multipart fields of later versions
   * (`query_text`, `query_media_*`) are not read, so a body with only them lacks `query`.
   */
  readonly jsonOnly?: boolean;
  /**
   * Several query images (v1.3, Marengo 3.0): query_media_url and query_media_file repeated, up to
   * MAX_QUERY_IMAGES in all, every one searched. Elsewhere one image, the URL winning over a file.
   */
  readonly severalQueryImages?: boolean;
}
