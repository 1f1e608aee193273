/*
 * ~400 lines on purpose: the asset domain is one operation family over one store (create, list,
 * delete, and the multipart upload's create/record/report/expire, which ends in the asset); the pure
 * chunk arithmetic (planChunks, expectedChunkSize, chunkProblem) is the part to move out first if it grows.
 */
import { ApiError, errors, isId, listPage, newId, type Clock, type PageInfo } from '@vus/core';
import { checkFetchableUrl } from '@vus/fetch';
import { filenameFromUrl } from '../tasks/tasks';
import type { AssetType } from './sniff';
import { changedMetadata, type AssetMetadataValue, type AssetUserMetadata, type MetadataChangeMode } from './user-metadata';

export type { AssetType } from './sniff';

/**
 * Assets (API-CONTRACT §5.9): media an organization uploads once (directly, by URL, or in chunks)
 * and indexes into any of its indexes later. The file is sniffed and probed before it is `ready`.
 */
export type AssetMethod = 'direct' | 'url' | 'multipart';
export type AssetStatus = 'processing' | 'ready' | 'failed';
export const ASSET_TYPES: readonly AssetType[] = ['video', 'audio', 'image'];

export interface AssetFailure {
  code: string;
  message: string;
}

/** What processing found in the file. */
export interface AssetMedia {
  assetType: AssetType;
  mime: string;
  size: number;
  duration: number | null;
  width: number | null;
  height: number | null;
  fps: number | null;
}

export interface AssetRecord {
  id: string;
  orgId: string;
  method: AssetMethod;
  status: AssetStatus;
  filename: string;
  /** Null until processed (and on a failed asset). */
  media: AssetMedia | null;
  sourceUrl: string | null;
  /** Null until the URL was fetched or the chunks were joined. */
  blobKey: string | null;
  failure: AssetFailure | null;
  idempotencyKey: string | null;
  /** Null (or absent) while none is set. */
  userMetadata?: AssetUserMetadata | null;
  createdAt: Date;
  updatedAt: Date;
}

export type UploadStatus = 'active' | 'completed' | 'failed' | 'expired';

export interface UploadRecord {
  id: string;
  orgId: string;
  assetId: string;
  status: UploadStatus;
  totalSize: number;
  chunkSize: number;
  totalChunks: number;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface ChunkRecord {
  index: number;
  status: 'stored' | 'completed';
  size: number;
  etag: string;
  blobKey: string;
  uploadedAt: Date;
  updatedAt: Date;
}

export interface AssetFilter {
  ids?: string[] | undefined;
  types?: AssetType[] | undefined;
  filename?: string | undefined;
}

/** What the asset API needs from storage: store.ts implements it on SQL. */
export interface AssetStore {
  /**
   * Inserts the asset and its processing job (it has its file or URL) in one transaction. With an
   * idempotency key already used in the organization, inserts nothing and returns the earlier asset.
   */
  insert(asset: AssetRecord): Promise<{ asset: AssetRecord; upload: UploadRecord | undefined }>;
  /**
   * Inserts a multipart upload and its asset in one transaction, unless the organization would then
   * hold more than `maxOpen` open uploads (active, not expired): then nothing, and 'too_many_open'.
   * Creates of one organization are serialized, so concurrent ones cannot overshoot. A replayed
   * idempotency key returns the earlier asset (and upload), as insert does.
   */
  insertUpload(
    asset: AssetRecord,
    upload: UploadRecord,
    maxOpen: number,
  ): Promise<{ asset: AssetRecord; upload: UploadRecord | undefined } | 'too_many_open'>;
  get(orgId: string, id: string): Promise<AssetRecord | undefined>;
  list(orgId: string, filter: AssetFilter, limit: number, offset: number): Promise<{ rows: AssetRecord[]; total: number }>;
  /**
   * Deletes the asset (and its multipart upload, and its entity links) unless indexed assets
   * (indexing tasks made from it, in any status) reference it and not `force`: then their count.
   * Undefined if absent. `chunkKeys`: the blobs of an unfinished upload's chunks, which nothing will join.
   */
  delete(
    orgId: string,
    id: string,
    force: boolean,
  ): Promise<{ deleted: AssetRecord; blobInUse: boolean; chunkKeys: string[] } | { referencedBy: number } | undefined>;
  /**
   * Unlinks indexing tasks from the asset (their videos were deleted through the videos API, which
   * took the indexed assets with them): they stay tasks, no longer indexed assets.
   */
  unlinkTasks(orgId: string, assetId: string, taskIds: string[]): Promise<void>;
  /** Changes the user metadata under the asset's row lock: `change` gets the current metadata. Undefined if absent. */
  updateUserMetadata(
    orgId: string,
    id: string,
    change: (current: AssetUserMetadata | null) => AssetUserMetadata | null,
    now: Date,
  ): Promise<AssetRecord | undefined>;

  getUpload(orgId: string, uploadId: string): Promise<UploadRecord | undefined>;
  listActiveUploads(orgId: string, now: Date, limit: number, offset: number): Promise<{ rows: UploadRecord[]; total: number }>;
  listChunks(uploadId: string, limit: number, offset: number): Promise<{ rows: ChunkRecord[]; total: number }>;
  chunkTotals(uploadId: string): Promise<{ stored: number; completed: number; completedBytes: number }>;
  /** Records (or replaces, while not completed) a received chunk; the chunk as stored, and the replaced blob key if any. */
  recordChunk(uploadId: string, chunk: ChunkRecord): Promise<{ chunk: ChunkRecord; replacedBlobKey: string | null }>;
  /** Marks chunks completed whose etag matches; returns how many changed and which were already completed. */
  completeChunks(
    uploadId: string,
    chunks: { index: number; etag: string }[],
    now: Date,
  ): Promise<{ processed: number; duplicates: number }>;
  allChunks(uploadId: string): Promise<ChunkRecord[]>;
  /** The upload is complete: the asset gets its file and its processing job. False if it was finished before. */
  finishUpload(upload: UploadRecord, blobKey: string, now: Date): Promise<boolean>;
  /**
   * Marks active uploads past their expiry `expired` and their assets `failed` with `failure`
   * (at most `limit`); returns the blob keys of their chunks, which nothing will join now.
   */
  expireUploads(now: Date, failure: AssetFailure, limit: number): Promise<{ uploads: number; chunkKeys: string[] }>;
}

/** Where an asset's file lives: assets own their files (videos indexed from them never delete them). */
export const assetBlobKey = (assetId: string) => `assets/${assetId}/file`;
/** Where the gateway stores a multipart upload's chunks until they are joined. */
export const chunkBlobPrefix = (uploadId: string) => `multipart/${uploadId}/`;

/** Multipart limits: 8 MiB chunks (the last one the rest), at most 10,000 chunks, files up to 4 GiB. */
export const MULTIPART_LIMITS = Object.freeze({
  chunkBytes: 8 * 1024 * 1024,
  maxChunks: 10_000,
  maxTotalBytes: 4 * 1024 ** 3,
  /** An upload's URLs and the upload itself expire this long after creation. */
  ttlMs: 24 * 3_600_000,
  /** Open (active, unexpired) uploads one organization may hold at once: each may reserve up to 4 GiB of chunks. */
  maxOpenUploads: 10,
});

/** The chunk size and count for a file of `totalSize` bytes. Pure. */
export function planChunks(
  totalSize: number,
  chunkBytes: number = MULTIPART_LIMITS.chunkBytes,
): { chunkSize: number; totalChunks: number } {
  if (!Number.isSafeInteger(totalSize) || totalSize <= 0) throw errors.invalid('total_size', 'It must be a positive number of bytes.');
  if (totalSize > MULTIPART_LIMITS.maxTotalBytes) {
    throw new ApiError('payload_too_large', `The file is larger than the limit of ${MULTIPART_LIMITS.maxTotalBytes} bytes.`, {
      param: 'total_size',
    });
  }
  const totalChunks = Math.ceil(totalSize / chunkBytes);
  if (totalChunks > MULTIPART_LIMITS.maxChunks) throw errors.invalid('total_size', `More than ${MULTIPART_LIMITS.maxChunks} chunks.`);
  return { chunkSize: chunkBytes, totalChunks };
}

/** The size chunk `index` (1-based) of an upload must have: the chunk size, the rest for the last. Pure. */
export function expectedChunkSize(upload: Pick<UploadRecord, 'totalSize' | 'chunkSize' | 'totalChunks'>, index: number): number {
  return index < upload.totalChunks ? upload.chunkSize : upload.totalSize - upload.chunkSize * (upload.totalChunks - 1);
}

/** Why a chunk cannot be accepted for an upload, or undefined. Pure. */
export function chunkProblem(upload: UploadRecord, index: number, size: number, now: Date): ApiError | undefined {
  if (upload.status !== 'active') return errors.invalid('upload_id', `The upload is ${upload.status}; it takes no more chunks.`);
  if (upload.expiresAt.getTime() <= now.getTime()) return errors.invalid('upload_id', 'The upload has expired; start a new one.');
  if (!Number.isInteger(index) || index < 1 || index > upload.totalChunks) {
    return errors.invalid('chunk_index', `Chunks are numbered 1 to ${upload.totalChunks}.`);
  }
  const expected = expectedChunkSize(upload, index);
  if (size > expected) return new ApiError('payload_too_large', `Chunk ${index} is larger than its ${expected} bytes.`, { param: 'chunk' });
  if (size !== expected) return errors.invalid('chunk', `Chunk ${index} must be ${expected} bytes; ${size} arrived.`);
  return undefined;
}

/** Removes blobs (a failed upload's file, a deleted asset's file, joined chunks). */
export interface AssetBlobs {
  delete(key: string): Promise<boolean>;
}

export interface AssetDeps {
  store: AssetStore;
  blobs?: AssetBlobs | undefined;
  /** The first bytes of a stored blob, for the quick check of a direct upload. */
  head?: ((key: string) => Promise<Uint8Array>) | undefined;
  /** Refuses what is surely not media (sniff.ts) before the asset is written; undefined when it may be. */
  quickCheck: (head: Uint8Array) => ApiError | undefined;
  /** Joins a completed upload's chunks into the asset's file; returns its size. */
  joinChunks?: ((chunks: ChunkRecord[], key: string) => Promise<number>) | undefined;
  clock: Clock;
  /** The chunk size of new multipart uploads (tests use small ones); default MULTIPART_LIMITS.chunkBytes. */
  chunkBytes?: number | undefined;
}

/** `userMetadata`: POST /assets's, checked as a replacing PUT would be. */
export type CreateAssetInput = (
  | { method: 'direct'; blobKey: string; filename: string; idempotencyKey: string | null }
  | { method: 'url'; url: string; filename: string; idempotencyKey: string | null }
) & { userMetadata?: Readonly<Record<string, AssetMetadataValue>> | undefined };

const MAX_FILENAME = 255;
const UPLOAD_EXPIRED: AssetFailure = {
  code: 'upload_expired',
  message: 'The multipart upload expired before all its chunks were reported. Upload the file again.',
};
const cleanName = (name: string, fallback: string) => name.trim().slice(0, MAX_FILENAME) || fallback;
/**
 * 429, as a concurrency cap is: a place frees when an upload completes or expires. Not
 * `too_many_requests`, whose message SPEC §7 reserves for the rate limits' sentence.
 */
const tooManyOpenUploads = (cap: number) =>
  new ApiError(
    'usage_limit_exceeded',
    `This organization already has ${cap} multipart uploads open, the most it may have at once. ` +
      'Complete one (report all its chunks) or wait until one expires (24 hours after it was created), then start this one.',
  );

export function createAssetService({ store, blobs, head, quickCheck, joinChunks, clock, chunkBytes }: AssetDeps) {
  const found = async (orgId: string, id: string): Promise<AssetRecord> => {
    const asset = isId(id) ? await store.get(orgId, id) : undefined;
    // Another organization's asset is indistinguishable from a missing one.
    if (!asset) throw errors.notFound('Asset', id);
    return asset;
  };
  const foundUpload = async (orgId: string, id: string): Promise<UploadRecord> => {
    const upload = isId(id) ? await store.getUpload(orgId, id) : undefined;
    if (!upload) throw errors.notFound('Upload', id);
    const now = clock.now();
    return upload.status === 'active' && upload.expiresAt <= now ? { ...upload, status: 'expired' } : upload;
  };
  const blank = (orgId: string, method: AssetMethod, now: Date): AssetRecord => ({
    id: newId(now),
    orgId,
    method,
    status: 'processing',
    filename: '',
    media: null,
    sourceUrl: null,
    blobKey: null,
    failure: null,
    idempotencyKey: null,
    createdAt: now,
    updatedAt: now,
  });

  return {
    /** Stores the asset `processing`; the processing job sniffs and probes it (and fetches a URL first). */
    async create(orgId: string, input: CreateAssetInput): Promise<AssetRecord> {
      const now = clock.now();
      const userMetadata = input.userMetadata ? changedMetadata(null, input.userMetadata, 'replace') : null;
      const asset = { ...blank(orgId, input.method, now), idempotencyKey: input.idempotencyKey, userMetadata };
      if (input.method === 'url') {
        const url = checkFetchableUrl('url', input.url).toString();
        Object.assign(asset, { sourceUrl: url, filename: cleanName(input.filename, filenameFromUrl(url)) });
      } else {
        if (head) {
          const refused = quickCheck(await head(input.blobKey));
          if (refused) {
            await blobs?.delete(input.blobKey).catch(() => false);
            throw refused;
          }
        }
        Object.assign(asset, { blobKey: input.blobKey, filename: cleanName(input.filename, 'file') });
      }
      const stored = await store.insert(asset);
      // A replayed upload (same idempotency key) keeps the first file; the second copy goes.
      if (input.method === 'direct' && stored.asset.blobKey !== input.blobKey) await blobs?.delete(input.blobKey).catch(() => false);
      return stored.asset;
    },

    get: found,

    async list(
      orgId: string,
      filter: AssetFilter,
      paging: { page?: number | undefined; pageLimit?: number | undefined },
    ): Promise<{ data: AssetRecord[]; pageInfo: PageInfo }> {
      return listPage(paging, (limit, offset) => store.list(orgId, filter, limit, offset));
    },

    /**
     * Refused (409 asset_in_use) while indexed assets reference the asset, unless `force`; the file
     * stays while indexed videos (or indexing tasks) use it, and they keep their videos.
     */
    async delete(orgId: string, id: string, force = false): Promise<void> {
      await found(orgId, id);
      const result = await store.delete(orgId, id, force);
      if (!result) throw errors.notFound('Asset', id);
      if ('referencedBy' in result) {
        throw new ApiError(
          'asset_in_use',
          `${result.referencedBy} indexed asset${result.referencedBy === 1 ? ' references' : 's reference'} the asset (GET /assets/${id}/indexed-assets lists them). Delete them first, or send force=true.`,
          { param: 'force' },
        );
      }
      if (result.deleted.blobKey && !result.blobInUse) await blobs?.delete(result.deleted.blobKey).catch(() => false);
      const remover = blobs;
      if (remover) await Promise.all(result.chunkKeys.map((key) => remover.delete(key).catch(() => false)));
    },

    /** The indexed assets `taskIds` of the asset are gone (their videos were deleted): they no longer reference it. */
    async forgetIndexedAssets(orgId: string, assetId: string, taskIds: string[]): Promise<void> {
      if (taskIds.length > 0) await store.unlinkTasks(orgId, assetId, taskIds);
    },

    /** Replaces, merges or clears the asset's user metadata (changedMetadata); the asset as now stored. */
    async setUserMetadata(
      orgId: string,
      id: string,
      input: Readonly<Record<string, AssetMetadataValue | null>>,
      mode: MetadataChangeMode,
    ): Promise<AssetRecord> {
      await found(orgId, id);
      const updated = await store.updateUserMetadata(orgId, id, (current) => changedMetadata(current, input, mode), clock.now());
      if (!updated) throw errors.notFound('Asset', id);
      return updated;
    },

    /** A multipart upload and its asset (`processing` until the chunks are in and processed). */
    async createUpload(
      orgId: string,
      input: { filename: string; type: AssetType; totalSize: number; idempotencyKey: string | null },
    ): Promise<{ asset: AssetRecord; upload: UploadRecord }> {
      const plan = planChunks(input.totalSize, chunkBytes);
      const now = clock.now();
      const asset = {
        ...blank(orgId, 'multipart', now),
        filename: cleanName(input.filename, 'file'),
        idempotencyKey: input.idempotencyKey,
      };
      const upload: UploadRecord = {
        id: newId(now),
        orgId,
        assetId: asset.id,
        status: 'active',
        totalSize: input.totalSize,
        ...plan,
        expiresAt: new Date(now.getTime() + MULTIPART_LIMITS.ttlMs),
        createdAt: now,
        updatedAt: now,
      };
      const stored = await store.insertUpload(asset, upload, MULTIPART_LIMITS.maxOpenUploads);
      if (stored === 'too_many_open') throw tooManyOpenUploads(MULTIPART_LIMITS.maxOpenUploads);
      if (!stored.upload) throw errors.invalid('idempotency_key', 'The key was used for an asset that is not a multipart upload.');
      return { asset: stored.asset, upload: stored.upload };
    },

    getUpload: foundUpload,

    async listUploads(orgId: string, paging: { page?: number | undefined; pageLimit?: number | undefined }) {
      return listPage(paging, (limit, offset) => store.listActiveUploads(orgId, clock.now(), limit, offset));
    },

    async chunks(upload: UploadRecord, paging: { page?: number | undefined; pageLimit?: number | undefined }) {
      const page = await listPage(paging, (limit, offset) => store.listChunks(upload.id, limit, offset));
      return { ...page, totals: await store.chunkTotals(upload.id) };
    },

    /** The gateway stored a chunk's bytes; a chunk sent again replaces the one not reported yet. */
    async recordChunk(orgId: string, uploadId: string, chunk: { index: number; size: number; etag: string; blobKey: string }) {
      const upload = await foundUpload(orgId, uploadId);
      const now = clock.now();
      const problem = chunkProblem(upload, chunk.index, chunk.size, now);
      if (problem || !chunk.blobKey.startsWith(chunkBlobPrefix(upload.id))) {
        await blobs?.delete(chunk.blobKey).catch(() => false);
        throw problem ?? errors.invalid('chunk', 'The chunk was stored in the wrong place.');
      }
      const result = await store.recordChunk(upload.id, { ...chunk, status: 'stored', uploadedAt: now, updatedAt: now });
      if (result.replacedBlobKey && result.replacedBlobKey !== chunk.blobKey)
        await blobs?.delete(result.replacedBlobKey).catch(() => false);
      return result.chunk;
    },

    /** Ends the uploads that expired before all their chunks came: their assets fail, their chunks go. */
    async expireUploads(): Promise<number> {
      const { uploads, chunkKeys } = await store.expireUploads(clock.now(), UPLOAD_EXPIRED, 100);
      const remover = blobs;
      if (remover) await Promise.all(chunkKeys.map((key) => remover.delete(key).catch(() => false)));
      return uploads;
    },

    /**
     * The client reports chunks with the ETag their PUT answered; each must match what arrived.
     * Once every chunk is completed the chunks are joined into the asset's file, which is then
     * processed like any upload. Reporting a chunk twice is harmless (SDK retries).
     */
    async reportChunks(orgId: string, uploadId: string, reported: { index: number; proof: string; proofType: string }[]) {
      let upload = await foundUpload(orgId, uploadId);
      if (upload.status === 'expired' || upload.status === 'failed') throw errors.invalid('upload_id', `The upload is ${upload.status}.`);
      for (const chunk of reported) {
        if (chunk.proofType !== 'etag') throw errors.invalid('proof_type', 'Only etag proofs are accepted.');
        if (!Number.isInteger(chunk.index) || chunk.index < 1 || chunk.index > upload.totalChunks) {
          throw errors.invalid('chunk_index', `Chunks are numbered 1 to ${upload.totalChunks}.`);
        }
      }
      const now = clock.now();
      const counts =
        upload.status === 'active'
          ? await store.completeChunks(
              upload.id,
              reported.map((c) => ({ index: c.index, etag: c.proof.replace(/"/g, '') })),
              now,
            )
          : { processed: 0, duplicates: reported.length };
      if (counts.processed + counts.duplicates < reported.length) {
        throw errors.invalid('completed_chunks', 'A reported chunk was not received, or its proof does not match what was received.');
      }
      const totals = await store.chunkTotals(upload.id);
      let complete = upload.status === 'completed';
      if (!complete && totals.completed === upload.totalChunks) {
        if (!joinChunks) throw new ApiError('service_unavailable', 'Multipart uploads need a blob store, and none is configured.');
        const chunks = await store.allChunks(upload.id);
        const key = assetBlobKey(upload.assetId);
        const size = await joinChunks(chunks, key);
        if (size !== upload.totalSize) throw errors.invalid('total_size', `The chunks add up to ${size} bytes, not ${upload.totalSize}.`);
        const remover = blobs;
        if ((await store.finishUpload(upload, key, clock.now())) && remover) {
          await Promise.all(chunks.map((c) => remover.delete(c.blobKey).catch(() => false)));
        }
        upload = { ...upload, status: 'completed' };
        complete = true;
      }
      return { assetId: upload.assetId, ...counts, totalCompleted: totals.completed, complete };
    },
  };
}

export type AssetService = ReturnType<typeof createAssetService>;
