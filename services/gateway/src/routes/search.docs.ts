import { z } from 'zod';
import { file, ok, type OperationDoc } from '../openapi/operation';
import type { VersionShapes } from '../openapi/shapes';
import { commonSchema as searchFields } from './search.schema';

/**
 * The OpenAPI operations of routes/search.ts (Search): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

/**
 * The query of a combined search (API-CONTRACT §5.5.1): a leaf or an operator over subqueries of
 * the same form (not spelt out recursively: a JSON schema embedded in a document cannot refer to itself).
 */
const subqueries = z.array(z.record(z.string(), z.unknown())).describe('Subqueries: leaves or operators.');
const combinedQuery = z.union([
  z.object({
    text: z.string(),
    search_options: z.array(z.string()).optional(),
    conversation_option: z.enum(['semantic', 'exact_match']).optional(),
  }),
  z.object({ $and: subqueries, proximity: z.number().optional() }),
  z.object({ $or: subqueries, proximity: z.number().optional() }),
  z.object({ $then: subqueries, proximity: z.number().optional() }),
  z.object({ $not: z.object({ origin: z.record(z.string(), z.unknown()), sub: z.record(z.string(), z.unknown()) }) }),
]);

/** The JSON search body (v1–v1.2): the fields routes/search.schema.ts reads, with a text `query`. */
const jsonSearch = ({ version }: VersionShapes) =>
  (version.search.jsonOnly ? searchFields.omit({ query_text: true, query_media_type: true, query_media_url: true }) : searchFields)
    .extend({
      query: z.string().describe('The text to search for.'),
      filter: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('{id, filename, duration, width, height, size, created_at, …, <user key>: value}'),
      conversation_option: z.enum(['semantic', 'exact_match', 'transcription']).optional(),
    })
    .meta({ examples: [{ index_id: '<an index id>', query: 'a red car', search_options: ['visual', 'conversation'], page_limit: 10 }] });
const multipartSearch = searchFields
  .extend({
    query_media_file: file.optional(),
    filter: z.string().optional().describe('A JSON object, as a string.'),
  })
  .meta({ examples: [{ index_id: '<an index id>', query_text: 'a red car', search_options: ['visual'], group_by: 'clip' }] });
/** v1.3's multipart search also reads transcription_options (routes/search.schema.ts transcriptionOption). */
const multipartSearchV13 = multipartSearch.extend({
  // Several query images (issue 32 §3): repeated parts, searched as one (search-service meanDirection).
  query_media_file: z
    .array(file)
    .max(10)
    .optional()
    .describe(
      'Up to 10 images (with query_media_url together), on Marengo 3.0 indexes; searched as one query: the mean direction of their embeddings.',
    ),
  query_media_url: z.array(z.string()).max(10).optional().describe('Repeat it for several images, as query_media_file.'),
  transcription_options: z
    .array(z.enum(['lexical', 'semantic']))
    .optional()
    .describe('How speech is matched: lexical (the words said), semantic (by meaning) or both (semantic); needs transcription or audio.'),
});
const combinedSearch = searchFields
  .omit({ query_text: true, query_media_type: true, query_media_url: true, include_user_metadata: true })
  .extend({
    query: combinedQuery,
    conversation_option: z.enum(['semantic', 'exact_match']).optional(),
    filter: z.record(z.string(), z.unknown()).optional(),
  });

export const searchPage: OperationDoc = (s) => ({
  summary: 'A later page of search results',
  description: 'By the page token of the page before; tokens expire after about an hour (search_page_token_expired).',
  tag: 'Search',
  query: s.version.search.userMetadata ? { include_user_metadata: { schema: z.boolean().optional() } } : undefined,
  responses: ok(s.searchPage),
});
export const combined: OperationDoc = (s) => ({
  summary: 'Combined query search',
  description: '$and, $or, $then (ordered) and $not of text subqueries, with proximity in seconds.',
  tag: 'Search',
  body: { json: combinedSearch, required: true },
  responses: ok(s.searchPage),
});

/** POST /search */
export const search: OperationDoc = (s) => ({
  summary: 'Search an index',
  description: s.version.search.jsonOnly
    ? 'JSON with a text query.'
    : s.version.search.jsonQuery
      ? 'JSON with a text query (deprecated), or multipart with query_text or an image; a JSON object query is a combined search.'
      : 'Multipart: query_text and/or an image (query_media_type=image with query_media_url or query_media_file). ' +
        'query_text may name entities as <@entity_id>: the moments where the entity is on screen (matched by face), joined with the rest of the query; ' +
        'an index holding videos indexed before face tracks answers 400 naming them.',
  tag: 'Search',
  body: s.version.search.jsonOnly
    ? { json: jsonSearch(s), required: true }
    : s.version.search.jsonQuery
      ? { json: jsonSearch(s), multipart: multipartSearch, required: true }
      : { multipart: s.version.search.transcriptionOptions ? multipartSearchV13 : multipartSearch, required: true },
  responses: ok(s.searchPage),
});

/** POST /search-v2 */
export const searchV2: OperationDoc = (s) => ({
  summary: 'Search an index (multipart)',
  tag: 'Search',
  body: { multipart: multipartSearch, required: true },
  responses: ok(s.searchPage),
});
