import { errors, parseInput } from '@vus/core';
import { toMetadataValues, type PlainMetadataValue } from '@vus/grpc';
import type { ListVideosRequest__Input } from '@vus/grpc/types/index/v1/ListVideosRequest';
import type { UpdateVideoRequest__Input } from '@vus/grpc/types/index/v1/UpdateVideoRequest';
import { z } from 'zod';
import { looseBoolean, looseJson } from '../http/coerce';
import { parsePageQuery } from '../http/paging';
import { list, RANGE_OPERATORS, scalar, type RawQuery } from '../http/query';
import { parseNumberRange, parseTimeRange } from '../http/ranges';
import type { VersionAdapter } from '../versions';

const NUMERIC_FIELDS = ['duration', 'fps', 'width', 'height', 'size'] as const;
const TIME_FIELDS = { created_at: 'createdAt', updated_at: 'updatedAt', indexed_at: 'indexedAt' } as const;

/** Query keys with a meaning of their own; any other plain key filters on user metadata. */
const KNOWN_LIST_KEYS = new Set<string>([
  'page',
  'page_limit',
  'sort_by',
  'sort_option',
  '_id',
  'id',
  'filename',
  'user_metadata',
  'metadata',
  ...NUMERIC_FIELDS,
  ...Object.keys(TIME_FIELDS),
  ...Object.values(TIME_FIELDS),
]);
const RANGE_KEY = new RegExp(`^(.+)\\[(${RANGE_OPERATORS.join('|')})\\]$`);

const metadataValue = z.union([z.string(), z.number().finite(), z.boolean()]);
const metadataFilterSchema = z.record(z.string(), metadataValue, { error: 'expected an object of strings, numbers or booleans' });

/**
 * `user_metadata=<JSON>` (raw Fern client) or `metadata=<JSON>`; the `[object Object]` that
 * js 0.2/0.4 send is ignored (API-CONTRACT §2.3).
 */
function jsonMetadataFilter(query: RawQuery): Record<string, string | number | boolean> {
  const raw = scalar(query, 'user_metadata', 'metadata');
  if (raw === undefined || raw === '[object Object]') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw errors.invalid('user_metadata', 'It must be a JSON object.');
  }
  return parseInput(z.object({ user_metadata: metadataFilterSchema }), { user_metadata: parsed }).user_metadata;
}

/** Flattened `?key=value` filters (the js 1.x wrapper's form): strings, typed by index-service. */
function flatMetadataFilter(query: RawQuery): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const [key, values] of query) {
    const ranged = RANGE_KEY.exec(key);
    if (ranged) {
      const field = ranged[1]!;
      if (!KNOWN_LIST_KEYS.has(field)) {
        throw errors.invalid(key, `Ranges apply only to ${[...NUMERIC_FIELDS, ...Object.keys(TIME_FIELDS)].join(', ')}.`);
      }
      continue;
    }
    if (KNOWN_LIST_KEYS.has(key) || key.endsWith('[]')) continue;
    const value = values.find((v) => v !== '');
    if (value !== undefined) filter[key] = value;
  }
  return filter;
}

/** GET /indexes/{id}/videos query (API-CONTRACT §5.2, §2.3), the same in v1.2 and v1.3. */
export function parseListVideos(indexId: string, query: RawQuery): ListVideosRequest__Input {
  const page = parsePageQuery(query);
  const userMetadata = { ...flatMetadataFilter(query), ...jsonMetadataFilter(query) };
  return {
    index_id: indexId,
    page: { page: page.page, page_limit: page.pageLimit, sort_by: page.sortBy ?? '', sort_option: page.sortOption ?? '' },
    filter: {
      ids: list(query, '_id', 'id') ?? [],
      filename: scalar(query, 'filename') ?? '',
      ...Object.fromEntries(NUMERIC_FIELDS.map((field) => [field, parseNumberRange(field, query)])),
      ...Object.fromEntries(Object.entries(TIME_FIELDS).map(([field, alias]) => [field, parseTimeRange(field, query, alias)])),
      user_metadata: toMetadataValues(userMetadata),
    },
  };
}

const updateMetadata = looseJson(
  z.record(z.string(), z.union([metadataValue, z.null()]), { error: 'expected an object of strings, numbers, booleans or null' }),
);
export const updateSchema = z.object({
  video_title: z.string({ error: 'expected a string' }).optional(),
  user_metadata: updateMetadata.optional(),
  metadata: updateMetadata.optional(),
});

export type UpdateMethod = 'PUT' | 'PATCH';

/**
 * PUT/PATCH /indexes/{id}/videos/{video_id} (API-CONTRACT §5.2): `{video_title?, metadata?}`
 * (v1.2) or `{user_metadata}` (v1.3). PATCH merges; PUT merges or, where the version says so,
 * replaces the user metadata. Either name of the metadata field is accepted in every version;
 * null deletes a key when merging.
 */
export function parseUpdateVideo(
  version: VersionAdapter,
  method: UpdateMethod,
  ids: { indexId: string; videoId: string },
  body: unknown,
): UpdateVideoRequest__Input {
  const input = parseInput(updateSchema, body);
  const metadata: Record<string, PlainMetadataValue> | undefined = input.user_metadata ?? input.metadata;
  if (metadata === undefined && input.video_title === undefined) {
    throw errors.notProvided(version.videos.updateField);
  }
  return {
    index_id: ids.indexId,
    video_id: ids.videoId,
    ...(input.video_title !== undefined ? { title: input.video_title } : {}),
    user_metadata: toMetadataValues(metadata ?? {}),
    replace_user_metadata: method === 'PUT' && version.videos.putReplacesUserMetadata,
  };
}

const retrieveSchema = z.object({ transcription: looseBoolean.optional() });
const embedSchema = z.object({ embed: looseBoolean.optional() });

/**
 * The embedding options a video object can carry (API-CONTRACT §5.2): Marengo 3.0's names as twelvelabs-js
 * 1.3.4 sends them, and 2.7's `visual-text`; each clip is labelled with the name asked.
 */
export const VIDEO_EMBEDDING_OPTIONS = ['visual', 'audio', 'transcription', 'visual-text'] as const;

export interface RetrieveVideoOptions {
  transcription: boolean;
  /** The embedding options asked for (empty: all of them); undefined: no embeddings. */
  embeddingOptions?: string[];
}

/** GET …/videos/{video_id} options: `transcription=true` and the embeddings, each where the version has it. */
export function parseRetrieveVideo(version: VersionAdapter, query: RawQuery): RetrieveVideoOptions {
  const transcription =
    version.videos.transcriptionOnRetrieve &&
    (parseInput(retrieveSchema, { transcription: scalar(query, 'transcription') }).transcription ?? false);
  if (!version.embed) return { transcription };
  if (version.videos.embeddingsOnRetrieve === 'embed')
    return parseInput(embedSchema, { embed: scalar(query, 'embed') }).embed ? { transcription, embeddingOptions: [] } : { transcription };
  const asked = list(query, 'embedding_option');
  if (asked === undefined) return { transcription };
  const unknown = asked.find((o) => !(VIDEO_EMBEDDING_OPTIONS as readonly string[]).includes(o));
  if (unknown !== undefined)
    throw errors.invalid(
      'embedding_option',
      `Unknown option ${JSON.stringify(unknown.slice(0, 32))}; use ${VIDEO_EMBEDDING_OPTIONS.join(' and/or ')}.`,
    );
  return { transcription, embeddingOptions: [...new Set(asked)] };
}

const seconds = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v),
  z.number({ error: 'expected a number of seconds >= 0' }).min(0, 'expected a number of seconds >= 0'),
);
const windowSchema = z.object({ start: seconds.optional(), end: seconds.optional() });

/** `start`, `end` of …/transcription, …/text-in-video, …/logo. */
export function parseArtifactWindow(query: RawQuery): { start?: number; end?: number } {
  const input = parseInput(windowSchema, { start: scalar(query, 'start'), end: scalar(query, 'end') });
  if (input.start !== undefined && input.end !== undefined && input.end < input.start) {
    throw errors.invalid('end', 'It must not be before start.');
  }
  return { ...(input.start !== undefined ? { start: input.start } : {}), ...(input.end !== undefined ? { end: input.end } : {}) };
}

/** `time` of …/thumbnail. */
export function parseThumbnailTime(query: RawQuery): number | undefined {
  return parseInput(z.object({ time: seconds.optional() }), { time: scalar(query, 'time') }).time;
}
