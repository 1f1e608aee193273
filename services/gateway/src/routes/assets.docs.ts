import { z } from 'zod';
import { created, file, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import {
  assetUserMetadataSchema,
  createAssetSchema,
  createIndexedAssetSchema,
  createUploadSchema,
  INDEXED_ASSET_STATUSES,
  moreUrlsSchema,
  reportChunksSchema,
  TRANSCRIPTION_SEGMENTATIONS,
  updateIndexedAssetSchema,
} from './assets.schema';

/**
 * The OpenAPI operations of routes/assets.ts (Assets, multipart uploads and indexed assets): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

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

/** POST /assets */
export const createAsset: OperationDoc = () => ({
  summary: 'Upload an asset',
  description:
    'method direct (file) or url (fetched by the server; public addresses only). Answered at once with status processing; the file is sniffed and probed (a playlist or text is refused) before it is ready.',
  tag: 'Assets',
  body: { multipart: createAssetSchema.extend({ file: file.optional() }), json: createAssetSchema, required: true },
  responses: created(asset),
});

/** GET /assets */
export const listAssets: OperationDoc = (s) => ({
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
});

/** GET /assets/{asset_id} */
export const retrieveAsset: OperationDoc = () => ({ summary: 'Retrieve an asset', tag: 'Assets', responses: ok(asset) });

/** DELETE /assets/{asset_id} */
export const deleteAsset: OperationDoc = () => ({
  summary: 'Delete an asset',
  description:
    'Answers 409 (asset_in_use) while indexed assets reference the asset (GET /assets/{asset_id}/indexed-assets lists them), unless force=true. Forced, the asset and its entity links go; indexed assets made from it stay with their videos.',
  tag: 'Assets',
  query: { force: { schema: z.boolean().optional(), description: 'Delete even while indexed assets reference the asset.' } },
  responses: {
    ...noContent,
    409: { description: 'Indexed assets reference the asset (asset_in_use).', json: z.object({ code: z.string(), message: z.string() }) },
  },
});

const userMetadataBody = { json: assetUserMetadataSchema, required: true } as const;

/** PUT /assets/{asset_id}/user-metadata */
export const replaceUserMetadata: OperationDoc = () => ({
  summary: "Replace an asset's user metadata",
  description:
    'Keeps only the keys sent; a key set to "" or null is ignored; {} clears. Values are strings, numbers or booleans; at most 100 keys of 1-256 characters, strings up to 10,000 characters.',
  tag: 'Assets',
  body: userMetadataBody,
  responses: noContent,
});

/** PATCH /assets/{asset_id}/user-metadata */
export const updateUserMetadata: OperationDoc = () => ({
  summary: "Update an asset's user metadata",
  description: 'Merges: a key with a value is set, null removes it, "" is ignored, keys not sent keep their values. Same limits as PUT.',
  tag: 'Assets',
  body: userMetadataBody,
  responses: noContent,
});

/** DELETE /assets/{asset_id}/user-metadata */
export const deleteUserMetadata: OperationDoc = () => ({
  summary: "Delete an asset's user metadata",
  tag: 'Assets',
  responses: noContent,
});

/** GET /assets/{asset_id}/indexed-assets */
export const listIndexedAssetsByAsset: OperationDoc = (s) => ({
  summary: 'List the indexed assets made from an asset',
  description: 'In every index of the organization, newest first: the references that make DELETE /assets/{asset_id} answer 409.',
  tag: 'Assets',
  query: { ...paging },
  responses: ok(s.list(indexedAsset)),
});

const transcriptionEntry = z.object({ start: z.number(), end: z.number(), value: z.string() });

/** GET /assets/{asset_id}/transcription */
export const retrieveTranscription: OperationDoc = () => ({
  summary: "Retrieve an asset's transcription",
  description:
    "Speech is transcribed when the asset is indexed: the newest ready indexed asset's transcript answers (status ready); otherwise pending or processing while one is being indexed, failed when all failed, and 404 when the asset was never indexed or is an image or audio (only videos are indexed). The speech model's segments come as sentences; words (no word times are kept) and utterances (no speakers are told apart) are not supported and left out.",
  tag: 'Assets',
  query: {
    include: {
      schema: z.array(z.enum(TRANSCRIPTION_SEGMENTATIONS)).optional(),
      description: 'words, sentences, utterances (repeated or comma-joined); default words.',
    },
  },
  responses: ok(
    z.object({
      status: z.enum(['pending', 'processing', 'ready', 'failed']),
      sentences: z.array(transcriptionEntry).optional(),
      error: z.object({ message: z.string() }).optional(),
    }),
  ),
});

/** POST /assets/multipart-uploads */
export const startUpload: OperationDoc = () => ({
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
});

/** GET /assets/multipart-uploads */
export const listUploads: OperationDoc = (s) => ({
  summary: 'List incomplete multipart uploads',
  tag: 'Assets',
  query: { page: paging.page, page_limit: paging.page_limit },
  responses: ok(s.list(uploadSummary)),
});

/** GET /assets/multipart-uploads/{upload_id} */
export const retrieveUpload: OperationDoc = () => ({
  summary: 'The status of a multipart upload and a page of its chunks',
  tag: 'Assets',
  query: { page: paging.page, page_limit: paging.page_limit },
  responses: ok(z.looseObject({ upload_id: id, status: z.string(), uploaded_chunks: z.array(z.looseObject({ index: z.int() })) })),
});

/** POST /assets/multipart-uploads/{upload_id} */
export const reportChunks: OperationDoc = () => ({
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
});

/** POST /assets/multipart-uploads/{upload_id}/presigned-urls */
export const moreUrls: OperationDoc = () => ({
  summary: 'More presigned chunk URLs',
  tag: 'Assets',
  body: { json: moreUrlsSchema, required: true },
  responses: ok(z.looseObject({ upload_id: id, start_index: z.int(), count: z.int(), upload_urls: z.array(chunkUrl) })),
});

/** POST /indexes/{index_id}/indexed-assets */
export const createIndexedAsset: OperationDoc = () => ({
  summary: 'Index an asset',
  description: 'The asset must be a ready video. Makes an indexing task (as POST /tasks does); follow the indexed asset until ready.',
  tag: 'Indexed assets',
  body: { json: createIndexedAssetSchema, required: true },
  responses: created(z.object({ _id: id }), 202),
});

/** GET /indexes/{index_id}/indexed-assets */
export const listIndexedAssets: OperationDoc = (s) => ({
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
});

/** GET /indexes/{index_id}/indexed-assets/{indexed_asset_id} */
export const retrieveIndexedAsset: OperationDoc = () => ({
  summary: 'Retrieve an indexed asset',
  tag: 'Indexed assets',
  responses: ok(indexedAsset),
});

/** PATCH /indexes/{index_id}/indexed-assets/{indexed_asset_id} */
export const updateIndexedAsset: OperationDoc = () => ({
  summary: 'Update the user metadata of an indexed asset',
  description: 'Merges; a null value removes a key. Once the indexed asset is ready.',
  tag: 'Indexed assets',
  body: { json: updateIndexedAssetSchema, required: true },
  responses: noContent,
});

/** DELETE /indexes/{index_id}/indexed-assets/{indexed_asset_id} */
export const deleteIndexedAsset: OperationDoc = () => ({
  summary: 'Delete an indexed asset',
  description: 'Its video and task; the asset stays. Refused while it is being indexed.',
  tag: 'Indexed assets',
  responses: noContent,
});
