import { knownId, pageRequestSchema, parseInput, sortAndPaging, type Clock } from '@vus/core';
import {
  fromNumberRange,
  fromTimeRange,
  plainMetadataValues,
  requireOrg,
  toMetadataValues,
  toTimestamp,
  type AsyncHandlers,
} from '@vus/grpc';
import type { Asset__Input } from '@vus/grpc/types/task/v1/Asset';
import type { IndexedAsset__Input } from '@vus/grpc/types/task/v1/IndexedAsset';
import type { MultipartUpload__Input } from '@vus/grpc/types/task/v1/MultipartUpload';
import type { UploadChunk__Input } from '@vus/grpc/types/task/v1/UploadChunk';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import { z } from 'zod';
import { toProtoTask } from '../tasks/rpc';
import { ASSET_TYPES, type AssetRecord, type AssetService, type ChunkRecord, type UploadRecord } from './assets';
import { INDEXED_ASSET_STATUSES, type IndexedAssetService, type IndexedAssetView } from './indexed-assets';
import { METADATA_CHANGE_MODES } from './user-metadata';

/** The asset, multipart-upload and indexed-asset RPCs of TaskService: thin, validated again here. */
export type AssetHandlers = Pick<
  AsyncHandlers<TaskServiceHandlers>,
  | 'CreateAsset'
  | 'GetAsset'
  | 'ListAssets'
  | 'DeleteAsset'
  | 'SetAssetUserMetadata'
  | 'ListIndexedAssetsByAsset'
  | 'CreateMultipartUpload'
  | 'GetMultipartUpload'
  | 'ListMultipartUploads'
  | 'RecordUploadChunk'
  | 'ReportUploadChunks'
  | 'CreateIndexedAsset'
  | 'GetIndexedAsset'
  | 'ListIndexedAssets'
  | 'UpdateIndexedAsset'
  | 'DeleteIndexedAsset'
>;

const createSchema = z.discriminatedUnion('method', [
  z.object({ method: z.literal('direct'), blob_key: z.string().min(1, 'the upload is missing'), filename: z.string().max(1024) }),
  z.object({ method: z.literal('url'), url: z.string().min(1, 'expected a URL'), filename: z.string().max(1024) }),
]);
const idempotency = z.string().max(256);
const listSchema = z.object({ page: pageRequestSchema, asset_types: z.array(z.enum(ASSET_TYPES)), asset_ids: z.array(z.string()) });
const uploadSchema = z.object({
  filename: z.string().min(1, 'expected a file name').max(1024),
  type: z.enum(ASSET_TYPES),
  total_size: z.coerce.number(),
});
const chunkSchema = z.object({
  index: z.int(),
  size: z.coerce.number().int().min(0),
  etag: z.string().min(1),
  blob_key: z.string().min(1),
});
const reportSchema = z.object({
  chunks: z
    .array(z.object({ index: z.int(), proof: z.string().min(1, 'expected the ETag'), proof_type: z.string() }))
    .min(1, 'expected at least one chunk')
    .max(1000),
});
const indexedListSchema = z.object({ page: pageRequestSchema, statuses: z.array(z.enum(INDEXED_ASSET_STATUSES)) });

const assetId = (raw: string) => knownId('Asset', raw);
const uploadId = (raw: string) => knownId('Upload', raw);

export function toProtoAsset(asset: AssetRecord): Asset__Input {
  const media = asset.media;
  return {
    id: asset.id,
    method: asset.method,
    status: asset.status,
    filename: asset.filename,
    file_type: media?.mime ?? '',
    asset_type: media?.assetType ?? '',
    size: media?.size ?? 0,
    duration: media?.duration ?? 0,
    width: media?.width ?? 0,
    height: media?.height ?? 0,
    fps: media?.fps ?? 0,
    user_metadata: toMetadataValues(asset.userMetadata ?? {}),
    has_user_metadata: Boolean(asset.userMetadata),
    url: asset.sourceUrl ?? '',
    blob_key: asset.blobKey ?? '',
    failure: asset.failure,
    created_at: toTimestamp(asset.createdAt),
    updated_at: toTimestamp(asset.updatedAt),
  };
}

const toProtoChunk = (chunk: ChunkRecord): UploadChunk__Input => ({
  index: chunk.index,
  status: chunk.status,
  size: chunk.size,
  etag: chunk.etag,
  uploaded_at: toTimestamp(chunk.uploadedAt),
  updated_at: toTimestamp(chunk.updatedAt),
});

export function toProtoUpload(upload: UploadRecord): MultipartUpload__Input {
  return {
    id: upload.id,
    asset_id: upload.assetId,
    status: upload.status,
    total_size: upload.totalSize,
    chunk_size: upload.chunkSize,
    total_chunks: upload.totalChunks,
    expires_at: toTimestamp(upload.expiresAt),
    created_at: toTimestamp(upload.createdAt),
    updated_at: toTimestamp(upload.updatedAt),
  };
}

export function toProtoIndexedAsset(view: IndexedAssetView, now: Date): IndexedAsset__Input {
  const task = toProtoTask(view.task, now);
  return {
    id: view.task.videoId,
    index_id: view.task.indexId,
    asset_id: view.task.assetId ?? '',
    task_id: view.task.id,
    status: view.status,
    failure: task.failure ?? null,
    system_metadata: task.system_metadata ?? null,
    user_metadata: toMetadataValues(view.userMetadata),
    hls: task.hls ?? null,
    created_at: toTimestamp(view.task.createdAt),
    updated_at: toTimestamp(view.task.updatedAt),
    indexed_at: view.status === 'ready' ? toTimestamp(view.task.updatedAt) : null,
  };
}

export function assetHandlers(assets: AssetService, indexed: IndexedAssetService, clock: Clock, onCreated: () => void): AssetHandlers {
  return {
    async CreateAsset(request, ctx) {
      const input = parseInput(createSchema, request);
      const idempotencyKey = parseInput(idempotency, request.idempotency_key) || null;
      const userMetadata = plainMetadataValues('user_metadata', request.user_metadata ?? {}, { allowNull: false });
      const asset = await assets.create(
        requireOrg(ctx),
        input.method === 'url'
          ? { method: 'url', url: input.url, filename: input.filename, idempotencyKey, userMetadata }
          : { method: 'direct', blobKey: input.blob_key, filename: input.filename, idempotencyKey, userMetadata },
      );
      onCreated();
      return toProtoAsset(asset);
    },
    async GetAsset(request, ctx) {
      return toProtoAsset(await assets.get(requireOrg(ctx), assetId(request.asset_id)));
    },
    async ListAssets(request, ctx) {
      const input = parseInput(listSchema, request);
      const { paging } = sortAndPaging(input.page);
      const result = await assets.list(
        requireOrg(ctx),
        {
          ids: input.asset_ids.length ? input.asset_ids : undefined,
          types: input.asset_types.length ? input.asset_types : undefined,
          filename: request.filename || undefined,
        },
        paging,
      );
      return { data: result.data.map(toProtoAsset), page_info: result.pageInfo };
    },
    async DeleteAsset(request, ctx) {
      await indexed.deleteAsset(requireOrg(ctx), assetId(request.asset_id), request.force === true);
      return {};
    },
    async SetAssetUserMetadata(request, ctx) {
      const mode = parseInput(z.enum(METADATA_CHANGE_MODES), request.mode);
      const values = plainMetadataValues('user_metadata', request.user_metadata, { allowNull: true });
      return toProtoAsset(await assets.setUserMetadata(requireOrg(ctx), assetId(request.asset_id), values, mode));
    },
    async ListIndexedAssetsByAsset(request, ctx) {
      const { paging } = sortAndPaging(parseInput(pageRequestSchema, request.page));
      const result = await indexed.listByAsset(requireOrg(ctx), assetId(request.asset_id), paging);
      const now = clock.now();
      return { data: result.data.map((v) => toProtoIndexedAsset(v, now)), page_info: result.pageInfo };
    },

    async CreateMultipartUpload(request, ctx) {
      const input = parseInput(uploadSchema, request);
      const created = await assets.createUpload(requireOrg(ctx), {
        filename: input.filename,
        type: input.type,
        totalSize: input.total_size,
        idempotencyKey: parseInput(idempotency, request.idempotency_key) || null,
      });
      return toProtoUpload(created.upload);
    },
    async GetMultipartUpload(request, ctx) {
      const upload = await assets.getUpload(requireOrg(ctx), uploadId(request.upload_id));
      const { paging } = sortAndPaging(parseInput(pageRequestSchema, request.page));
      const chunks = await assets.chunks(upload, paging);
      return {
        ...toProtoUpload(upload),
        chunks: chunks.data.map(toProtoChunk),
        chunks_page_info: chunks.pageInfo,
        chunks_completed: chunks.totals.completed,
        chunks_stored: chunks.totals.stored,
        uploaded_size: chunks.totals.completedBytes,
      };
    },
    async ListMultipartUploads(request, ctx) {
      const { paging } = sortAndPaging(parseInput(pageRequestSchema, request.page));
      const result = await assets.listUploads(requireOrg(ctx), paging);
      return { data: result.data.map(toProtoUpload), page_info: result.pageInfo };
    },
    async RecordUploadChunk(request, ctx) {
      const input = parseInput(chunkSchema, request);
      const chunk = await assets.recordChunk(requireOrg(ctx), uploadId(request.upload_id), {
        index: input.index,
        size: input.size,
        etag: input.etag,
        blobKey: input.blob_key,
      });
      return toProtoChunk(chunk);
    },
    async ReportUploadChunks(request, ctx) {
      const input = parseInput(reportSchema, request);
      const result = await assets.reportChunks(
        requireOrg(ctx),
        uploadId(request.upload_id),
        input.chunks.map((c) => ({ index: c.index, proof: c.proof, proofType: c.proof_type })),
      );
      if (result.complete) onCreated();
      return {
        asset_id: result.assetId,
        processed_chunks: result.processed,
        duplicate_chunks: result.duplicates,
        total_completed: result.totalCompleted,
        upload_complete: result.complete,
      };
    },

    async CreateIndexedAsset(request, ctx) {
      const view = await indexed.create(requireOrg(ctx), {
        indexId: request.index_id,
        assetId: assetId(request.asset_id),
        enableVideoStream: request.enable_video_stream,
        userMetadata: plainMetadataValues('user_metadata', request.user_metadata, { allowNull: false }),
        idempotencyKey: parseInput(idempotency, request.idempotency_key) || null,
      });
      return toProtoIndexedAsset(view, clock.now());
    },
    async GetIndexedAsset(request, ctx) {
      const view = await indexed.get(requireOrg(ctx), request.index_id, request.indexed_asset_id);
      return toProtoIndexedAsset(view, clock.now());
    },
    async ListIndexedAssets(request, ctx) {
      const input = parseInput(indexedListSchema, request);
      const { sort, paging } = sortAndPaging(input.page);
      const filter = request.filter;
      const result = await indexed.list(
        requireOrg(ctx),
        request.index_id,
        {
          statuses: input.statuses,
          filename: filter?.filename || undefined,
          duration: fromNumberRange(filter?.duration),
          fps: fromNumberRange(filter?.fps),
          width: fromNumberRange(filter?.width),
          height: fromNumberRange(filter?.height),
          size: fromNumberRange(filter?.size),
          createdAt: fromTimeRange(filter?.created_at),
          updatedAt: fromTimeRange(filter?.updated_at),
        },
        sort,
        paging,
      );
      const now = clock.now();
      return { data: result.data.map((v) => toProtoIndexedAsset(v, now)), page_info: result.pageInfo };
    },
    async UpdateIndexedAsset(request, ctx) {
      await indexed.update(
        requireOrg(ctx),
        request.index_id,
        request.indexed_asset_id,
        plainMetadataValues('user_metadata', request.user_metadata, { allowNull: true }),
      );
      return {};
    },
    async DeleteIndexedAsset(request, ctx) {
      await indexed.delete(requireOrg(ctx), request.index_id, request.indexed_asset_id);
      return {};
    },
  };
}
