import { embedMediaKey } from '@vus/blob';
import { ApiError, errors, isApiError, knownId, newId } from '@vus/core';
import { toTimestamp } from '@vus/grpc';
import type { CreateEmbedTaskRequest__Input } from '@vus/grpc/types/embed/v1/CreateEmbedTaskRequest';
import { EMBED_TASK_VIDEO_BYTES } from '../http/body';
import { keepStoredMedia, StoredMedia } from '../http/media-json';
import { receiveMultipart, type StoredFile } from '../http/upload';
import type { CreateEmbeddingRequest__Input } from '@vus/grpc/types/embed/v1/CreateEmbeddingRequest';
import type { MediaSource__Input } from '@vus/grpc/types/embed/v1/MediaSource';
import { Router, type Request, type Response } from 'express';
import { clientGone, outgoing } from '../http/context';
import { readQuery, list, scalar } from '../http/query';
import { parsePageQuery } from '../http/paging';
import { locals } from '../http/context';
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
import { versionOf } from './version';

type Fields = Record<string, unknown>;

/** One text value of a form field (repeated keys: the first; §2.2). */
function text(fields: Fields, name: string): string | undefined {
  const value = Array.isArray(fields[name]) ? (fields[name] as unknown[])[0] : fields[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw errors.invalid(name, 'It must be text.');
  return value;
}

function seconds(fields: Fields, name: string): number | undefined {
  const raw = fields[name];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = typeof raw === 'number' ? raw : Number(text(fields, name));
  if (!Number.isFinite(value) || value < 0) throw errors.invalid(name, 'It must be a number of seconds, 0 or more.');
  return value;
}

/** A media input given either as a URL field or as a file part, never both. */
function legacyMedia(fields: Fields, urlField: string, fileField: string): MediaSource__Input | undefined {
  const url = text(fields, urlField);
  const file = fields[fileField];
  if (url !== undefined && file !== undefined) throw errors.invalid(fileField, `Give ${urlField} or ${fileField}, not both.`);
  if (url !== undefined) return { url };
  if (file === undefined) return undefined;
  if (!Buffer.isBuffer(file)) throw errors.invalid(fileField, 'It must be a file part.');
  return { data: file };
}

function embedShape(version: VersionAdapter): EmbedShape {
  if (!version.embed) throw new ApiError('api_upgrade_required', `Embeddings are not part of API ${version.name}; use v1.2 or later.`);
  return version.embed;
}

/** Every value of a repeated form field (`video_embedding_scope=clip&video_embedding_scope=video`), or a comma-separated one. */
function values(fields: Fields, name: string): string[] {
  const raw = fields[name] ?? fields[`${name}[]`];
  const all = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
  return all
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** POST /embed/tasks (multipart; API-CONTRACT §5.8) → the canonical request, less the media (a URL, or the upload's blob key). */
export function parseEmbedTask(
  fields: Fields,
  shape: EmbedShape,
): Omit<CreateEmbedTaskRequest__Input, 'media'> & { videoUrl?: string; videoFile?: StoredFile } {
  const modelName = text(fields, shape.modelField) ?? text(fields, 'model_name') ?? text(fields, 'engine_name');
  if (modelName === undefined) throw errors.notProvided(shape.modelField);
  const videoUrl = text(fields, 'video_url');
  const file = fields.video_file;
  // The URL wins when both come (py 0.4 sends video_url twice, once as a file part: API-CONTRACT §5.3).
  if (videoUrl === undefined && file === undefined)
    throw new ApiError('parameter_not_provided', 'Provide video_url or video_file.', { param: 'video_file' });
  if (videoUrl === undefined && !isStoredFile(file)) throw errors.invalid('video_file', 'It must be a file part.');
  const start = seconds(fields, 'video_start_offset_sec');
  const end = seconds(fields, 'video_end_offset_sec');
  const clip = seconds(fields, 'video_clip_length');
  return {
    model_name: modelName,
    input_type: 'video',
    ...(start === undefined ? {} : { start_sec: start }),
    ...(end === undefined ? {} : { end_sec: end }),
    ...(clip === undefined ? {} : { clip_length: clip }),
    embedding_scopes: values(fields, 'video_embedding_scope'),
    ...(videoUrl !== undefined ? { videoUrl } : { videoFile: file as StoredFile }),
  };
}

const isStoredFile = (value: unknown): value is StoredFile =>
  typeof value === 'object' && value !== null && typeof (value as StoredFile).blobKey === 'string';

/** A v1.2/v1.3 POST /embed/tasks with a multipart body: its video_file streams to the blob store in the route, after the rate check. */
export function isEmbedTaskUpload(req: Request): boolean {
  return req.method === 'POST' && /^\/embed\/tasks\/?$/.test(req.path) && req.is('multipart/form-data') === 'multipart/form-data';
}

/** POST /embed (multipart, urlencoded or JSON; API-CONTRACT §5.8) → the canonical request. */
export function parseLegacyEmbed(fields: Fields, shape: EmbedShape): CreateEmbeddingRequest__Input {
  const modelName = text(fields, shape.modelField) ?? text(fields, 'model_name') ?? text(fields, 'engine_name');
  if (modelName === undefined) throw errors.notProvided(shape.modelField);
  const image = legacyMedia(fields, 'image_url', 'image_file');
  const audio = legacyMedia(fields, 'audio_url', 'audio_file');
  const input = text(fields, 'text');
  if (input === undefined && !image && !audio)
    throw new ApiError('parameter_not_provided', 'Provide at least one of text, image_url, image_file, audio_url or audio_file.', {
      param: 'text',
    });
  const start = seconds(fields, 'audio_start_offset_sec');
  return {
    model_name: modelName,
    ...(input === undefined ? {} : { text: input }),
    text_truncate: text(fields, 'text_truncate') ?? '',
    ...(image ? { image } : {}),
    ...(audio ? { audio } : {}),
    ...(start === undefined ? {} : { start_sec: start }),
  };
}

const V2_INPUT_TYPES = ['text', 'image', 'text_image', 'audio', 'video', 'multi_input'] as const;
/** multi_input combines text and up to 10 media sources (the SDK's documentation). */
const MULTI_INPUT_MAX_SOURCES = 10;
/** A media source named in multi_input's text: `<@outfit>`. */
const MEDIA_REFERENCE = /<@([^<>]*)>/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function object(value: unknown, name: string): Fields {
  if (value === undefined || value === null) throw errors.notProvided(name);
  if (typeof value !== 'object' || Array.isArray(value)) throw errors.invalid(name, 'It must be an object.');
  return value as Fields;
}

/** `{url} | {base64_string} | {asset_id}`, exactly one. */
function v2MediaSource(value: unknown, name: string): MediaSource__Input {
  const source = object(value, name);
  const given = (['url', 'base64_string', 'asset_id'] as const).filter((key) => source[key] !== undefined && source[key] !== null);
  if (given.length === 0)
    throw new ApiError('parameter_not_provided', `${name} needs one of url, base64_string or asset_id.`, { param: name });
  if (given.length > 1) throw errors.invalid(name, `Give one of url, base64_string or asset_id, not ${given.join(' and ')}.`);
  const key = given[0]!;
  const raw = source[key];
  // Base64 media read as it streamed is already in the blob store (http/media-json.ts).
  if (key === 'base64_string' && raw instanceof StoredMedia) {
    if (!raw.valid) throw errors.invalid(`${name}.base64_string`, 'It is not base64.');
    if (raw.size === 0) throw errors.invalid(`${name}.${key}`, 'It must be a non-empty string.');
    return { blob_key: raw.blobKey };
  }
  if (typeof raw !== 'string' || raw === '') throw errors.invalid(`${name}.${key}`, 'It must be a non-empty string.');
  if (key === 'url') return { url: raw };
  if (key === 'asset_id') return { asset_id: raw };
  const compact = raw.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  if (!BASE64.test(compact)) throw errors.invalid(`${name}.base64_string`, 'It is not base64.');
  return { data: Buffer.from(compact, 'base64') };
}

function stringList(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw errors.invalid(name, 'It must be a list of strings.');
  return value as string[];
}

function v2Text(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw value === undefined ? errors.notProvided(name) : errors.invalid(name, 'It must be non-empty text.');
  return value;
}

/** POST /embed-v2 (JSON, API-CONTRACT §5.8) → the canonical request. */
export function parseEmbedV2(body: Fields): { inputType: string; request: CreateEmbeddingRequest__Input } {
  const inputType = body.input_type;
  if (inputType === undefined) throw errors.notProvided('input_type');
  if (typeof inputType !== 'string' || !(V2_INPUT_TYPES as readonly string[]).includes(inputType))
    throw errors.invalid('input_type', `Use one of ${V2_INPUT_TYPES.join(', ')}.`);
  const modelName = body.model_name;
  if (modelName === undefined) throw errors.notProvided('model_name');
  if (typeof modelName !== 'string') throw errors.invalid('model_name', 'It must be text.');
  const base = { model_name: modelName };
  switch (inputType) {
    case 'text':
      return {
        inputType,
        request: { ...base, text: v2Text(object(body.text, 'text').input_text, 'text.input_text'), text_truncate: 'none' },
      };
    case 'image':
      return { inputType, request: { ...base, image: v2MediaSource(object(body.image, 'image').media_source, 'image.media_source') } };
    case 'text_image': {
      const part = object(body.text_image, 'text_image');
      return {
        inputType,
        request: {
          ...base,
          text: v2Text(part.input_text, 'text_image.input_text'),
          text_truncate: 'none',
          image: v2MediaSource(part.media_source, 'text_image.media_source'),
        },
      };
    }
    case 'audio': {
      const part = object(body.audio, 'audio');
      const start = seconds(part, 'start_sec');
      const end = seconds(part, 'end_sec');
      const segmentation = part.segmentation === undefined ? undefined : object(part.segmentation, 'audio.segmentation');
      if (segmentation && segmentation.strategy !== 'fixed')
        throw errors.invalid('audio.segmentation.strategy', 'Audio is segmented with the fixed strategy.');
      const fixed =
        segmentation?.fixed === undefined ? undefined : seconds(object(segmentation.fixed, 'audio.segmentation.fixed'), 'duration_sec');
      return {
        inputType,
        request: {
          ...base,
          audio: v2MediaSource(part.media_source, 'audio.media_source'),
          ...(start === undefined ? {} : { start_sec: start }),
          ...(end === undefined ? {} : { end_sec: end }),
          ...(fixed === undefined ? {} : { clip_length: fixed }),
          embedding_scopes: stringList(part.embedding_scope, 'audio.embedding_scope'),
          embedding_options: stringList(part.embedding_option, 'audio.embedding_option'),
          embedding_types: syncAudioTypes(part),
        },
      };
    }
    case 'multi_input': {
      const part = object(body.multi_input, 'multi_input');
      const sources = part.media_sources === undefined ? [] : part.media_sources;
      if (!Array.isArray(sources)) throw errors.invalid('multi_input.media_sources', 'It must be a list.');
      if (sources.length > MULTI_INPUT_MAX_SOURCES)
        throw errors.invalid(
          'multi_input.media_sources',
          `At most ${MULTI_INPUT_MAX_SOURCES} media sources; ${sources.length} were given.`,
        );
      const input = part.input_text === undefined ? undefined : v2Text(part.input_text, 'multi_input.input_text');
      const items = sources.map((raw, i) => object(raw, `multi_input.media_sources[${i}]`));
      items.forEach((item, i) => {
        if (item.media_type === 'image') return;
        const param = `multi_input.media_sources[${i}].media_type`;
        if (item.media_type === 'video' || item.media_type === 'audio')
          throw new ApiError(
            'not_implemented',
            'Only image media sources are available in multi_input on this server (video and audio need Marengo 3.5).',
            {
              param,
            },
          );
        throw errors.invalid(param, 'Use image, video or audio.');
      });
      if (input === undefined && items.length === 0)
        throw new ApiError('parameter_not_provided', 'multi_input needs input_text or a media source.', { param: 'multi_input' });
      // `<@name>` in the text refers to the media source of that name; each must have one.
      const names = new Set(items.map((item) => item.name));
      for (const [, name = ''] of (input ?? '').matchAll(MEDIA_REFERENCE))
        if (!names.has(name)) throw errors.invalid('multi_input.input_text', `<@${name}> names no media source.`);
      const text = input?.replace(MEDIA_REFERENCE, '$1');
      const [image, ...moreImages] = items.map((item, i) => v2MediaSource(item, `multi_input.media_sources[${i}]`));
      // Text with images, or several images: one fused vector.
      const kind = image && (text !== undefined || moreImages.length > 0) ? 'text_image' : image ? 'image' : 'text';
      return {
        inputType: kind,
        request: {
          ...base,
          ...(text === undefined ? {} : { text, text_truncate: 'none' }),
          ...(image ? { image } : {}),
          ...(moreImages.length > 0 ? { more_images: moreImages } : {}),
        },
      };
    }
    default: {
      // video: short media, embedded as a task embeds it (the gateway stores inline video in the blob store).
      const { source, input_type, ...options } = v2MediaPart(body, 'video');
      return { inputType, request: { ...base, input_type, video: source, ...options } };
    }
  }
}

/** Synchronous audio is embedded per option only: a fused vector is made by an embed task (or with video). */
function syncAudioTypes(part: Fields): string[] {
  const types = stringList(part.embedding_type, 'audio.embedding_type');
  if (types.some((t) => t !== 'separate_embedding' && t !== 'fused_embedding'))
    throw errors.invalid('audio.embedding_type', 'Use separate_embedding and/or fused_embedding.');
  if (types.includes('fused_embedding'))
    throw new ApiError('not_implemented', 'Fused audio embeddings are made by embed tasks on this server: use POST /embed-v2/tasks.', {
      param: 'audio.embedding_type',
    });
  return types;
}

/**
 * The `video` or `audio` part of an /embed-v2 body (tasks, and synchronous video): its media source,
 * offsets, segmentation (dynamic is served as fixed clips of its minimum length: no shot-aware clips
 * yet), scopes and options.
 */
function v2MediaPart(
  body: Fields,
  inputType: 'video' | 'audio',
): Omit<CreateEmbedTaskRequest__Input, 'media' | 'model_name'> & { source: MediaSource__Input } {
  const part = object(body[inputType], inputType);
  const source = v2MediaSource(part.media_source, `${inputType}.media_source`);
  const start = seconds(part, 'start_sec');
  const end = seconds(part, 'end_sec');
  let clipLength: number | undefined;
  if (part.segmentation !== undefined) {
    const segmentation = object(part.segmentation, `${inputType}.segmentation`);
    if (segmentation.strategy === 'fixed')
      clipLength = seconds(object(segmentation.fixed, `${inputType}.segmentation.fixed`), 'duration_sec');
    else if (segmentation.strategy === 'dynamic' && inputType === 'video')
      clipLength = seconds(object(segmentation.dynamic, 'video.segmentation.dynamic'), 'min_duration_sec');
    else
      throw errors.invalid(
        `${inputType}.segmentation.strategy`,
        inputType === 'video' ? 'Use fixed or dynamic.' : 'Audio is segmented with the fixed strategy.',
      );
  }
  const scopes = stringList(part.embedding_scope, `${inputType}.embedding_scope`);
  return {
    input_type: inputType,
    ...(start === undefined ? {} : { start_sec: start }),
    ...(end === undefined ? {} : { end_sec: end }),
    ...(clipLength === undefined ? {} : { clip_length: clipLength }),
    embedding_scopes: scopes.length > 0 ? scopes : ['clip', 'asset'],
    embedding_options: stringList(part.embedding_option, `${inputType}.embedding_option`),
    embedding_types: stringList(part.embedding_type, `${inputType}.embedding_type`),
    source,
  };
}

/** POST /embed-v2/tasks (JSON): video or audio; media by URL, base64 (put in the blob store) or asset. */
export function parseEmbedV2Task(body: Fields): { request: Omit<CreateEmbedTaskRequest__Input, 'media'>; source: MediaSource__Input } {
  const inputType = body.input_type;
  if (inputType === undefined) throw errors.notProvided('input_type');
  if (inputType !== 'video' && inputType !== 'audio') throw errors.invalid('input_type', 'Embedding tasks take video or audio.');
  const modelName = body.model_name;
  if (modelName === undefined) throw errors.notProvided('model_name');
  if (typeof modelName !== 'string') throw errors.invalid('model_name', 'It must be text.');
  const { source, ...request } = v2MediaPart(body, inputType);
  return { request: { model_name: modelName, ...request }, source };
}

/** /embed-v2's error body is `{error: {code, message}}` (API-CONTRACT §2.5), whatever the version's usual form. */
function writeV2Error(res: Response, error: unknown): void {
  const apiError = isApiError(error) ? error : new ApiError('internal_error', 'An internal error occurred. Please try again later.');
  res
    .status(apiError.httpStatus)
    .json({ error: { code: apiError.code, message: apiError.message, ...(apiError.details ? { details: apiError.details } : {}) } });
}

/** Synchronous embeddings: POST /embed (v1.2, v1.3) and POST /embed-v2 (v1.3). */
/** A date query parameter (ISO 8601 or RFC 3339), or `parameter_invalid`. */
function dateParam(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw errors.invalid(name, 'It must be a date (ISO 8601).');
  return date;
}

/** The file parts of a multipart POST /embed/tasks that stream to the blob store. */
const EMBED_TASK_FILE_FIELDS: ReadonlySet<string> = new Set(['video_file']);

/** A synchronous video is embedded while the client waits (the SDKs wait up to 10 minutes). */
const SYNC_VIDEO_TIMEOUT_MS = 600_000;

/** What an asset must be to be embedded as each input. */
const ASSET_TYPES: Readonly<Record<string, readonly string[]>> = { image: ['image'], audio: ['audio', 'video'], video: ['video'] };

export function embedRoutes({
  clients,
  timeoutMs,
  blobs,
  uploadLimits,
}: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'blobs' | 'uploadLimits'>): Router {
  const router = Router();
  const client = () => configured(clients.embed, 'embed');

  router.post('/embed', async (req: Request, res: Response) => {
    const shape = embedShape(versionOf(res));
    const embedding = await client().createEmbedding(outgoing(res, timeoutMs), parseLegacyEmbed(req.body as Fields, shape));
    res.json(presentLegacyEmbedding(embedding, shape));
  });

  router.post('/embed/tasks', async (req: Request, res: Response) => {
    const shape = embedShape(versionOf(res));
    // A multipart video_file streams to the blob store (the rate check came first); embed-service removes it with the task.
    const orgId = locals(res).orgId!;
    const upload = isEmbedTaskUpload(req)
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
  });

  router.get('/embed/tasks', async (req: Request, res: Response) => {
    const shape = embedShape(versionOf(res));
    const query = readQuery(req.originalUrl);
    const page = parsePageQuery(query);
    const from = dateParam(scalar(query, 'started_at'), 'started_at');
    const to = dateParam(scalar(query, 'ended_at'), 'ended_at');
    const result = await client().listEmbedTasks(outgoing(res, timeoutMs), {
      page: { page: page.page, page_limit: page.pageLimit },
      created_at: from || to ? { ...(from ? { gte: toTimestamp(from) } : {}), ...(to ? { lte: toTimestamp(to) } : {}) } : null,
      statuses: list(query, 'status') ?? [],
    });
    res.json(presentEmbedTaskList(result, shape));
  });

  router.get('/embed/tasks/:taskId/status', async (req: Request, res: Response) => {
    const shape = embedShape(versionOf(res));
    const task = await client().getEmbedTaskStatus(outgoing(res, timeoutMs), { embed_task_id: String(req.params.taskId) });
    res.json(presentEmbedTaskSummary(task, shape));
  });

  router.get('/embed/tasks/:taskId', async (req: Request, res: Response) => {
    const shape = embedShape(versionOf(res));
    const options = list(readQuery(req.originalUrl), 'embedding_option') ?? [];
    const task = await client().getEmbedTask(outgoing(res, timeoutMs), {
      embed_task_id: String(req.params.taskId),
      embedding_options: options,
    });
    res.json(presentEmbedTask(task, shape));
  });

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

  router.post(
    '/embed-v2/tasks',
    v2(async (req, res) => {
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
  );

  router.get(
    '/embed-v2/tasks',
    v2(async (req, res) => {
      const query = readQuery(req.originalUrl);
      const page = parsePageQuery(query);
      const from = dateParam(scalar(query, 'started_at'), 'started_at');
      const to = dateParam(scalar(query, 'ended_at'), 'ended_at');
      const result = await client().listEmbedTasks(outgoing(res, timeoutMs), {
        page: { page: page.page, page_limit: page.pageLimit },
        created_at: from || to ? { ...(from ? { gte: toTimestamp(from) } : {}), ...(to ? { lte: toTimestamp(to) } : {}) } : null,
        statuses: list(query, 'status') ?? [],
      });
      res.json({ data: result.data.map((task) => presentEmbedTaskV2(task)), page_info: result.page_info });
    }),
  );

  router.get(
    '/embed-v2/tasks/:taskId',
    v2(async (req, res) => {
      res.json(presentEmbedTaskV2(await client().getEmbedTask(outgoing(res, timeoutMs), { embed_task_id: String(req.params.taskId) })));
    }),
  );

  router.post('/embed-v2', async (req: Request, res: Response) => {
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
  });
  return router;
}
