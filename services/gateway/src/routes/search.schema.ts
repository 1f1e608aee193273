import { ApiError, errors, parseInput, knownId } from '@vus/core';
import { toMetadataValues, toTimestamp } from '@vus/grpc';
import type { NumberRange__Input } from '@vus/grpc/types/common/v1/NumberRange';
import type { TimeRange__Input } from '@vus/grpc/types/common/v1/TimeRange';
import type { VideoFilter__Input } from '@vus/grpc/types/index/v1/VideoFilter';
import type { CombinedSearchRequest__Input } from '@vus/grpc/types/search/v1/CombinedSearchRequest';
import type { SearchRequest__Input } from '@vus/grpc/types/search/v1/SearchRequest';
import { z } from 'zod';
import { duplicatePart } from '../http/body';
import { looseBoolean, looseInt, looseList, firstValue } from '../http/coerce';
import { checkQueryText } from '../http/text-limits';
import { named, type CanonicalOption, type VersionAdapter } from '../versions';
import { parseCombinedQuery, parseConversationOption } from './combined-query.schema';

const text = z.preprocess(firstValue, z.string({ error: 'expected a string' }));
const looseNumber = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  z.number({ error: 'expected a number' }),
);

/** A version's search options in the canonical vocabulary; parameter_invalid names an unknown one. */
export function canonicalSearchOptions(version: VersionAdapter, options: readonly string[], param = 'search_options'): CanonicalOption[] {
  const names = version.search.options;
  const canonical = options.flatMap((option) => {
    const mapped = named(names, option.trim().toLowerCase());
    if (!mapped) throw errors.invalid(param, `"${option}" is not a search option. Use ${Object.keys(names).join(', ')}.`);
    return mapped;
  });
  return [...new Set(canonical)];
}

export const commonSchema = z.object({
  index_id: text.pipe(z.string().trim().min(1, 'expected an index id')),
  search_options: looseList(z.string()).optional(),
  operator: z.preprocess(firstValue, z.enum(['or', 'and'], { error: 'expected or or and' })).optional(),
  threshold: z
    .preprocess(firstValue, z.enum(['high', 'medium', 'low', 'none'], { error: 'expected high, medium, low or none' }))
    .optional(),
  group_by: z.preprocess(firstValue, z.enum(['clip', 'video'], { error: 'expected clip or video' })).optional(),
  sort_option: z.preprocess(firstValue, z.enum(['score', 'clip_count'], { error: 'expected score or clip_count' })).optional(),
  page_limit: z.preprocess(firstValue, looseInt.pipe(z.number().min(1, 'expected 1 to 50').max(50, 'expected 1 to 50'))).optional(),
  adjust_confidence_level: z
    .preprocess(firstValue, looseNumber.pipe(z.number().min(0, 'expected 0 to 1').max(1, 'expected 0 to 1')))
    .optional(),
  include_user_metadata: z.preprocess(firstValue, looseBoolean).optional(),
  query_text: text.optional(),
  query_media_type: text.optional(),
  query_media_url: text.optional(),
});

const indexIdOf = (raw: string) => knownId('Index', raw.trim());

/**
 * POST /search (v1.3 multipart, v1.2 JSON with a text `query`) and /search-v2 (v1.2 multipart):
 * one single search. `query_media_file` arrives as bytes (http/body.ts BINARY_PARTS).
 */
export function parseSearch(version: VersionAdapter, body: Record<string, unknown>): SearchRequest__Input {
  // v1 and v1.1 had only the JSON search: later versions' multipart fields are not theirs.
  const input = parseInput(
    commonSchema,
    version.search.jsonOnly ? { ...body, query_text: undefined, query_media_type: undefined, query_media_url: undefined } : body,
  );
  if (!input.search_options || input.search_options.length === 0) throw errors.notProvided('search_options');
  const options = canonicalSearchOptions(version, input.search_options);
  const queryText = input.query_text ?? (typeof body.query === 'string' ? body.query : undefined);
  if (queryText !== undefined) checkQueryText(input.query_text !== undefined ? 'query_text' : 'query', queryText);
  const images = version.search.jsonOnly ? [] : queryImages(version, body);
  const hasMedia = images.length > 0;
  if (hasMedia && (input.query_media_type ?? '').trim() !== 'image') {
    throw input.query_media_type
      ? errors.invalid('query_media_type', 'The only query media type is image.')
      : errors.notProvided('query_media_type');
  }
  if (!hasMedia && (queryText === undefined || queryText.trim() === ''))
    throw errors.notProvided(version.search.jsonOnly || (version.search.jsonQuery && 'query' in body) ? 'query' : 'query_text');
  return {
    index_id: indexIdOf(input.index_id),
    query_text: queryText ?? '',
    query_media: images[0] ?? null,
    more_query_media: images.slice(1),
    search_options: options,
    // Where the version dropped conversation_option (v1.3, API-CONTRACT §3) it is ignored, not refused.
    conversation_option: version.search.transcriptionOptions
      ? transcriptionOption(body.transcription_options, options)
      : version.search.conversationOption && body.conversation_option !== undefined
        ? parseConversationOption(firstValue(body.conversation_option))
        : '',
    operator: input.operator ?? '',
    threshold: input.threshold ?? '',
    ...(input.adjust_confidence_level !== undefined ? { adjust_confidence_level: input.adjust_confidence_level } : {}),
    group_by: input.group_by ?? '',
    sort_option: input.sort_option ?? '',
    page_limit: input.page_limit ?? 0,
    filter: body.filter === undefined || body.filter === '' ? null : parseSearchFilter(firstValue(body.filter)),
    include_user_metadata: input.include_user_metadata ?? false,
  };
}

/** Query images one v1.3 search takes: query_media_url and query_media_file parts together (Marengo 3.0). */
export const MAX_QUERY_IMAGES = 10;

type QueryImage = { media_type: 'image'; url: string } | { media_type: 'image'; data: Buffer };

/**
 * The query images of a multipart search, in the order URLs then files. Where the version takes
 * several (v1.3), every one counts, at most MAX_QUERY_IMAGES; elsewhere one, and the URL wins
 * over a file (API-CONTRACT §5.5). A text value where a file belongs is refused.
 */
export function queryImages(version: VersionAdapter, body: Record<string, unknown>): QueryImage[] {
  const files =
    body.query_media_file === undefined ? [] : Array.isArray(body.query_media_file) ? body.query_media_file : [body.query_media_file];
  if (files.some((file) => !Buffer.isBuffer(file))) throw errors.invalid('query_media_file', 'Send the image as a file part.');
  const rawUrls =
    body.query_media_url === undefined ? [] : Array.isArray(body.query_media_url) ? body.query_media_url : [body.query_media_url];
  if (rawUrls.some((url) => typeof url !== 'string')) throw errors.invalid('query_media_url', 'expected a string');
  const urls = (rawUrls as string[]).map((url) => url.trim()).filter((url) => url !== '');
  const images: QueryImage[] = [
    ...urls.map((url) => ({ media_type: 'image' as const, url })),
    ...(files as Buffer[]).map((data) => ({ media_type: 'image' as const, data })),
  ];
  if (!version.search.severalQueryImages) {
    if (files.length > 1) throw duplicatePart('query_media_file');
    return images.slice(0, 1);
  }
  if (images.length > MAX_QUERY_IMAGES) {
    throw errors.invalid(
      files.length > 0 ? 'query_media_file' : 'query_media_url',
      `Send at most ${MAX_QUERY_IMAGES} query images (query_media_url and query_media_file together); this request has ${images.length}.`,
    );
  }
  return images;
}

const TRANSCRIPTION_OPTIONS = ['lexical', 'semantic'] as const;

/**
 * v1.3's `transcription_options` (repeated lexical | semantic) as the canonical conversation
 * option: `lexical` alone matches the words said; `semantic`, or both, matches by meaning, which
 * finds every lexical match too; absent, the default (semantic). Options for a search without
 * speech would be dropped silently: they are refused instead.
 */
export function transcriptionOption(raw: unknown, options: readonly CanonicalOption[]): string {
  if (raw === undefined || raw === '') return '';
  const values: unknown[] = Array.isArray(raw) ? (raw as unknown[]) : [raw];
  const chosen = values
    .flatMap((v): unknown[] => (typeof v === 'string' ? v.split(',').map((part) => part.trim().toLowerCase()) : [v]))
    .filter((v) => v !== '');
  const unknown = chosen.find((v) => !(TRANSCRIPTION_OPTIONS as readonly unknown[]).includes(v));
  if (unknown !== undefined)
    throw errors.invalid('transcription_options', `Use ${TRANSCRIPTION_OPTIONS.join(', ')} or both, not ${JSON.stringify(unknown)}.`);
  if (chosen.length === 0) return '';
  if (!options.includes('conversation')) {
    throw errors.invalid('transcription_options', 'They apply to speech: include transcription (or audio) in search_options.');
  }
  return chosen.includes('semantic') ? 'semantic' : 'lexical';
}

/**
 * POST /combined-search (and v1.2's /search with an object `query`): the query tree, global
 * options for its leaves, and the paging and confidence settings of a single search.
 */
export function parseCombinedSearch(version: VersionAdapter, body: Record<string, unknown>): CombinedSearchRequest__Input {
  const input = parseInput(commonSchema, body);
  if (body.query === undefined) throw errors.notProvided('query');
  return {
    index_id: indexIdOf(input.index_id),
    query: parseCombinedQuery(body.query),
    search_options: input.search_options ? canonicalSearchOptions(version, input.search_options) : [],
    conversation_option: body.conversation_option !== undefined ? parseConversationOption(firstValue(body.conversation_option)) : '',
    threshold: input.threshold ?? '',
    ...(input.adjust_confidence_level !== undefined ? { adjust_confidence_level: input.adjust_confidence_level } : {}),
    page_limit: input.page_limit ?? 0,
    filter: body.filter === undefined || body.filter === '' ? null : parseSearchFilter(firstValue(body.filter)),
  };
}

const NUMERIC_FILTER_FIELDS = ['duration', 'fps', 'width', 'height', 'size'] as const;
const TIME_FILTER_FIELDS = ['created_at', 'updated_at', 'indexed_at'] as const;
const RANGE_OPERATORS = ['gte', 'lte', 'gt', 'lt', 'eq'] as const;

function filterInvalid(why: string): ApiError {
  return new ApiError('search_filter_invalid', `The filter parameter is invalid: ${why}`, { param: 'filter' });
}

/** `n` (exactly n) or `{gte, lte, gt, lt, eq}` of numbers. */
function numberRange(field: string, value: unknown): NumberRange__Input {
  if (typeof value === 'number' && Number.isFinite(value)) return { gte: value, lte: value };
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw filterInvalid(`${field} must be a number or an object of gte, lte, gt, lt.`);
  const range: NumberRange__Input = {};
  for (const [op, bound] of Object.entries(value)) {
    if (!(RANGE_OPERATORS as readonly string[]).includes(op))
      throw filterInvalid(`${field}.${op} is not one of ${RANGE_OPERATORS.join(', ')}.`);
    if (typeof bound !== 'number' || !Number.isFinite(bound)) throw filterInvalid(`${field}.${op} must be a number.`);
    if (op === 'eq') Object.assign(range, { gte: bound, lte: bound });
    else range[op as 'gte' | 'lte' | 'gt' | 'lt'] = bound;
  }
  return range;
}

function timeRange(field: string, value: unknown): TimeRange__Input {
  const date = (v: unknown, where: string) => {
    const parsed = typeof v === 'string' ? new Date(v) : undefined;
    if (!parsed || Number.isNaN(parsed.getTime())) throw filterInvalid(`${where} must be an RFC 3339 date.`);
    return toTimestamp(parsed);
  };
  if (typeof value === 'string') {
    const at = date(value, field);
    return { gte: at, lte: at };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw filterInvalid(`${field} must be a date or an object of gte, lte, gt, lt.`);
  const range: TimeRange__Input = {};
  for (const [op, bound] of Object.entries(value)) {
    if (!(RANGE_OPERATORS as readonly string[]).includes(op) || op === 'eq')
      throw filterInvalid(`${field}.${op} is not one of gte, lte, gt, lt.`);
    range[op as 'gte' | 'lte' | 'gt' | 'lt'] = date(bound, `${field}.${op}`);
  }
  return range;
}

/**
 * The search `filter` (API-CONTRACT §5.5): a JSON object (a JSON string in multipart) of `id`
 * (one or a list), `filename`, numeric ranges, date ranges and user metadata equalities (any
 * other key, or under `user_metadata`). Anything else is search_filter_invalid.
 */
export function parseSearchFilter(raw: unknown): VideoFilter__Input {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      throw filterInvalid('it is not valid JSON.');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw filterInvalid('it must be a JSON object.');
  const filter: VideoFilter__Input = {};
  const userMetadata: Record<string, string | number | boolean> = {};
  const addMetadata = (key: string, v: unknown) => {
    if (typeof v !== 'string' && typeof v !== 'boolean' && !(typeof v === 'number' && Number.isFinite(v))) {
      throw filterInvalid(`${key} must be a string, a number or a boolean.`);
    }
    userMetadata[key] = v;
  };
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'id' || key === '_id') {
      const ids: unknown[] = Array.isArray(v) ? v : [v];
      if (ids.length === 0 || ids.length > 1000 || !ids.every((id) => typeof id === 'string'))
        throw filterInvalid('id must be a video id or a list of up to 1000.');
      filter.ids = ids;
    } else if (key === 'filename') {
      if (typeof v !== 'string') throw filterInvalid('filename must be a string.');
      filter.filename = v;
    } else if ((NUMERIC_FILTER_FIELDS as readonly string[]).includes(key)) {
      filter[key as (typeof NUMERIC_FILTER_FIELDS)[number]] = numberRange(key, v);
    } else if ((TIME_FILTER_FIELDS as readonly string[]).includes(key)) {
      filter[key as (typeof TIME_FILTER_FIELDS)[number]] = timeRange(key, v);
    } else if (key === 'user_metadata') {
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw filterInvalid('user_metadata must be an object.');
      for (const [k, mv] of Object.entries(v as Record<string, unknown>)) addMetadata(k, mv);
    } else {
      addMetadata(key, v);
    }
  }
  filter.user_metadata = toMetadataValues(userMetadata);
  return filter;
}

/** `include_user_metadata` of GET /search/{token} (v1.3). */
export function parsePageQuery(query: { include_user_metadata?: string | undefined }): { includeUserMetadata: boolean } {
  const input = parseInput(z.object({ include_user_metadata: looseBoolean.optional() }), query);
  return { includeUserMetadata: input.include_user_metadata ?? false };
}
