import { embedMediaKey } from '@vus/blob';
import { ApiError, errors, isApiError, knownId, newId } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { EMBED_AUDIO_BYTES, EMBED_TASK_VIDEO_BYTES, QUERY_IMAGE_BYTES } from '../http/body';
import { embedCategories, embedV2Categories } from '../limits/categories';
import { keepStoredMedia } from '../http/media-json';
import { receiveMultipart } from '../http/upload';
import type { MediaSource__Input } from '@vus/grpc/types/embed/v1/MediaSource';
import type { Request, Response } from 'express';
import { clientGone, locals, outgoing } from '../http/context';
import { readQuery, list } from '../http/query';
import {
  presentEmbeddingV2,
  presentEmbedTask,
  presentEmbedTaskList,
  presentEmbedTaskSummary,
  presentEmbedTaskV2,
  presentLegacyEmbedding,
} from '../presenters/embed';
import type { EmbedShape, VersionAdapter } from '../versions/adapter';
import { configured, notConfigured, type RouteDeps } from './deps';
import * as docs from './embed.docs';
import { parseEmbedTask, parseEmbedV2, parseEmbedV2Task, parseLegacyEmbed, parseListEmbedTasks, type Fields } from './embed.schema';
import { versionOf } from './version';

function embedShape(version: VersionAdapter): EmbedShape {
  if (!version.embed) throw new ApiError('api_upgrade_required', `Embeddings are not part of API ${version.name}; use v1.2 or later.`);
  return version.embed;
}

/** A v1.2/v1.3 POST /embed/tasks with a multipart body: its video_file streams to the blob store in the route, after the rate check. */
const isUpload = (req: Request): boolean => req.is('multipart/form-data') === 'multipart/form-data';

/** POST /embed's files, kept as bytes: an image (5 MB, as embed-service accepts) or a short audio file. */
const LEGACY_EMBED_FILES = {
  binaryParts: new Map([
    ['image_file', QUERY_IMAGE_BYTES],
    ['audio_file', EMBED_AUDIO_BYTES],
  ]),
};

/** /embed-v2's error body is `{error: {code, message}}` (API-CONTRACT §2.5), whatever the version's usual form. */
function writeV2Error(res: Response, error: unknown): void {
  const apiError = isApiError(error) ? error : new ApiError('internal_error', 'An internal error occurred. Please try again later.');
  res
    .status(apiError.httpStatus)
    .json({ error: { code: apiError.code, message: apiError.message, ...(apiError.details ? { details: apiError.details } : {}) } });
}

/** The file parts of a multipart POST /embed/tasks that stream to the blob store. */
const EMBED_TASK_FILE_FIELDS: ReadonlySet<string> = new Set(['video_file']);

/** A synchronous video is embedded while the client waits (the SDKs wait up to 10 minutes). */
const SYNC_VIDEO_TIMEOUT_MS = 600_000;

/** What an asset must be to be embedded as each input. */
const ASSET_TYPES: Readonly<Record<string, readonly string[]>> = { image: ['image'], audio: ['audio', 'video'], video: ['video'] };

/** Embeddings: POST /embed (v1.2, v1.3), /embed-v2 (v1.3) and their embed tasks. */
export function embedEndpoints({
  clients,
  timeoutMs,
  blobs,
  uploadLimits,
}: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'blobs' | 'uploadLimits'>): Endpoint[] {
  const client = () => configured(clients.embed, 'embed');

  /** An /embed-v2… handler: v1.3 only, errors in its `{error: {…}}` form. */
  const v2 = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      if (!embedShape(versionOf(res)).embedV2)
        throw new ApiError('api_upgrade_required', '/embed-v2 is part of API v1.3; use /embed on this version.');
      await handler(req, res);
    } catch (error) {
      if (isApiError(error)) return writeV2Error(res, error);
      throw error;
    }
  };

  /**
   * Inline video and task media is read from the blob store, where the body parser streams it
   * (http/media-json.ts): bytes still inline mean this server has no blob store.
   */
  const storeMedia = (param: string): never => {
    throw notConfigured('uploads', { param });
  };

  /**
   * An asset's file (task-service answers only the caller's organization's assets: another's is
   * not found), once it is ready and of a kind the input takes.
   */
  const assetMedia = async (res: Response, assetId: string, param: string, input: string): Promise<MediaSource__Input> => {
    const tasks = configured(clients.task, 'embedAssets', { param });
    const asset = await tasks.getAsset(outgoing(res, timeoutMs), knownId('Asset', assetId));
    if (asset.status !== 'ready' || !asset.blob_key)
      throw errors.invalid(param, `The asset is ${asset.status}; only a ready asset can be embedded.`);
    const accepted = ASSET_TYPES[input] ?? [];
    if (!accepted.includes(asset.asset_type))
      throw errors.invalid(
        param,
        `The asset is ${asset.asset_type ? `an ${asset.asset_type}` : 'of no known type'}; ${input} embeddings take ${accepted.join(' or ')}.`,
      );
    return { blob_key: asset.blob_key, filename: asset.filename };
  };

  /** A media source as the service reads it: an asset as its file; inline media stored first when `store` (video, tasks). */
  const mediaFor = async (
    res: Response,
    source: MediaSource__Input,
    param: string,
    input: string,
    store: boolean,
  ): Promise<MediaSource__Input> => {
    if (source.asset_id !== undefined) return assetMedia(res, source.asset_id, `${param}.asset_id`, input);
    if (store && source.data) return storeMedia(`${param}.base64_string`);
    return source;
  };

  return [
    {
      method: 'post',
      path: '/embed',
      rate: embedCategories,
      body: LEGACY_EMBED_FILES,
      doc: docs.embed,
      handle: async (req: Request, res: Response) => {
        const shape = embedShape(versionOf(res));
        const embedding = await client().createEmbedding(outgoing(res, timeoutMs), parseLegacyEmbed(req.body as Fields, shape));
        res.json(presentLegacyEmbedding(embedding, shape));
      },
    },
    {
      method: 'post',
      path: '/embed/tasks',
      rate: 'embed_video',
      body: { streamedWhen: isUpload },
      doc: docs.createEmbedTask,
      handle: async (req: Request, res: Response) => {
        const shape = embedShape(versionOf(res));
        // A multipart video_file streams to the blob store (the rate check came first); embed-service removes it with the task.
        const orgId = locals(res).orgId!;
        const upload = isUpload(req)
          ? await receiveMultipart(req, blobs, EMBED_TASK_FILE_FIELDS, { ...uploadLimits, fileBytes: EMBED_TASK_VIDEO_BYTES }, () =>
              embedMediaKey(orgId, newId()),
            )
          : { fields: req.body as Fields, files: [], discard: async () => undefined };
        try {
          const fields = { ...upload.fields, ...Object.fromEntries(upload.files.map((file) => [file.field, file])) };
          const { videoUrl, videoFile, ...request } = parseEmbedTask(fields, shape);
          // The URL wins over a file sent too: the file is not kept.
          if (videoUrl !== undefined) await upload.discard();
          const media: MediaSource__Input =
            videoUrl !== undefined
              ? { url: videoUrl }
              : { blob_key: videoFile!.blobKey, ...(videoFile!.filename ? { filename: videoFile!.filename } : {}) };
          const idempotencyKey = req.get('idempotency-key') ?? '';
          const task = await client().createEmbedTask(outgoing(res, timeoutMs), { ...request, media, idempotency_key: idempotencyKey });
          res.json({ _id: task.id });
        } catch (error) {
          await upload.discard();
          throw error;
        }
      },
    },
    {
      method: 'get',
      path: '/embed/tasks',
      doc: docs.listEmbedTasks,
      handle: async (req: Request, res: Response) => {
        const shape = embedShape(versionOf(res));
        const result = await client().listEmbedTasks(outgoing(res, timeoutMs), parseListEmbedTasks(readQuery(req.originalUrl)));
        res.json(presentEmbedTaskList(result, shape));
      },
    },
    {
      method: 'get',
      path: '/embed/tasks/:taskId/status',
      doc: docs.embedTaskStatus,
      handle: async (req: Request, res: Response) => {
        const shape = embedShape(versionOf(res));
        const task = await client().getEmbedTaskStatus(outgoing(res, timeoutMs), { embed_task_id: String(req.params.taskId) });
        res.json(presentEmbedTaskSummary(task, shape));
      },
    },
    {
      method: 'get',
      path: '/embed/tasks/:taskId',
      doc: docs.retrieveEmbedTask,
      handle: async (req: Request, res: Response) => {
        const shape = embedShape(versionOf(res));
        const options = list(readQuery(req.originalUrl), 'embedding_option') ?? [];
        const task = await client().getEmbedTask(outgoing(res, timeoutMs), {
          embed_task_id: String(req.params.taskId),
          embedding_options: options,
        });
        res.json(presentEmbedTask(task, shape));
      },
    },
    {
      method: 'post',
      path: '/embed-v2/tasks',
      rate: embedV2Categories,
      body: { inlineMedia: true },
      doc: docs.createEmbedV2Task,
      handle: v2(async (req, res) => {
        const { request, source } = parseEmbedV2Task(req.body as Fields);
        const input = request.input_type ?? 'video';
        const media = await mediaFor(res, source, `${input}.media_source`, input, true);
        const task = await client().createEmbedTask(outgoing(res, timeoutMs), {
          ...request,
          media,
          idempotency_key: req.get('idempotency-key') ?? '',
        });
        // The task owns its stored media now (embed-service removes it when the task is done).
        keepStoredMedia(req);
        res.status(202).json({ _id: task.id, status: task.status, data: null });
      }),
    },
    {
      method: 'get',
      path: '/embed-v2/tasks',
      doc: docs.listEmbedV2Tasks,
      handle: v2(async (req, res) => {
        const result = await client().listEmbedTasks(outgoing(res, timeoutMs), parseListEmbedTasks(readQuery(req.originalUrl)));
        res.json({ data: result.data.map((task) => presentEmbedTaskV2(task)), page_info: result.page_info });
      }),
    },
    {
      method: 'get',
      path: '/embed-v2/tasks/:taskId',
      doc: docs.retrieveEmbedV2Task,
      handle: v2(async (req, res) => {
        res.json(presentEmbedTaskV2(await client().getEmbedTask(outgoing(res, timeoutMs), { embed_task_id: String(req.params.taskId) })));
      }),
    },
    {
      method: 'post',
      path: '/embed-v2',
      rate: embedV2Categories,
      body: { inlineMedia: true },
      doc: docs.embedV2,
      handle: async (req: Request, res: Response) => {
        try {
          if (!embedShape(versionOf(res)).embedV2)
            throw new ApiError('api_upgrade_required', '/embed-v2 is part of API v1.3; use /embed on this version.');
          const { inputType, request } = parseEmbedV2(req.body as Fields);
          const part = inputType === 'text_image' ? 'text_image' : inputType;
          for (const kind of ['image', 'audio', 'video'] as const) {
            const source = request[kind];
            if (source) request[kind] = await mediaFor(res, source, `${part}.media_source`, kind, kind === 'video');
          }
          if (request.more_images)
            request.more_images = await Promise.all(
              request.more_images.map((source, i) => mediaFor(res, source, `multi_input.media_sources[${i + 1}]`, 'image', false)),
            );
          const deadline = inputType === 'video' ? Math.max(timeoutMs, SYNC_VIDEO_TIMEOUT_MS) : timeoutMs;
          const embedding = await client().createEmbedding({ ...outgoing(res, deadline), signal: clientGone(res) }, request);
          res.json(presentEmbeddingV2(embedding, inputType));
        } catch (error) {
          if (isApiError(error)) return writeV2Error(res, error);
          throw error;
        }
      },
    },
  ];
}
