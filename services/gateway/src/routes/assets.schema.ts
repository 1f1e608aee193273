import { errors, parseInput } from '@vus/core';
import { toMetadataValues } from '@vus/grpc';
import type { CreateAssetRequest__Input } from '@vus/grpc/types/task/v1/CreateAssetRequest';
import type { CreateIndexedAssetRequest__Input } from '@vus/grpc/types/task/v1/CreateIndexedAssetRequest';
import type { ListAssetsRequest__Input } from '@vus/grpc/types/task/v1/ListAssetsRequest';
import type { ListIndexedAssetsRequest__Input } from '@vus/grpc/types/task/v1/ListIndexedAssetsRequest';
import { z } from 'zod';
import { firstValue, looseBoolean, looseInt, looseJson } from '../http/coerce';
import { parsePageQuery } from '../http/paging';
import { parseNumberRange, parseTimeRange } from '../http/ranges';
import { list, scalar, type RawQuery } from '../http/query';
import type { StoredFile } from '../http/upload';

/** The multipart part of POST /assets that carries the file (streamed to the blob store). */
export const ASSET_FILE_FIELDS: ReadonlySet<string> = new Set(['file']);

const text = z.preprocess(firstValue, z.string({ error: 'expected a string' }).trim());
const flag = z.preprocess(firstValue, looseBoolean);
const metadataValue = z.union([z.string(), z.number().finite(), z.boolean()]);
const metadataObject = z.record(z.string(), metadataValue, { error: 'expected a JSON object of strings, numbers or booleans' });

/** POST /assets fields (API-CONTRACT §5.9): `method` direct|url, `file` or `url`, optional `filename`. */
export const createAssetSchema = z.object({
  method: text.pipe(z.enum(['direct', 'url'], { error: 'expected direct or url' })),
  url: text.optional(),
  filename: text.pipe(z.string().max(255, 'at most 255 characters')).optional(),
  // Accepted for the 1.x SDK's sake; this server always makes a stream and thumbnails when indexing.
  enable_hls: flag.optional(),
  enable_thumbnail: flag.optional(),
  user_metadata: z.preprocess(firstValue, looseJson(metadataObject)).optional(),
});

export interface CreateAssetPlan {
  request: CreateAssetRequest__Input;
  /** Stored files the request does not use (a url asset with a file): remove them. */
  unused: StoredFile[];
}

/** POST /assets: a direct upload needs its `file` (already in the blob store), a URL upload its `url`. */
export function parseCreateAsset(fields: unknown, files: readonly StoredFile[], idempotencyKey: string | undefined): CreateAssetPlan {
  const input = parseInput(createAssetSchema, fields);
  const file = files.find((f) => f.field === 'file');
  // Stored with the asset (checked as PUT /assets/{id}/user-metadata checks it).
  const base = { idempotency_key: idempotencyKey ?? '', user_metadata: toMetadataValues(input.user_metadata ?? {}) };
  if (input.method === 'url') {
    if (!input.url) throw errors.notProvided('url');
    return { request: { ...base, method: 'url', url: input.url, filename: input.filename ?? '' }, unused: [...files] };
  }
  if (!file) throw errors.notProvided('file');
  if (input.url) throw errors.invalid('url', 'A direct upload sends the file, not a URL.');
  return {
    request: { ...base, method: 'direct', blob_key: file.blobKey, filename: input.filename || file.filename },
    unused: files.filter((f) => f !== file),
  };
}

const ASSET_TYPES = ['video', 'audio', 'image'] as const;

function fileNameFilter(query: RawQuery): string {
  const filename = scalar(query, 'filename') ?? '';
  if (filename.length > 255) throw errors.invalid('filename', 'At most 255 characters.');
  return filename;
}

/**
 * GET /assets: paging, `asset_ids` and `asset_types` (repeated or comma-separated), `filename`
 * (part of the name, any case). The 1.x SDK
 * also knows "document": no asset of this server is one, so asking only for documents finds none.
 */
export function parseListAssets(query: RawQuery): { request: ListAssetsRequest__Input; matchesNothing: boolean } {
  const page = parsePageQuery(query);
  const split = (values: string[] | undefined) =>
    (values ?? [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean);
  const types = parseInput(
    z.array(z.enum([...ASSET_TYPES, 'document'], { error: 'expected video, audio, image or document' })),
    split(list(query, 'asset_types', 'asset_types[]')),
  );
  const mediaTypes = types.filter((t) => t !== 'document');
  return {
    request: {
      page: { page: page.page, page_limit: page.pageLimit },
      asset_ids: split(list(query, 'asset_ids', 'asset_ids[]')),
      asset_types: mediaTypes,
      filename: fileNameFilter(query),
    },
    matchesNothing: types.length > 0 && mediaTypes.length === 0,
  };
}

/** POST /assets/multipart-uploads (JSON). */
export const createUploadSchema = z.object({
  filename: z.string({ error: 'expected a string' }).trim().min(1, 'expected a file name').max(255, 'at most 255 characters'),
  type: z.enum(ASSET_TYPES, { error: 'expected video, audio or image' }),
  total_size: looseInt.pipe(z.number().int().positive('expected a positive number of bytes')),
  enable_hls: z.boolean().optional(),
  enable_thumbnail: z.boolean().optional(),
  user_metadata: metadataObject.optional(),
});

/** POST /assets/multipart-uploads/{id} (JSON): chunks whose PUT answered, with the ETag as proof. */
export const reportChunksSchema = z.object({
  completed_chunks: z
    .array(
      z.object({
        chunk_index: z.int().min(1),
        proof: z.string().min(1, 'expected the ETag of the chunk upload'),
        proof_type: z.literal('etag', { error: 'expected etag' }),
        chunk_size: z.int().min(0).optional(),
      }),
    )
    .min(1, 'expected at least one chunk')
    .max(1000, 'at most 1000 chunks per report'),
});

/** POST /assets/multipart-uploads/{id}/presigned-urls (JSON): more chunk URLs. */
export const moreUrlsSchema = z.object({
  start: z.int().min(1),
  count: z.int().min(1).max(100, 'at most 100 URLs per request'),
});

/** POST /indexes/{index_id}/indexed-assets (JSON): the asset, and the video stream switch. */
export const createIndexedAssetSchema = z.object({
  asset_id: z.string({ error: 'expected an asset id' }).trim().min(1, 'expected an asset id'),
  enable_video_stream: looseBoolean.optional(),
  user_metadata: metadataObject.optional(),
});

export function parseCreateIndexedAsset(
  indexId: string,
  body: unknown,
  idempotencyKey: string | undefined,
): CreateIndexedAssetRequest__Input {
  const input = parseInput(createIndexedAssetSchema, body ?? {});
  return {
    index_id: indexId,
    asset_id: input.asset_id,
    // Off unless asked for, as the contract's default says.
    enable_video_stream: input.enable_video_stream ?? false,
    user_metadata: toMetadataValues(input.user_metadata ?? {}),
    idempotency_key: idempotencyKey ?? '',
  };
}

export const INDEXED_ASSET_STATUSES = ['pending', 'queued', 'indexing', 'ready', 'failed'] as const;

/** GET /indexes/{index_id}/indexed-assets: paging, `status` (repeated), `filename`, ranges of the video's metadata and times. */
export function parseListIndexedAssets(indexId: string, query: RawQuery): ListIndexedAssetsRequest__Input {
  const page = parsePageQuery(query);
  const statuses = (list(query, 'status', 'status[]') ?? []).flatMap((s) => s.split(','));
  return {
    index_id: indexId,
    page: { page: page.page, page_limit: page.pageLimit, sort_by: page.sortBy ?? '', sort_option: page.sortOption ?? '' },
    statuses: parseInput(
      z.array(z.enum(INDEXED_ASSET_STATUSES, { error: 'expected pending, queued, indexing, ready or failed' })),
      statuses,
    ),
    filter: {
      filename: fileNameFilter(query),
      duration: parseNumberRange('duration', query),
      fps: parseNumberRange('fps', query),
      width: parseNumberRange('width', query),
      height: parseNumberRange('height', query),
      size: parseNumberRange('size', query),
      created_at: parseTimeRange('created_at', query, 'createdAt'),
      updated_at: parseTimeRange('updated_at', query, 'updatedAt'),
    },
  };
}

/** PATCH /indexes/{index_id}/indexed-assets/{id}: `user_metadata` to merge (null removes a key). */
export const updateIndexedAssetSchema = z.object({
  user_metadata: z.record(z.string(), metadataValue.nullable(), { error: 'expected a JSON object' }),
});

/**
 * PUT/PATCH /assets/{id}/user-metadata (issue 32 §3): `user_metadata` of strings, numbers, booleans;
 * null removes a key (PATCH) or is ignored (PUT). Sizes (100 keys, 256-character keys, 10,000-character
 * strings, as videos' user metadata) are task-service's to check.
 */
export const assetUserMetadataSchema = z.object({
  user_metadata: z.record(z.string(), metadataValue.nullable(), {
    error: 'expected a JSON object of strings, numbers, booleans or null',
  }),
});

/** DELETE /assets/{id}?force=true: delete even while indexed assets reference the asset. */
export const deleteAssetQuerySchema = z.object({ force: flag.optional() });

export const TRANSCRIPTION_SEGMENTATIONS = ['words', 'sentences', 'utterances'] as const;
export type TranscriptionSegmentation = (typeof TRANSCRIPTION_SEGMENTATIONS)[number];

/** GET /assets/{id}/transcription?include=…: repeated or comma-joined; `words` when absent. */
export function parseTranscriptionInclude(query: RawQuery): TranscriptionSegmentation[] {
  const values = list(query, 'include') ?? ['words'];
  const unknown = values.find((v) => !(TRANSCRIPTION_SEGMENTATIONS as readonly string[]).includes(v));
  if (unknown !== undefined) {
    throw errors.invalid('include', `Unknown segmentation "${unknown.slice(0, 40)}"; expected ${TRANSCRIPTION_SEGMENTATIONS.join(', ')}.`);
  }
  return [...new Set(values as TranscriptionSegmentation[])];
}
