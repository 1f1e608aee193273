/**
 * @vus/blob: the BlobStore port (streamed put with a byte limit, get as a stream, stat, download to a
 * local file, delete, deletePrefix, list) and its filesystem implementation (atomic temp file + rename,
 * validated keys). S3-compatible storage is not built: selecting it is a ConfigError.
 *
 * ```ts
 * const blobs = await openBlobStore({ kind: 'fs', root: config.BLOB_DIR ?? join(dataDir, 'blobs') });
 * await blobs.put(`uploads/${taskId}/video`, request, { maxBytes: 2 * 1024 ** 3 }); // 413 past 2 GB
 * await blobs.download(`uploads/${taskId}/video`, workFile);
 * ```
 */
export type { BlobStore, BlobInfo, PutOptions, ByteRange } from './store';
export { FileBlobStore } from './fs-store';
export { isValidBlobKey, assertValidBlobKey, MAX_KEY_LENGTH } from './keys';
export { openBlobStore, blobEnvShape, type BlobStoreConfig } from './config';
export { EMBED_MEDIA_FOLDER, embedMediaKey, isEmbedMediaKey } from './embed-media-keys';
export { videoBlobPrefix, videoStreamFolder, videoOfStreamFolder, deletedVideoBlobs, type DeletedVideoBlobs } from './video-keys';
