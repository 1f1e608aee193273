import { ApiError, knownId, newId, parseInput } from '@vus/core';
import { fromTimestamp, toMetadataValues } from '@vus/grpc';
import type { IndexedAsset } from '@vus/grpc/types/task/v1/IndexedAsset';
import type { MultipartUpload } from '@vus/grpc/types/task/v1/MultipartUpload';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { hidingInternalIndexes } from '../http/internal-indexes';
import { parsePageQuery } from '../http/paging';
import { readQuery } from '../http/query';
import { CHUNK_PATH, publicOrigin } from '../http/signed-urls';
import { receiveMultipart } from '../http/upload';
import { streamUrls } from '../http/media-urls';
import { presentAsset, presentIndexedAsset, presentUploadStatus, presentUploadSummary } from '../presenters/assets';
import { presentTranscription, transcriptionSource } from '../presenters/asset-transcription';
import {
  ASSET_FILE_FIELDS,
  assetUserMetadataSchema,
  deleteAssetQuerySchema,
  parseTranscriptionInclude,
  createUploadSchema,
  moreUrlsSchema,
  parseCreateAsset,
  parseCreateIndexedAsset,
  parseListAssets,
  parseListIndexedAssets,
  reportChunksSchema,
  updateIndexedAssetSchema,
} from './assets.schema';
import { configured, type RouteDeps } from './deps';
import * as docs from './assets.docs';

/** POST /assets arrives as multipart with a file: the body is streamed here, not by parseBody. */
const isUpload = (req: Request): boolean => req.is('multipart/form-data') === 'multipart/form-data';

const assetIdParam = (raw: string | string[] | undefined) => knownId('Asset', raw);
const uploadIdParam = (raw: string | string[] | undefined) => knownId('Upload', raw);
const indexIdParam = (raw: string | string[] | undefined) => knownId('Index', raw);
const indexedAssetIdParam = (raw: string | string[] | undefined) => knownId('Indexed asset', raw);

/**
 * Assets and indexed assets (v1.3, API-CONTRACT §5.9): direct, URL and multipart uploads, list,
 * retrieve, delete; indexing an asset into an index (an indexing task, as POST /tasks makes) and
 * the indexed assets of an index. task-service owns them; this is HTTP only.
 */
export function assetEndpoints({
  clients,
  timeoutMs,
  blobs,
  uploadLimits,
  thumbnails,
}: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'blobs' | 'uploadLimits' | 'thumbnails'>): Endpoint[] {
  const task = () => configured(clients.task, 'assets');
  // Uploads and chunks stream to `blobs` (absent: only URL assets work); indexed assets' video streams are signed.
  const streams = { ...thumbnails, signer: thumbnails.signer.hls };
  /** An indexed asset with its signed stream URLs, and a page of them, as every indexed-asset listing answers. */
  const indexedAsset = (req: Request, item: IndexedAsset, urls = streamUrls(req, streams)) =>
    presentIndexedAsset(item, urls(item.system_metadata?.duration ?? 0));
  const indexedAssetPage = (req: Request, page: { data: IndexedAsset[]; page_info: unknown }) => {
    const urls = streamUrls(req, streams);
    return { data: page.data.map((item) => indexedAsset(req, item, urls)), page_info: page.page_info };
  };

  /** Signed PUT URLs of chunks `indexes` of an upload, valid until the upload expires. */
  const chunkUrls = (req: Request, orgId: string, upload: MultipartUpload, indexes: number[]) => {
    const origin = publicOrigin(req, thumbnails.publicUrl);
    const expiresAt = fromTimestamp(upload.expires_at) ?? new Date(thumbnails.clock.now().getTime() + 3_600_000);
    return indexes.map((index) => ({
      chunk_index: index,
      // The chunk size bounds every chunk here; task-service checks each one's exact size when it is recorded.
      url: `${origin}${thumbnails.signer.chunks.sign({ orgId, uploadId: upload.id, index, maxBytes: Number(upload.chunk_size) }, expiresAt)}`,
      expires_at: expiresAt.toISOString(),
    }));
  };
  const firstChunks = (upload: MultipartUpload, start: number, count: number) =>
    Array.from({ length: Math.max(0, Math.min(upload.total_chunks, start + count - 1) - start + 1) }, (_, i) => start + i);

  return hidingInternalIndexes(clients.index, timeoutMs, [
    {
      method: 'post',
      path: '/assets',
      rate: 'upload',
      body: { streamedWhen: isUpload },
      availability: 'POST /assets',
      doc: docs.createAsset,
      handle: async (req, res) => {
        const upload = isUpload(req)
          ? await receiveMultipart(req, blobs, ASSET_FILE_FIELDS, uploadLimits)
          : { fields: req.body as unknown, files: [], discard: async () => undefined };
        try {
          const plan = parseCreateAsset(upload.fields, upload.files, req.get('idempotency-key'));
          const store = blobs;
          if (store) await Promise.all(plan.unused.map((f) => store.delete(f.blobKey)));
          const asset = await task().createAsset(outgoing(res, timeoutMs), plan.request);
          res.status(201).json(presentAsset(asset));
        } catch (error) {
          await upload.discard();
          throw error;
        }
      },
    },
    {
      method: 'get',
      path: '/assets',
      availability: 'POST /assets',
      doc: docs.listAssets,
      handle: async (req, res) => {
        const query = readQuery(req.originalUrl);
        const { request, matchesNothing } = parseListAssets(query);
        if (matchesNothing) {
          const page = parsePageQuery(query);
          res.json({ data: [], page_info: { limit_per_page: page.pageLimit, page: page.page, total_page: 0, total_results: 0 } });
          return;
        }
        const result = await task().listAssets(outgoing(res, timeoutMs), request);
        res.json({ data: result.data.map(presentAsset), page_info: result.page_info });
      },
    },
    {
      method: 'post',
      path: '/assets/multipart-uploads',
      rate: 'upload',
      availability: 'POST /assets',
      doc: docs.startUpload,
      handle: async (req, res) => {
        const input = parseInput(createUploadSchema, req.body ?? {});
        const ctx = outgoing(res, timeoutMs);
        const upload = await task().createMultipartUpload(ctx, {
          filename: input.filename,
          type: input.type,
          total_size: input.total_size,
          idempotency_key: req.get('idempotency-key') ?? '',
        });
        res.status(201).json({
          upload_id: upload.id,
          asset_id: upload.asset_id,
          upload_urls: chunkUrls(req, ctx.orgId ?? '', upload, firstChunks(upload, 1, 100)),
          upload_headers: {},
          chunk_size: Number(upload.chunk_size),
          total_chunks: upload.total_chunks,
          expires_at: fromTimestamp(upload.expires_at)?.toISOString(),
        });
      },
    },
    {
      method: 'get',
      path: '/assets/multipart-uploads',
      availability: 'POST /assets',
      doc: docs.listUploads,
      handle: async (req, res) => {
        const page = parsePageQuery(readQuery(req.originalUrl));
        const result = await task().listMultipartUploads(outgoing(res, timeoutMs), page.page, page.pageLimit);
        res.json({ data: result.data.map(presentUploadSummary), page_info: result.page_info });
      },
    },
    {
      method: 'get',
      path: '/assets/multipart-uploads/:uploadId',
      availability: 'POST /assets',
      doc: docs.retrieveUpload,
      handle: async (req, res) => {
        const page = parsePageQuery(readQuery(req.originalUrl));
        const upload = await task().getMultipartUpload(outgoing(res, timeoutMs), {
          upload_id: uploadIdParam(req.params.uploadId),
          page: { page: page.page, page_limit: page.pageLimit },
        });
        res.json(presentUploadStatus(upload));
      },
    },
    // Reporting chunks is idempotent (a chunk reported twice counts as a duplicate), so a replay is harmless.
    {
      method: 'post',
      path: '/assets/multipart-uploads/:uploadId',
      availability: 'POST /assets',
      doc: docs.reportChunks,
      handle: async (req, res) => {
        const input = parseInput(reportChunksSchema, req.body ?? {});
        const ctx = outgoing(res, timeoutMs);
        const result = await task().reportUploadChunks(ctx, {
          upload_id: uploadIdParam(req.params.uploadId),
          chunks: input.completed_chunks.map((c) => ({
            index: c.chunk_index,
            proof: c.proof,
            proof_type: c.proof_type,
            size: c.chunk_size ?? 0,
          })),
        });
        res.json({
          // Set once every chunk is in (the 1.x SDK stops uploading when it sees it): the asset's address.
          ...(result.upload_complete ? { url: `${publicOrigin(req, thumbnails.publicUrl)}${req.baseUrl}/assets/${result.asset_id}` } : {}),
          asset_id: result.asset_id,
          processed_chunks: result.processed_chunks,
          duplicate_chunks: result.duplicate_chunks,
          total_completed: result.total_completed,
        });
      },
    },
    {
      method: 'post',
      path: '/assets/multipart-uploads/:uploadId/presigned-urls',
      availability: 'POST /assets',
      doc: docs.moreUrls,
      handle: async (req, res) => {
        const input = parseInput(moreUrlsSchema, req.body ?? {});
        const ctx = outgoing(res, timeoutMs);
        const upload = await task().getMultipartUpload(ctx, {
          upload_id: uploadIdParam(req.params.uploadId),
          page: { page: 1, page_limit: 1 },
        });
        if (upload.status !== 'active') throw new ApiError('parameter_invalid', `The upload is ${upload.status}; it takes no more chunks.`);
        if (input.start > upload.total_chunks) {
          throw new ApiError('parameter_invalid', `The start parameter is invalid. Chunks are numbered 1 to ${upload.total_chunks}.`, {
            param: 'start',
          });
        }
        const indexes = firstChunks(upload, input.start, input.count);
        res.json({
          upload_id: upload.id,
          start_index: input.start,
          count: indexes.length,
          upload_urls: chunkUrls(req, ctx.orgId ?? '', upload, indexes),
          generated_at: thumbnails.clock.now().toISOString(),
          expires_at: fromTimestamp(upload.expires_at)?.toISOString(),
        });
      },
    },
    {
      method: 'get',
      path: '/assets/:assetId',
      availability: 'POST /assets',
      doc: docs.retrieveAsset,
      handle: async (req, res) => {
        const asset = await task().getAsset(outgoing(res, timeoutMs), assetIdParam(req.params.assetId));
        res.json(presentAsset(asset));
      },
    },
    {
      method: 'delete',
      path: '/assets/:assetId',
      availability: 'POST /assets',
      doc: docs.deleteAsset,
      handle: async (req, res) => {
        const query = parseInput(deleteAssetQuerySchema, req.query);
        await task().deleteAssetWith(outgoing(res, timeoutMs), assetIdParam(req.params.assetId), query.force === true);
        res.status(204).end();
      },
    },
    // User metadata (issue 32 §3): PUT replaces, PATCH merges, DELETE clears, as twelvelabs-js 1.3.4's reference says.
    ...(['put', 'patch'] as const).map((method): Endpoint => ({
      method,
      path: '/assets/:assetId/user-metadata',
      availability: 'POST /assets',
      doc: method === 'put' ? docs.replaceUserMetadata : docs.updateUserMetadata,
      handle: async (req, res) => {
        const input = parseInput(assetUserMetadataSchema, req.body ?? {});
        await task().setAssetUserMetadata(outgoing(res, timeoutMs), {
          asset_id: assetIdParam(req.params.assetId),
          mode: method === 'put' ? 'replace' : 'merge',
          user_metadata: toMetadataValues(input.user_metadata),
        });
        res.status(204).end();
      },
    })),
    {
      method: 'delete',
      path: '/assets/:assetId/user-metadata',
      availability: 'POST /assets',
      doc: docs.deleteUserMetadata,
      handle: async (req, res) => {
        await task().setAssetUserMetadata(outgoing(res, timeoutMs), { asset_id: assetIdParam(req.params.assetId), mode: 'clear' });
        res.status(204).end();
      },
    },
    {
      method: 'get',
      path: '/assets/:assetId/indexed-assets',
      availability: 'POST /assets',
      doc: docs.listIndexedAssetsByAsset,
      handle: async (req, res) => {
        const page = parsePageQuery(readQuery(req.originalUrl));
        const result = await task().listIndexedAssetsByAsset(outgoing(res, timeoutMs), {
          asset_id: assetIdParam(req.params.assetId),
          page: { page: page.page, page_limit: page.pageLimit },
        });
        res.json(indexedAssetPage(req, result));
      },
    },
    {
      method: 'get',
      path: '/assets/:assetId/transcription',
      availability: 'POST /assets',
      doc: docs.retrieveTranscription,
      handle: async (req, res) => {
        const include = parseTranscriptionInclude(readQuery(req.originalUrl));
        const id = assetIdParam(req.params.assetId);
        const ctx = outgoing(res, timeoutMs);
        const asset = await task().getAsset(ctx, id);
        const noTranscription = (why: string) => new ApiError('resource_not_exist', `The asset ${id} has no transcription: ${why}`, { id });
        if (asset.asset_type === 'image') throw noTranscription('it is an image.');
        // Only videos are indexed here (POST /indexes/{id}/indexed-assets), and speech is transcribed when indexing.
        if (asset.asset_type === 'audio')
          throw noTranscription('this server transcribes speech when a video is indexed, and audio assets are not indexed.');
        // The newest 50 indexed assets decide: a ready one among them gives the text.
        const indexed = await task().listIndexedAssetsByAsset(ctx, { asset_id: id, page: { page: 1, page_limit: 50 } });
        const source = transcriptionSource(indexed.data);
        if (source.status === 'none') {
          throw noTranscription('speech is transcribed when the asset is indexed (POST /indexes/{index_id}/indexed-assets).');
        }
        if (source.status === 'failed') {
          res.json({ status: 'failed', error: { message: source.message } });
          return;
        }
        if (source.status !== 'ready') {
          res.json({ status: source.status });
          return;
        }
        const { index_id, id: videoId } = source.indexedAsset;
        const artifacts = await clients.index.getVideoArtifacts(ctx, { index_id, video_id: videoId, kinds: ['transcription'] });
        res.json(presentTranscription(artifacts.transcription, include));
      },
    },
    // Indexing an asset makes an indexing task (task-service's pipeline); answered at once.
    {
      method: 'post',
      path: '/indexes/:indexId/indexed-assets',
      rate: 'index',
      availability: 'POST /indexes/{index_id}/indexed-assets',
      doc: docs.createIndexedAsset,
      handle: async (req, res) => {
        const request = parseCreateIndexedAsset(indexIdParam(req.params.indexId), req.body, req.get('idempotency-key'));
        const created = await task().createIndexedAsset(outgoing(res, timeoutMs), request);
        res.status(202).json({ _id: created.id });
      },
    },
    {
      method: 'get',
      path: '/indexes/:indexId/indexed-assets',
      availability: 'POST /indexes/{index_id}/indexed-assets',
      doc: docs.listIndexedAssets,
      handle: async (req, res) => {
        const request = parseListIndexedAssets(indexIdParam(req.params.indexId), readQuery(req.originalUrl));
        const result = await task().listIndexedAssets(outgoing(res, timeoutMs), request);
        res.json(indexedAssetPage(req, result));
      },
    },
    {
      method: 'get',
      path: '/indexes/:indexId/indexed-assets/:indexedAssetId',
      availability: 'POST /indexes/{index_id}/indexed-assets',
      doc: docs.retrieveIndexedAsset,
      handle: async (req, res) => {
        const item = await task().getIndexedAsset(
          outgoing(res, timeoutMs),
          indexIdParam(req.params.indexId),
          indexedAssetIdParam(req.params.indexedAssetId),
        );
        res.json(indexedAsset(req, item));
      },
    },
    {
      method: 'patch',
      path: '/indexes/:indexId/indexed-assets/:indexedAssetId',
      availability: 'POST /indexes/{index_id}/indexed-assets',
      doc: docs.updateIndexedAsset,
      handle: async (req, res) => {
        const input = parseInput(updateIndexedAssetSchema, req.body ?? {});
        await task().updateIndexedAsset(outgoing(res, timeoutMs), {
          index_id: indexIdParam(req.params.indexId),
          indexed_asset_id: indexedAssetIdParam(req.params.indexedAssetId),
          user_metadata: toMetadataValues(input.user_metadata),
        });
        res.status(204).end();
      },
    },
    {
      method: 'delete',
      path: '/indexes/:indexId/indexed-assets/:indexedAssetId',
      availability: 'POST /indexes/{index_id}/indexed-assets',
      doc: docs.deleteIndexedAsset,
      handle: async (req, res) => {
        await task().deleteIndexedAsset(
          outgoing(res, timeoutMs),
          indexIdParam(req.params.indexId),
          indexedAssetIdParam(req.params.indexedAssetId),
        );
        res.status(204).end();
      },
    },
  ]);
}

/** Counts and hashes (MD5, S3's ETag of a single part) the bytes passing through. */
function hashing() {
  const hash = createHash('md5');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  return { stream, etag: () => hash.digest('hex') };
}

/**
 * PUT of one chunk of a multipart upload, at the URL the upload handed out. No API key: the
 * signature in the URL is the permission (one chunk of one upload of one organization, until the
 * upload expires), as with S3's presigned URLs. The chunk is stored, task-service records it, and
 * the answer's ETag is the proof the client reports.
 */
export function assetChunkEndpoints({
  clients: { task: client },
  blobs,
  timeoutMs,
  thumbnails: { signer, clock },
}: Pick<RouteDeps, 'clients' | 'blobs' | 'timeoutMs' | 'thumbnails'>): Endpoint[] {
  return [
    {
      method: 'put',
      path: `${CHUNK_PATH}/:uploadId/:index`,
      handle: async (req, res) => {
        const query = req.query as Record<string, string | undefined>;
        const verified = signer.chunks.verify(
          {
            uploadId: String(req.params.uploadId),
            index: String(req.params.index),
            org: query.org,
            max: query.max,
            expires: query.expires,
            signature: query.signature,
          },
          clock.now(),
        );
        if (!verified.ok) {
          throw new ApiError(
            'api_not_allowed',
            verified.reason === 'expired' ? 'This chunk upload URL has expired. Ask for new URLs.' : 'This chunk upload URL is not valid.',
          );
        }
        if (!client || !blobs)
          throw new ApiError('service_unavailable', 'Multipart uploads are not available: this server has no blob store or task-service.');
        const { grant } = verified;
        const declared = Number(req.get('content-length') ?? NaN);
        if (Number.isFinite(declared) && declared > grant.maxBytes) {
          req.resume();
          throw new ApiError('payload_too_large', `Chunk ${grant.index} is larger than its ${grant.maxBytes} bytes.`);
        }
        const key = `multipart/${grant.uploadId}/chunk-${grant.index}-${newId()}`;
        const hashed = hashing();
        const info = await blobs.put(key, req.pipe(hashed.stream), { maxBytes: grant.maxBytes }).catch((error: unknown) => {
          req.resume();
          if (error instanceof ApiError && error.code === 'payload_too_large') {
            throw new ApiError('payload_too_large', `Chunk ${grant.index} is larger than its ${grant.maxBytes} bytes.`);
          }
          throw new ApiError('request_canceled_or_timed_out', `The upload of chunk ${grant.index} did not complete.`);
        });
        const etag = hashed.etag();
        await client.recordUploadChunk(
          { orgId: grant.orgId, requestId: undefined, deadline: new Date(Date.now() + timeoutMs) },
          { upload_id: grant.uploadId, index: grant.index, size: info.size, etag, blob_key: key },
        );
        res.set('ETag', `"${etag}"`).status(200).end();
      },
    },
  ];
}
