import { fromMetadataValues, fromTimestamp } from '@vus/grpc';
import type { Asset } from '@vus/grpc/types/task/v1/Asset';
import type { IndexedAsset } from '@vus/grpc/types/task/v1/IndexedAsset';
import type { MultipartUpload } from '@vus/grpc/types/task/v1/MultipartUpload';
import { presentHls, systemMetadata, type HlsUrlOf } from './videos';

const iso = (ts: Asset['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/**
 * An asset (API-CONTRACT §5.9; the 1.x SDK's Asset/AssetDetail): `_id`, `method`, `status`,
 * `filename`, `file_type` (the MIME type sniffed from the content), `created_at`; once processed
 * its `size`, `duration` and the video's size; a failed one its `error`. Never its blob key.
 */
export function presentAsset(asset: Asset): Record<string, unknown> {
  const processed = asset.asset_type !== '';
  return {
    _id: asset.id,
    method: asset.method,
    status: asset.status,
    filename: asset.filename,
    file_type: asset.file_type || null,
    created_at: iso(asset.created_at),
    updated_at: iso(asset.updated_at),
    ...(asset.method === 'url' && asset.url ? { source: { type: 'url', details: { url: asset.url } } } : {}),
    ...(processed
      ? {
          asset_type: asset.asset_type,
          size: Number(asset.size),
          ...(asset.duration > 0 ? { duration: asset.duration } : {}),
          ...(asset.width > 0
            ? { technical_metadata: { width: asset.width, height: asset.height, ...(asset.fps > 0 ? { fps: asset.fps } : {}) } }
            : {}),
        }
      : {}),
    ...(asset.failure ? { error: { code: asset.failure.code, message: asset.failure.message } } : {}),
    // Absent when none is set, as the reference documents.
    ...(asset.has_user_metadata ? { user_metadata: fromMetadataValues(asset.user_metadata) } : {}),
  };
}

/** An indexed asset: the v1.3 video (system and user metadata, hls) plus its indexing `status`. */
export function presentIndexedAsset(item: IndexedAsset, hlsUrl?: HlsUrlOf): Record<string, unknown> {
  const plain = fromMetadataValues(item.user_metadata);
  const userMetadata = Object.fromEntries(Object.entries(plain).filter((entry) => entry[1] != null));
  return {
    _id: item.id,
    asset_id: item.asset_id,
    status: item.status,
    created_at: iso(item.created_at),
    updated_at: iso(item.updated_at),
    ...(item.indexed_at ? { indexed_at: iso(item.indexed_at) } : {}),
    system_metadata: systemMetadata(item),
    ...(Object.keys(userMetadata).length ? { user_metadata: userMetadata } : {}),
    ...(item.hls ? { hls: presentHls(item.hls, hlsUrl) } : {}),
    ...(item.failure ? { error: { code: item.failure.code, message: item.failure.message } } : {}),
  };
}

/** A multipart upload as the 1.x SDK's IncompleteUploadSummary shows it. */
export function presentUploadSummary(upload: MultipartUpload): Record<string, unknown> {
  return {
    upload_id: upload.id,
    asset_id: upload.asset_id,
    status: upload.status,
    total_size: Number(upload.total_size),
    chunk_size: Number(upload.chunk_size),
    total_chunks: upload.total_chunks,
    created_at: iso(upload.created_at),
    expires_at: iso(upload.expires_at),
  };
}

/** GET /assets/multipart-uploads/{id}: the upload and a page of its chunks (GetUploadStatusResponse). */
export function presentUploadStatus(upload: MultipartUpload): Record<string, unknown> {
  return {
    upload_id: upload.id,
    asset_id: upload.asset_id,
    status: upload.status,
    uploaded_chunks: upload.chunks.map((c) => ({
      index: c.index,
      // A chunk received but not reported yet is still pending for the client.
      status: c.status === 'completed' ? 'completed' : 'pending',
      uploaded_at: iso(c.uploaded_at),
      updated_at: iso(c.updated_at),
    })),
    chunks_completed: upload.chunks_completed,
    chunks_failed: 0,
    chunks_pending: upload.total_chunks - upload.chunks_completed,
    page_info: upload.chunks_page_info,
    total_size: Number(upload.total_size),
    uploaded_size: Number(upload.uploaded_size),
    created_at: iso(upload.created_at),
    updated_at: iso(upload.updated_at),
  };
}
