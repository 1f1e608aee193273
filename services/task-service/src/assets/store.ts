/*
 * Over ~400 lines on purpose: one store for the three tables of an asset's life (assets,
 * multipart_uploads, multipart_upload_chunks) because they change together in single transactions:
 * insertUpload inserts the asset with its upload (insertAsset), delete removes an unfinished upload's
 * chunks with the asset, finishUpload completes the upload and the asset at once. Split by table
 * family only with a shared transaction helper, not by cutting those statements apart.
 */
import { isUniqueViolation, Where, type Database, type Queryable } from '@vus/db';
import { enqueueJob } from '@vus/jobs';
import type { AssetFilter, AssetMedia, AssetRecord, AssetStore, ChunkRecord, UploadRecord } from './assets';
import type { AssetType } from './sniff';
import type { AssetUserMetadata } from './user-metadata';
import { INTO_A_KNOWLEDGE_STORE } from '../tasks/store';

/** The job that fetches (a URL), sniffs and probes an asset's file (processor.ts). */
export const PROCESS_ASSET_JOB = 'process-asset';

interface AssetRow {
  id: string;
  org_id: string;
  method: AssetRecord['method'];
  status: AssetRecord['status'];
  filename: string;
  file_type: AssetType | null;
  mime_type: string | null;
  source_url: string | null;
  blob_key: string | null;
  size: string | null;
  duration: number | null;
  width: number | null;
  height: number | null;
  fps: number | null;
  failure_code: string | null;
  failure_message: string | null;
  idempotency_key: string | null;
  user_metadata: AssetUserMetadata | null;
  created_at: Date;
  updated_at: Date;
  [column: string]: unknown;
}

interface UploadRow {
  id: string;
  org_id: string;
  asset_id: string;
  status: UploadRecord['status'];
  total_size: string;
  chunk_size: string;
  total_chunks: number;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  [column: string]: unknown;
}

interface ChunkRow {
  chunk_index: number;
  status: ChunkRecord['status'];
  size: string;
  etag: string;
  blob_key: string;
  uploaded_at: Date;
  updated_at: Date;
  [column: string]: unknown;
}

function toAsset(row: AssetRow): AssetRecord {
  const media: AssetMedia | null =
    row.file_type && row.mime_type
      ? {
          assetType: row.file_type,
          mime: row.mime_type,
          size: Number(row.size ?? 0),
          duration: row.duration,
          width: row.width,
          height: row.height,
          fps: row.fps,
        }
      : null;
  return {
    id: row.id,
    orgId: row.org_id,
    method: row.method,
    status: row.status,
    filename: row.filename,
    media,
    sourceUrl: row.source_url,
    blobKey: row.blob_key,
    failure: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? '' } : null,
    idempotencyKey: row.idempotency_key,
    userMetadata: row.user_metadata ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const toUpload = (row: UploadRow): UploadRecord => ({
  id: row.id,
  orgId: row.org_id,
  assetId: row.asset_id,
  status: row.status,
  totalSize: Number(row.total_size),
  chunkSize: Number(row.chunk_size),
  totalChunks: row.total_chunks,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toChunk = (row: ChunkRow): ChunkRecord => ({
  index: row.chunk_index,
  status: row.status,
  size: Number(row.size),
  etag: row.etag,
  blobKey: row.blob_key,
  uploadedAt: row.uploaded_at,
  updatedAt: row.updated_at,
});

/** An asset gets its processing job once its file or URL is there (a multipart one when its chunks are joined). */
const queueProcessing = (tx: Queryable, asset: Pick<AssetRecord, 'id' | 'orgId'>, at: Date) =>
  enqueueJob(tx, { kind: PROCESS_ASSET_JOB, subjectId: asset.id, orgId: asset.orgId, runAt: at });

/** Thrown inside the transaction to roll back an upload over its organization's cap. */
class OverOpenUploadsCap extends Error {}

/** Open uploads: active and not expired (one past its time counts no more, even before the sweep marks it). */
const countOpenUploads = async (tx: Queryable, orgId: string, now: Date) =>
  (
    await tx.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM multipart_uploads WHERE org_id = $1 AND status = 'active' AND expires_at > $2",
      [orgId, now],
    )
  ).rows[0]?.n ?? 0;

type Inserted = { asset: AssetRecord; upload: UploadRecord | undefined };
/**
 * The asset, and either its multipart upload (within the organization's cap of open uploads) or its
 * processing job, in one transaction; a replayed idempotency key returns the earlier asset and upload.
 */
function insertAsset(db: Database, asset: AssetRecord): Promise<Inserted>;
function insertAsset(
  db: Database,
  asset: AssetRecord,
  multipart: { upload: UploadRecord; maxOpen: number },
): Promise<Inserted | 'too_many_open'>;
async function insertAsset(
  db: Database,
  asset: AssetRecord,
  multipart?: { upload: UploadRecord; maxOpen: number },
): Promise<Inserted | 'too_many_open'> {
  try {
    return await db.withTx(async (tx) => {
      // One organization's creates one at a time, so that the count below cannot be raced past.
      if (multipart) await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`vus.multipart-uploads.${asset.orgId}`]);
      await tx.query(
        `INSERT INTO assets (id, org_id, method, status, filename, source_url, blob_key, idempotency_key, created_at, updated_at, user_metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          asset.id,
          asset.orgId,
          asset.method,
          asset.status,
          asset.filename,
          asset.sourceUrl,
          asset.blobKey,
          asset.idempotencyKey,
          asset.createdAt,
          asset.updatedAt,
          asset.userMetadata ? JSON.stringify(asset.userMetadata) : null,
        ],
      );
      if (!multipart) {
        await queueProcessing(tx, asset, asset.createdAt);
        return { asset, upload: undefined };
      }
      const { upload, maxOpen } = multipart;
      await tx.query(
        `INSERT INTO multipart_uploads (id, org_id, asset_id, status, total_size, chunk_size, total_chunks, expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          upload.id,
          upload.orgId,
          upload.assetId,
          upload.status,
          upload.totalSize,
          upload.chunkSize,
          upload.totalChunks,
          upload.expiresAt,
          upload.createdAt,
          upload.updatedAt,
        ],
      );
      // Counted after the insert: a replayed key never gets here (the asset's insert conflicts first).
      if ((await countOpenUploads(tx, asset.orgId, upload.createdAt)) > maxOpen) throw new OverOpenUploadsCap();
      return { asset, upload };
    });
  } catch (error) {
    if (error instanceof OverOpenUploadsCap) return 'too_many_open';
    if (!isUniqueViolation(error, 'assets_idempotency') || asset.idempotencyKey === null) throw error;
    const { rows } = await db.query<AssetRow>('SELECT * FROM assets WHERE org_id = $1 AND idempotency_key = $2', [
      asset.orgId,
      asset.idempotencyKey,
    ]);
    if (!rows[0]) throw error;
    const earlier = await db.query<UploadRow>('SELECT * FROM multipart_uploads WHERE asset_id = $1', [rows[0].id]);
    return { asset: toAsset(rows[0]), upload: earlier.rows[0] && toUpload(earlier.rows[0]) };
  }
}

/** Assets, multipart uploads and their chunks on SQL. */
export function createAssetStore(db: Database): AssetStore & AssetProcessingStore {
  return {
    insert: (asset) => insertAsset(db, asset),

    insertUpload: (asset, upload, maxOpen) => insertAsset(db, asset, { upload, maxOpen }),

    async get(orgId, id) {
      const { rows } = await db.query<AssetRow>('SELECT * FROM assets WHERE org_id = $1 AND id = $2', [orgId, id]);
      return rows[0] && toAsset(rows[0]);
    },

    async list(orgId, filter: AssetFilter, limit, offset) {
      const where = new Where().add((p) => `org_id = ${p}`, orgId);
      if (filter.ids?.length) where.add((p) => `id = ANY(${p}::text[])`, filter.ids);
      if (filter.types?.length) where.add((p) => `file_type = ANY(${p}::text[])`, filter.types);
      if (filter.filename) where.add((p) => `strpos(lower(filename), lower(${p})) > 0`, filter.filename);
      const page = await db.query<AssetRow>(
        `SELECT * FROM assets WHERE ${where.sql} ORDER BY created_at DESC, id DESC
         LIMIT $${where.params.length + 1} OFFSET $${where.params.length + 2}`,
        [...where.params, limit, offset],
      );
      const count = await db.query<{ total: string }>(`SELECT count(*) AS total FROM assets WHERE ${where.sql}`, where.params);
      return { rows: page.rows.map(toAsset), total: Number(count.rows[0]?.total ?? 0) };
    },

    async delete(orgId, id, force) {
      return db.withTx(async (tx) => {
        const { rows } = await tx.query<AssetRow>('SELECT * FROM assets WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
        const row = rows[0];
        if (!row) return undefined;
        // Knowledge stores' tasks are not indexed assets (their items go with the asset: cascade), but read its file too.
        const tasks = await tx.query<{ total: number; indexed_assets: number }>(
          `SELECT count(*)::int AS total, (count(*) FILTER (WHERE NOT ${INTO_A_KNOWLEDGE_STORE}))::int AS indexed_assets
           FROM tasks t WHERE t.org_id = $1 AND t.asset_id = $2`,
          [orgId, id],
        );
        const references = tasks.rows[0]?.indexed_assets ?? 0;
        if (references > 0 && !force) return { referencedBy: references };
        // An unfinished multipart upload's chunks: nothing will join them now (its rows go with the asset).
        const chunks = await tx.query<{ blob_key: string }>(
          'DELETE FROM multipart_upload_chunks WHERE upload_id IN (SELECT id FROM multipart_uploads WHERE asset_id = $1) RETURNING blob_key',
          [id],
        );
        await tx.query('DELETE FROM assets WHERE id = $1', [id]);
        await tx.query('DELETE FROM jobs WHERE kind = $1 AND subject_id = $2', [PROCESS_ASSET_JOB, id]);
        // Videos indexed from it (and indexing tasks) still read its file: it goes with the last of them.
        // Entity links go with the row (entity_assets cascades), as the reference's force documents.
        return { deleted: toAsset(row), blobInUse: (tasks.rows[0]?.total ?? 0) > 0, chunkKeys: chunks.rows.map((r) => r.blob_key) };
      });
    },

    async unlinkTasks(orgId, assetId, taskIds) {
      await db.query('UPDATE tasks SET asset_id = NULL WHERE org_id = $1 AND asset_id = $2 AND id = ANY($3::text[])', [
        orgId,
        assetId,
        taskIds,
      ]);
    },

    async updateUserMetadata(orgId, id, change, now) {
      return db.withTx(async (tx) => {
        const { rows } = await tx.query<AssetRow>('SELECT * FROM assets WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
        const row = rows[0];
        if (!row) return undefined;
        const next = change(row.user_metadata ?? null);
        const updated = await tx.query<AssetRow>('UPDATE assets SET user_metadata = $2, updated_at = $3 WHERE id = $1 RETURNING *', [
          id,
          next === null ? null : JSON.stringify(next),
          now,
        ]);
        return updated.rows[0] && toAsset(updated.rows[0]);
      });
    },

    async getUpload(orgId, uploadId) {
      const { rows } = await db.query<UploadRow>('SELECT * FROM multipart_uploads WHERE org_id = $1 AND id = $2', [orgId, uploadId]);
      return rows[0] && toUpload(rows[0]);
    },

    async listActiveUploads(orgId, now, limit, offset) {
      const where = "org_id = $1 AND status = 'active' AND expires_at > $2";
      const page = await db.query<UploadRow>(
        `SELECT * FROM multipart_uploads WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [orgId, now, limit, offset],
      );
      const count = await db.query<{ total: string }>(`SELECT count(*) AS total FROM multipart_uploads WHERE ${where}`, [orgId, now]);
      return { rows: page.rows.map(toUpload), total: Number(count.rows[0]?.total ?? 0) };
    },

    async listChunks(uploadId, limit, offset) {
      const page = await db.query<ChunkRow>(
        'SELECT * FROM multipart_upload_chunks WHERE upload_id = $1 ORDER BY chunk_index LIMIT $2 OFFSET $3',
        [uploadId, limit, offset],
      );
      const count = await db.query<{ total: string }>('SELECT count(*) AS total FROM multipart_upload_chunks WHERE upload_id = $1', [
        uploadId,
      ]);
      return { rows: page.rows.map(toChunk), total: Number(count.rows[0]?.total ?? 0) };
    },

    async chunkTotals(uploadId) {
      const { rows } = await db.query<{ stored: number; completed: number; completed_bytes: string | null }>(
        `SELECT count(*) FILTER (WHERE status = 'stored')::int AS stored, count(*) FILTER (WHERE status = 'completed')::int AS completed,
                sum(size) FILTER (WHERE status = 'completed') AS completed_bytes
         FROM multipart_upload_chunks WHERE upload_id = $1`,
        [uploadId],
      );
      const row = rows[0];
      return { stored: row?.stored ?? 0, completed: row?.completed ?? 0, completedBytes: Number(row?.completed_bytes ?? 0) };
    },

    async recordChunk(uploadId, chunk) {
      return db.withTx(async (tx) => {
        const earlier = await tx.query<ChunkRow>(
          'SELECT * FROM multipart_upload_chunks WHERE upload_id = $1 AND chunk_index = $2 FOR UPDATE',
          [uploadId, chunk.index],
        );
        const before = earlier.rows[0];
        // A completed chunk is final: the client proved it; a late duplicate PUT changes nothing.
        if (before?.status === 'completed') return { chunk: toChunk(before), replacedBlobKey: null };
        await tx.query(
          `INSERT INTO multipart_upload_chunks (upload_id, chunk_index, status, size, etag, blob_key, uploaded_at, updated_at)
           VALUES ($1, $2, 'stored', $3, $4, $5, $6, $6)
           ON CONFLICT (upload_id, chunk_index) DO UPDATE
             SET size = EXCLUDED.size, etag = EXCLUDED.etag, blob_key = EXCLUDED.blob_key, uploaded_at = EXCLUDED.uploaded_at,
                 updated_at = EXCLUDED.updated_at`,
          [uploadId, chunk.index, chunk.size, chunk.etag, chunk.blobKey, chunk.uploadedAt],
        );
        await tx.query('UPDATE multipart_uploads SET updated_at = $2 WHERE id = $1', [uploadId, chunk.uploadedAt]);
        return { chunk, replacedBlobKey: before ? before.blob_key : null };
      });
    },

    async completeChunks(uploadId, chunks, now) {
      if (chunks.length === 0) return { processed: 0, duplicates: 0 };
      return db.withTx(async (tx) => {
        const indexes = chunks.map((c) => c.index);
        const etags = chunks.map((c) => c.etag);
        const duplicates = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM multipart_upload_chunks c
           JOIN unnest($2::int[], $3::text[]) AS r(idx, etag) ON c.chunk_index = r.idx AND c.etag = r.etag
           WHERE c.upload_id = $1 AND c.status = 'completed'`,
          [uploadId, indexes, etags],
        );
        const updated = await tx.query(
          `UPDATE multipart_upload_chunks c SET status = 'completed', updated_at = $4
           FROM unnest($2::int[], $3::text[]) AS r(idx, etag)
           WHERE c.upload_id = $1 AND c.chunk_index = r.idx AND c.etag = r.etag AND c.status = 'stored'`,
          [uploadId, indexes, etags, now],
        );
        if ((updated.rowCount ?? 0) > 0) await tx.query('UPDATE multipart_uploads SET updated_at = $2 WHERE id = $1', [uploadId, now]);
        return { processed: updated.rowCount ?? 0, duplicates: duplicates.rows[0]?.n ?? 0 };
      });
    },

    async allChunks(uploadId) {
      const { rows } = await db.query<ChunkRow>('SELECT * FROM multipart_upload_chunks WHERE upload_id = $1 ORDER BY chunk_index', [
        uploadId,
      ]);
      return rows.map(toChunk);
    },

    async finishUpload(upload, blobKey, now) {
      return db.withTx(async (tx) => {
        const done = await tx.query(
          "UPDATE multipart_uploads SET status = 'completed', updated_at = $2 WHERE id = $1 AND status = 'active'",
          [upload.id, now],
        );
        if (done.rowCount !== 1) return false;
        await tx.query('UPDATE assets SET blob_key = $2, size = $3, updated_at = $4 WHERE id = $1', [
          upload.assetId,
          blobKey,
          upload.totalSize,
          now,
        ]);
        await queueProcessing(tx, { id: upload.assetId, orgId: upload.orgId }, now);
        return true;
      });
    },

    async expireUploads(now, failure, limit) {
      return db.withTx(async (tx) => {
        const expired = await tx.query<{ id: string; asset_id: string }>(
          `UPDATE multipart_uploads SET status = 'expired', updated_at = $1
           WHERE id IN (SELECT id FROM multipart_uploads WHERE status = 'active' AND expires_at <= $1 ORDER BY expires_at LIMIT $2)
           RETURNING id, asset_id`,
          [now, limit],
        );
        if (expired.rows.length === 0) return { uploads: 0, chunkKeys: [] };
        await tx.query(
          `UPDATE assets SET status = 'failed', failure_code = $2, failure_message = $3, updated_at = $4
           WHERE id = ANY($1::text[]) AND status = 'processing'`,
          [expired.rows.map((r) => r.asset_id), failure.code, failure.message, now],
        );
        const chunks = await tx.query<{ blob_key: string }>(
          'DELETE FROM multipart_upload_chunks WHERE upload_id = ANY($1::text[]) RETURNING blob_key',
          [expired.rows.map((r) => r.id)],
        );
        return { uploads: expired.rows.length, chunkKeys: chunks.rows.map((r) => r.blob_key) };
      });
    },

    async load(id) {
      const { rows } = await db.query<AssetRow>('SELECT * FROM assets WHERE id = $1', [id]);
      return rows[0] && toAsset(rows[0]);
    },

    async fetched(id, blobKey, now) {
      await db.query("UPDATE assets SET blob_key = $2, updated_at = $3 WHERE id = $1 AND status = 'processing'", [id, blobKey, now]);
    },

    async finish(id, outcome, now) {
      if ('failure' in outcome) {
        await db.query(
          "UPDATE assets SET status = 'failed', failure_code = $2, failure_message = $3, updated_at = $4 WHERE id = $1 AND status = 'processing'",
          [id, outcome.failure.code, outcome.failure.message, now],
        );
        return;
      }
      const m = outcome.media;
      await db.query(
        `UPDATE assets SET status = 'ready', file_type = $2, mime_type = $3, size = $4, duration = $5, width = $6, height = $7, fps = $8,
                           updated_at = $9
         WHERE id = $1 AND status = 'processing'`,
        [id, m.assetType, m.mime, m.size, m.duration, m.width, m.height, m.fps, now],
      );
    },

    isAssetFile: (keys) => assetFilesAmong(db, keys),
  };
}

/** Which of `keys` are assets' files: an asset owns its file, and a video indexed from it never removes it. */
export async function assetFilesAmong(q: Queryable, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await q.query<{ blob_key: string }>('SELECT blob_key FROM assets WHERE blob_key = ANY($1::text[])', [keys]);
  return new Set(rows.map((r) => r.blob_key));
}

/** What the processing job needs from storage. */
export interface AssetProcessingStore {
  load(id: string): Promise<AssetRecord | undefined>;
  /** The URL's copy is stored. */
  fetched(id: string, blobKey: string, now: Date): Promise<void>;
  finish(id: string, outcome: { media: AssetMedia } | { failure: { code: string; message: string } }, now: Date): Promise<void>;
  /** Which of `keys` are assets' files (never removed with a video indexed from one). */
  isAssetFile(keys: readonly string[]): Promise<Set<string>>;
}
