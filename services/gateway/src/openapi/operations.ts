import { z } from 'zod';
import { classifyFields } from '../routes/classify.schema';
import { createSchema as createTaskFields } from '../routes/tasks.schema';
import { externalProviderSchema } from '../routes/imports.schema';
import { renameSchema } from '../routes/indexes.schema';
import { commonSchema as searchFields } from '../routes/search.schema';
import { updateSchema as updateVideoFields, VIDEO_EMBEDDING_OPTIONS } from '../routes/videos.schema';
import { createWebhook } from '../routes/webhooks.schema';
import {
  createAssetSchema,
  createIndexedAssetSchema,
  createUploadSchema,
  INDEXED_ASSET_STATUSES,
  moreUrlsSchema,
  reportChunksSchema,
  updateIndexedAssetSchema,
} from '../routes/assets.schema';
import { id, modelProviders, pageInfo, timedValue, type VersionShapes } from './shapes';

/**
 * What the document says of each endpoint, by its contract name (`GET /indexes/{index_id}`;
 * v1's /indexes/tasks… go by their /tasks… names): request schemas are the ones the routes
 * validate with where a route has one (routes/*.schema.ts, versions/*), responses the version's
 * shapes (shapes.ts). Errors are added to every operation in the version's form (document.ts).
 */
export interface OperationSpec {
  summary: string;
  description?: string;
  tag: string;
  /** Query parameters (the path's come from the route). */
  query?: Readonly<Record<string, { schema: z.ZodType; description?: string }>>;
  body?: { json?: z.ZodType; multipart?: z.ZodType; urlencoded?: z.ZodType; required?: boolean };
  responses: Readonly<Record<number, { description: string; json?: z.ZodType; ndjson?: z.ZodType }>>;
  /** No x-api-key needed. */
  public?: boolean;
}

type Entry = (shapes: VersionShapes) => OperationSpec;

/** An asset as presenters/assets.ts writes it; the media fields once processed. */
const asset = z.looseObject({
  _id: id,
  method: z.enum(['direct', 'url', 'multipart']),
  status: z.enum(['processing', 'ready', 'failed']),
  filename: z.string(),
  file_type: z.string().nullable().describe('The MIME type sniffed from the content, once processed.'),
  created_at: z.string().optional(),
  asset_type: z.enum(['video', 'audio', 'image']).optional(),
  size: z.int().optional(),
  duration: z.number().optional(),
});
/** A query number: equal to it, or `name[gte|lte|gt|lt]=` for a range. */
const range = (unit: string) => ({ schema: z.number().optional(), description: `In ${unit}; or name[gte|lte|gt|lt]=… for a range.` });
const chunkUrl = z.object({ chunk_index: z.int(), url: z.string(), expires_at: z.string() });
const uploadSummary = z.looseObject({ upload_id: id, status: z.string(), total_size: z.int(), chunk_size: z.int(), total_chunks: z.int() });
/** The v1.3 video plus its indexing status. */
const indexedAsset = z.looseObject({
  _id: id,
  asset_id: id,
  status: z.enum(['pending', 'queued', 'indexing', 'ready', 'failed']),
  system_metadata: z.looseObject({ filename: z.string(), duration: z.number() }),
});

const file = z.string().meta({ format: 'binary' });
const noContent = { 204: { description: 'Done. No body and no Content-Type.' } } as const;
const paging = {
  page: { schema: z.int().min(1).default(1) },
  page_limit: { schema: z.int().min(1).max(50).default(10) },
  sort_by: { schema: z.enum(['created_at', 'updated_at']).default('created_at') },
  sort_option: { schema: z.enum(['asc', 'desc']).default('desc') },
};
const created = (json: z.ZodType, status = 201) => ({ [status]: { description: 'Created.', json } });
const ok = (json: z.ZodType, description = 'OK.') => ({ 200: { description, json } });

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

const searchPage: Entry = (s) => ({
  summary: 'A later page of search results',
  description: 'By the page token of the page before; tokens expire after about an hour (search_page_token_expired).',
  tag: 'Search',
  query: s.version.search.userMetadata ? { include_user_metadata: { schema: z.boolean().optional() } } : undefined,
  responses: ok(s.searchPage),
});
const combined: Entry = (s) => ({
  summary: 'Combined query search',
  description: '$and, $or, $then (ordered) and $not of text subqueries, with proximity in seconds.',
  tag: 'Search',
  body: { json: combinedSearch, required: true },
  responses: ok(s.searchPage),
});
const artifact =
  (what: string): Entry =>
  () => ({
    summary: `The ${what} of a video`,
    tag: 'Videos',
    query: { start: { schema: z.number().min(0).optional() }, end: { schema: z.number().min(0).optional() } },
    responses: ok(z.object({ _id: id, index_id: id, data: z.array(timedValue) })),
  });
const notBuilt =
  (capability: string): Entry =>
  () => ({
    summary: `${capability} (not available on this server yet)`,
    tag: 'Not built',
    responses: { 501: { description: 'not_implemented: this capability is not built yet.' } },
  });

const generationRequest = z.object({
  video_id: id,
  prompt: z.string().optional(),
  temperature: z.number().min(0).max(1).optional(),
});
const usage = z.object({ output_tokens: z.int() });
const streamEvent = z.object({
  event_type: z.enum(['stream_start', 'text_generation', 'stream_end', 'stream_error']),
  text: z.string().optional(),
  finish_reason: z.string().optional(),
  metadata: z.object({ generation_id: z.string(), usage: usage.optional() }).optional(),
  error: z.object({ message: z.string() }).optional(),
});
const openPrompt =
  (stream: string): Entry =>
  ({ version }) => ({
    summary: 'Answer a prompt about a video',
    description: `Streams NDJSON events unless stream is false (default: ${stream}).`,
    tag: 'Generate',
    body: { json: generationRequest.extend({ prompt: z.string(), stream: z.boolean().optional() }), required: true },
    responses: {
      200: {
        description: 'The text, or the stream of events.',
        json: z.object({ id: z.string(), data: z.string(), ...(version.generate.usage ? { finish_reason: z.string(), usage } : {}) }),
        ndjson: streamEvent,
      },
    },
  });

/** Classify (API-CONTRACT §5.6): the body in the version's names, the answer for the shape it asks. */
const classifiedVideo = (classesKey: string) =>
  z.object({
    video_id: id,
    [classesKey]: z.array(
      z.object({
        name: z.string(),
        score: z.number(),
        duration_ratio: z.number(),
        detailed_scores: z.object({ max_score: z.number(), avg_score: z.number(), normalized_score: z.number() }).optional(),
        clips: z
          .array(
            z.object({
              start: z.number(),
              end: z.number(),
              score: z.number(),
              option: z.string(),
              prompt: z.string(),
              thumbnail_url: z.string().optional(),
            }),
          )
          .optional(),
      }),
    ),
  });
const classifyBody = ({ version }: VersionShapes, target: 'videos' | 'index') => {
  const shape = version.classify!;
  const classes = z.array(
    z.object({
      name: z.string(),
      prompts: z.array(z.string()),
      options: z.array(z.string()).optional(),
      conversation_option: z.string().optional(),
    }),
  );
  const videos = target === 'index' ? { index_id: id } : shape.videos === 'video_ids' ? { video_ids: z.array(id) } : { video_id: id };
  return classifyFields.extend({ ...videos, [shape.classesField]: classes, options: z.array(z.string()) });
};
const classifyPage = (s: VersionShapes, classesKey = 'classes') =>
  z.object({ data: z.array(classifiedVideo(classesKey)), page_info: s.searchPage.shape.page_info as z.ZodType });
const classifyAnswer = (s: VersionShapes) =>
  s.version.classify!.videos === 'video_id'
    ? z.union([classifiedVideo(s.version.classify!.classesField), classifyPage(s)])
    : classifyPage(s);

const embedTask = z.looseObject({ _id: id, status: z.enum(['processing', 'ready', 'failed']), created_at: z.string().optional() });
const embedTaskV2 = z.looseObject({
  _id: id,
  status: z.enum(['processing', 'ready', 'failed']),
  data: z.array(z.looseObject({ embedding: z.array(z.number()) })).nullable(),
});

export const OPERATIONS: Readonly<Record<string, Entry>> = {
  'GET /openapi.json': () => ({ summary: 'This document', tag: 'Docs', public: true, responses: ok(z.record(z.string(), z.unknown())) }),

  'POST /indexes': (s) => ({
    summary: 'Create an index',
    tag: 'Indexes',
    body: { json: s.schemas.createIndex, required: true },
    responses: created(z.object({ _id: id })),
  }),
  'GET /indexes': (s) => ({
    summary: 'List indexes',
    tag: 'Indexes',
    query: {
      ...paging,
      _id: { schema: z.string().optional() },
      index_name: { schema: z.string().optional() },
      ...Object.fromEntries(
        s.version.indexes.optionFilter.keys.map((key) => [
          key,
          { schema: z.array(z.enum(s.version.indexes.optionFilter.values)).optional() },
        ]),
      ),
      // Not an enum: the docs page would fill an optional enum with its first value and filter by it unasked.
      [s.version.indexes.familyFilter]: { schema: z.string().optional(), description: 'marengo or pegasus' },
    },
    responses: ok(s.list(s.index)),
  }),
  'GET /indexes/{index_id}': (s) => ({ summary: 'Retrieve an index', tag: 'Indexes', responses: ok(s.index) }),
  'PUT /indexes/{index_id}': () => ({
    summary: 'Rename an index',
    tag: 'Indexes',
    body: { json: renameSchema, required: true },
    responses: noContent,
  }),
  'DELETE /indexes/{index_id}': () => ({ summary: 'Delete an index and its videos', tag: 'Indexes', responses: noContent }),

  'GET /engines': (s) => ({
    summary: 'List engines',
    tag: 'Engines',
    query: { page: paging.page, page_limit: paging.page_limit },
    responses: ok(s.list(s.engine).extend({ providers: modelProviders.optional() })),
  }),
  'GET /engines/{engine_id}': (s) => ({ summary: 'Retrieve an engine', tag: 'Engines', responses: ok(s.engine) }),

  'GET /indexes/{index_id}/videos': (s) => ({
    summary: 'List the videos of an index',
    description: 'Other query keys filter on user metadata (?category=news).',
    tag: 'Videos',
    query: { ...paging, filename: { schema: z.string().optional() }, duration: { schema: z.number().optional() } },
    responses: ok(s.list(s.video)),
  }),
  'GET /indexes/{index_id}/videos/{video_id}': (s) => ({
    summary: 'Retrieve a video',
    tag: 'Videos',
    query: {
      ...(s.version.videos.transcriptionOnRetrieve ? { transcription: { schema: z.boolean().optional() } } : {}),
      ...(!s.version.embed
        ? {}
        : s.version.videos.embeddingsOnRetrieve === 'embed'
          ? { embed: { schema: z.boolean().optional() } }
          : { embedding_option: { schema: z.array(z.enum(VIDEO_EMBEDDING_OPTIONS)).optional() } }),
    },
    responses: ok(s.video),
  }),
  'PUT /indexes/{index_id}/videos/{video_id}': (s) => ({
    summary: 'Update a video',
    description: s.version.videos.putReplacesUserMetadata ? 'Replaces the user metadata.' : 'Merges the metadata; null deletes a key.',
    tag: 'Videos',
    body: { json: updateVideoFields, required: true },
    responses: noContent,
  }),
  'PATCH /indexes/{index_id}/videos/{video_id}': () => ({
    summary: 'Update a video (merge)',
    tag: 'Videos',
    body: { json: updateVideoFields, required: true },
    responses: noContent,
  }),
  'DELETE /indexes/{index_id}/videos/{video_id}': () => ({ summary: 'Delete a video', tag: 'Videos', responses: noContent }),
  'GET /indexes/{index_id}/videos/{video_id}/transcription': artifact('transcription'),
  'GET /indexes/{index_id}/videos/{video_id}/text-in-video': artifact('on-screen text'),
  'GET /indexes/{index_id}/videos/{video_id}/logo': artifact('logos'),
  'GET /indexes/{index_id}/videos/{video_id}/thumbnail': () => ({
    summary: 'A thumbnail of a video',
    description: 'A signed, expiring URL. Needs the thumbnail addon.',
    tag: 'Videos',
    query: { time: { schema: z.number().min(0).optional() } },
    responses: ok(z.object({ thumbnail: z.string() })),
  }),

  'POST /tasks': (s) => {
    const { videoStreamFlag, acceptsUserMetadata, created: answer } = s.version.tasks;
    // The route's schema reads both stream switches and user_metadata; the version uses one switch and maybe no metadata.
    const { enable_video_stream, disable_video_stream, user_metadata, ...common } = createTaskFields.shape;
    const fields = z.object({
      ...common,
      ...(videoStreamFlag.field === 'enable_video_stream' ? { enable_video_stream } : { disable_video_stream }),
      ...(acceptsUserMetadata ? { user_metadata } : {}),
      video_file: file.optional(),
      transcription_file: file.optional(),
    });
    return {
      summary: 'Upload a video and index it',
      description: 'video_file or video_url (the URL wins). Answered once the upload is stored; follow the task until ready or failed.',
      tag: 'Tasks',
      body: { multipart: fields, json: fields.omit({ video_file: true, transcription_file: true }), required: true },
      responses: created(s.taskCreated, answer.status),
    };
  },
  'GET /tasks': (s) => ({
    summary: 'List tasks',
    tag: 'Tasks',
    query: {
      ...paging,
      index_id: { schema: z.string().optional() },
      status: { schema: z.array(z.enum(Object.keys(s.version.tasks.statuses) as [string, ...string[]])).optional() },
    },
    responses: ok(s.list(s.task)),
  }),
  'GET /tasks/{task_id}': (s) => ({ summary: 'Retrieve a task', tag: 'Tasks', responses: ok(s.task) }),
  'GET /tasks/{task_id}/video-id': () => ({
    summary: 'The video of a task',
    description: 'Deprecated in v1; null until the task is ready.',
    tag: 'Tasks',
    responses: ok(z.object({ video_id: id.nullable() })),
  }),
  'DELETE /tasks/{task_id}': () => ({
    summary: 'Delete a task',
    description: 'Only a ready or failed task.',
    tag: 'Tasks',
    responses: noContent,
  }),
  'GET /tasks/status': (s) => ({
    summary: 'Count the tasks of an index by status',
    tag: 'Tasks',
    query: { index_id: { schema: z.string() } },
    responses: ok(s.taskStatusCounts),
  }),
  'POST /tasks/transfers': () => ({
    summary: 'Import videos from cloud storage',
    description: 'Part file: a JSON list of {index_id, object, language?, transcription?} with s3:// or http(s) objects.',
    tag: 'Tasks',
    body: { multipart: z.object({ file }), required: true },
    responses: ok(z.object({ message: z.string(), type: z.literal('transfers'), task_ids: z.array(id) })),
  }),
  'POST /tasks/external-provider': () => ({
    summary: 'Import a YouTube video',
    tag: 'Tasks',
    body: { json: externalProviderSchema, required: true },
    responses: created(z.object({ _id: id })),
  }),

  'POST /webhooks': () => ({
    summary: 'Register a webhook endpoint (this server’s extension)',
    tag: 'Webhooks',
    body: { json: createWebhook, required: true },
    responses: created(
      z.object({
        _id: id,
        url: z.string(),
        event_types: z.array(z.string()),
        created_at: z.string().optional(),
        signing_secret: z.string(),
      }),
    ),
  }),
  'GET /webhooks': (s) => ({
    summary: 'List webhook endpoints',
    tag: 'Webhooks',
    query: { page: paging.page, page_limit: paging.page_limit },
    responses: ok(s.list(z.object({ _id: id, url: z.string(), event_types: z.array(z.string()), created_at: z.string().optional() }))),
  }),
  'DELETE /webhooks/{webhook_id}': () => ({ summary: 'Delete a webhook endpoint', tag: 'Webhooks', responses: noContent }),
  'GET /webhooks/{webhook_id}/deliveries': () => ({
    summary: 'The delivery log of a webhook endpoint',
    tag: 'Webhooks',
    query: { status: { schema: z.array(z.enum(['pending', 'succeeded', 'failed'])).optional() } },
    responses: ok(z.object({ data: z.array(z.record(z.string(), z.unknown())), page_info: pageInfo })),
  }),

  'POST /search': (s) => ({
    summary: 'Search an index',
    description: s.version.search.jsonOnly
      ? 'JSON with a text query.'
      : s.version.search.jsonQuery
        ? 'JSON with a text query (deprecated), or multipart with query_text or an image; a JSON object query is a combined search.'
        : 'Multipart: query_text and/or an image (query_media_type=image with query_media_url or query_media_file).',
    tag: 'Search',
    body: s.version.search.jsonOnly
      ? { json: jsonSearch(s), required: true }
      : s.version.search.jsonQuery
        ? { json: jsonSearch(s), multipart: multipartSearch, required: true }
        : { multipart: s.version.search.transcriptionOptions ? multipartSearchV13 : multipartSearch, required: true },
    responses: ok(s.searchPage),
  }),
  'POST /search-v2': (s) => ({
    summary: 'Search an index (multipart)',
    tag: 'Search',
    body: { multipart: multipartSearch, required: true },
    responses: ok(s.searchPage),
  }),
  'POST /combined-search': combined,
  'POST /search/combined': combined,
  'POST /beta/search': combined,
  'GET /search/{token}': searchPage,
  'GET /search-v2/{token}': searchPage,
  'GET /combined-search/{token}': searchPage,
  'GET /beta/search/{token}': searchPage,
  'POST /search/{token}': searchPage,
  'POST /search-v2/{token}': searchPage,

  'POST /gist': ({ version }) => ({
    summary: 'Title, topics and hashtags of a video',
    tag: 'Generate',
    body: { json: z.object({ video_id: id, types: z.array(z.enum(['title', 'topic', 'hashtag'])) }), required: true },
    responses: ok(
      z.object({
        id: z.string(),
        title: z.string().optional(),
        topics: z.array(z.string()).optional(),
        hashtags: z.array(z.string()).optional(),
        ...(version.generate.usage ? { usage } : {}),
      }),
    ),
  }),
  'POST /summarize': ({ version }) => ({
    summary: 'Summary, chapters or highlights of a video',
    tag: 'Generate',
    body: { json: generationRequest.extend({ type: z.enum(['summary', 'chapter', 'highlight']) }), required: true },
    responses: ok(
      z.object({
        id: z.string(),
        ...(version.generate.summarizeType ? { summarize_type: z.enum(['summary', 'chapter', 'highlight']) } : {}),
        summary: z.string().optional(),
        chapters: z
          .array(
            z.object({
              chapter_number: z.int(),
              start: z.number(),
              end: z.number(),
              chapter_title: z.string(),
              chapter_summary: z.string(),
            }),
          )
          .optional(),
        highlights: z
          .array(z.object({ start: z.number(), end: z.number(), highlight: z.string(), highlight_summary: z.string() }))
          .optional(),
        ...(version.generate.usage ? { usage } : {}),
      }),
    ),
  }),
  'POST /generate': ({ version }) => openPrompt(String(version.generate.generateStreamsByDefault))({ version } as VersionShapes),
  'POST /analyze': openPrompt('true'),

  'POST /embed': () => ({
    summary: 'Embed a text, an image or audio',
    tag: 'Embeddings',
    body: {
      multipart: z.object({
        text: z.string().optional(),
        image_url: z.string().optional(),
        image_file: file.optional(),
        audio_url: z.string().optional(),
        audio_file: file.optional(),
      }),
      required: true,
    },
    responses: ok(z.looseObject({})),
  }),
  // Embedding tasks (the embed work's routes): the fields every SDK reads, the rest left open.
  'POST /embed/tasks': () => ({
    summary: 'Embed a video (a task)',
    description:
      'engine_name (v1.2) or model_name (v1.3), video_url or video_file, offsets, video_clip_length, video_embedding_scope (repeated).',
    tag: 'Embeddings',
    body: {
      multipart: z.looseObject({
        video_url: z.string().optional(),
        video_file: file.optional(),
        video_clip_length: z.number().optional(),
        video_embedding_scope: z.array(z.enum(['clip', 'video'])).optional(),
      }),
      required: true,
    },
    responses: ok(z.object({ _id: id })),
  }),
  'GET /embed/tasks': () => ({
    summary: 'List video embedding tasks (the last 7 days unless dated)',
    tag: 'Embeddings',
    query: {
      page: paging.page,
      page_limit: paging.page_limit,
      started_at: { schema: z.string().optional() },
      ended_at: { schema: z.string().optional() },
      status: { schema: z.string().optional() },
    },
    responses: ok(z.object({ data: z.array(embedTask), page_info: pageInfo })),
  }),
  'GET /embed/tasks/{task_id}/status': () => ({
    summary: 'The status of a video embedding task',
    tag: 'Embeddings',
    responses: ok(embedTask),
  }),
  'GET /embed/tasks/{task_id}': () => ({ summary: 'A video embedding task and its vectors', tag: 'Embeddings', responses: ok(embedTask) }),
  'POST /embed-v2/tasks': () => ({
    summary: 'Embed a video (Marengo 3.0, a task)',
    tag: 'Embeddings',
    body: { json: z.looseObject({ input_type: z.string(), model_name: z.string() }), required: true },
    responses: created(z.object({ _id: id, status: z.string(), data: z.null() }), 202),
  }),
  'GET /embed-v2/tasks': () => ({
    summary: 'List Marengo 3.0 embedding tasks',
    tag: 'Embeddings',
    query: { page: paging.page, page_limit: paging.page_limit },
    responses: ok(z.object({ data: z.array(embedTaskV2), page_info: pageInfo })),
  }),
  'GET /embed-v2/tasks/{task_id}': () => ({
    summary: 'A Marengo 3.0 embedding task and its vectors',
    tag: 'Embeddings',
    responses: ok(embedTaskV2),
  }),
  'POST /embed-v2': () => ({
    summary: 'Embed text, an image, text and an image, or media (Marengo 3.0)',
    tag: 'Embeddings',
    body: { json: z.looseObject({ input_type: z.string(), model_name: z.string() }), required: true },
    responses: ok(z.looseObject({ data: z.array(z.looseObject({ embedding: z.array(z.number()) })) })),
  }),

  'POST /assets': () => ({
    summary: 'Upload an asset',
    description:
      'method direct (file) or url (fetched by the server; public addresses only). Answered at once with status processing; the file is sniffed and probed (a playlist or text is refused) before it is ready.',
    tag: 'Assets',
    body: { multipart: createAssetSchema.extend({ file: file.optional() }), json: createAssetSchema, required: true },
    responses: created(asset),
  }),
  'GET /assets': (s) => ({
    summary: 'List assets',
    tag: 'Assets',
    query: {
      page: paging.page,
      page_limit: paging.page_limit,
      asset_ids: { schema: z.array(z.string()).optional() },
      asset_types: { schema: z.array(z.enum(['video', 'audio', 'image', 'document'])).optional() },
      filename: { schema: z.string().max(255).optional(), description: 'Part of the file name, any case.' },
    },
    responses: ok(s.list(asset)),
  }),
  'GET /assets/{asset_id}': () => ({ summary: 'Retrieve an asset', tag: 'Assets', responses: ok(asset) }),
  'DELETE /assets/{asset_id}': () => ({
    summary: 'Delete an asset',
    description: 'Refused while an indexing task of the asset runs. Indexed assets made from it stay.',
    tag: 'Assets',
    responses: noContent,
  }),
  'POST /assets/multipart-uploads': () => ({
    summary: 'Start a multipart upload',
    description: 'Answers the chunk size and presigned PUT URLs for the first 100 chunks (8 MiB chunks, files up to 4 GiB).',
    tag: 'Assets',
    body: { json: createUploadSchema, required: true },
    responses: created(
      z.object({
        upload_id: id,
        asset_id: id,
        upload_urls: z.array(chunkUrl),
        upload_headers: z.record(z.string(), z.string()),
        chunk_size: z.int(),
        total_chunks: z.int(),
        expires_at: z.string().optional(),
      }),
    ),
  }),
  'GET /assets/multipart-uploads': (s) => ({
    summary: 'List incomplete multipart uploads',
    tag: 'Assets',
    query: { page: paging.page, page_limit: paging.page_limit },
    responses: ok(s.list(uploadSummary)),
  }),
  'GET /assets/multipart-uploads/{upload_id}': () => ({
    summary: 'The status of a multipart upload and a page of its chunks',
    tag: 'Assets',
    query: { page: paging.page, page_limit: paging.page_limit },
    responses: ok(z.looseObject({ upload_id: id, status: z.string(), uploaded_chunks: z.array(z.looseObject({ index: z.int() })) })),
  }),
  'POST /assets/multipart-uploads/{upload_id}': () => ({
    summary: 'Report uploaded chunks',
    description: 'Each chunk with the ETag its PUT answered. Once every chunk is reported the file is joined; `url` is then set.',
    tag: 'Assets',
    body: { json: reportChunksSchema, required: true },
    responses: ok(
      z.object({
        url: z.string().optional(),
        asset_id: id,
        processed_chunks: z.int(),
        duplicate_chunks: z.int(),
        total_completed: z.int(),
      }),
    ),
  }),
  'POST /assets/multipart-uploads/{upload_id}/presigned-urls': () => ({
    summary: 'More presigned chunk URLs',
    tag: 'Assets',
    body: { json: moreUrlsSchema, required: true },
    responses: ok(z.looseObject({ upload_id: id, start_index: z.int(), count: z.int(), upload_urls: z.array(chunkUrl) })),
  }),
  'POST /indexes/{index_id}/indexed-assets': () => ({
    summary: 'Index an asset',
    description: 'The asset must be a ready video. Makes an indexing task (as POST /tasks does); follow the indexed asset until ready.',
    tag: 'Indexed assets',
    body: { json: createIndexedAssetSchema, required: true },
    responses: created(z.object({ _id: id }), 202),
  }),
  'GET /indexes/{index_id}/indexed-assets': (s) => ({
    summary: 'List the indexed assets of an index',
    tag: 'Indexed assets',
    query: {
      ...paging,
      status: { schema: z.array(z.enum(INDEXED_ASSET_STATUSES)).optional() },
      filename: { schema: z.string().optional() },
      duration: range('seconds'),
      fps: range('frames per second'),
      width: range('pixels'),
      height: range('pixels'),
      size: range('bytes'),
      created_at: { schema: z.string().optional(), description: 'A time, or created_at[gte|lte|gt|lt]=… for a range.' },
      updated_at: { schema: z.string().optional(), description: 'A time, or updated_at[gte|lte|gt|lt]=… for a range.' },
    },
    responses: ok(s.list(indexedAsset)),
  }),
  'GET /indexes/{index_id}/indexed-assets/{indexed_asset_id}': () => ({
    summary: 'Retrieve an indexed asset',
    tag: 'Indexed assets',
    responses: ok(indexedAsset),
  }),
  'PATCH /indexes/{index_id}/indexed-assets/{indexed_asset_id}': () => ({
    summary: 'Update the user metadata of an indexed asset',
    description: 'Merges; a null value removes a key. Once the indexed asset is ready.',
    tag: 'Indexed assets',
    body: { json: updateIndexedAssetSchema, required: true },
    responses: noContent,
  }),
  'DELETE /indexes/{index_id}/indexed-assets/{indexed_asset_id}': () => ({
    summary: 'Delete an indexed asset',
    description: 'Its video and task; the asset stays. Refused while it is being indexed.',
    tag: 'Indexed assets',
    responses: noContent,
  }),

  'POST /classify': (s) => ({
    summary: 'Classify videos into classes of prompts',
    description:
      'Each prompt is a search over the videos; a class scores 100 × (1 − Π(1 − best clip score per prompt / 100)). See README "Classification scoring".',
    tag: 'Classify',
    body: { json: classifyBody(s, 'videos'), required: true },
    responses: ok(classifyAnswer(s)),
  }),
  'POST /classify/bulk': (s) => ({
    summary: 'Classify every video of an index',
    tag: 'Classify',
    body: { json: classifyBody(s, 'index'), required: true },
    responses: ok(classifyPage(s, s.version.classify!.classesField)),
  }),
  'GET /classify/{page_token}': (s) => ({ summary: 'A later page of a classification', tag: 'Classify', responses: ok(classifyPage(s)) }),

  'ALL /tasks/transfers/*rest': notBuilt('Task transfers from an integration'),
};
