import { ApiError, errors } from '@vus/core';
import { toTimestamp } from '@vus/grpc';
import type { ListEmbedTasksRequest__Input } from '@vus/grpc/types/embed/v1/ListEmbedTasksRequest';
import type { CreateEmbedTaskRequest__Input } from '@vus/grpc/types/embed/v1/CreateEmbedTaskRequest';
import type { CreateEmbeddingRequest__Input } from '@vus/grpc/types/embed/v1/CreateEmbeddingRequest';
import type { MediaSource__Input } from '@vus/grpc/types/embed/v1/MediaSource';
import { StoredMedia } from '../http/media-json';
import { parsePageQuery } from '../http/paging';
import { list, scalar, type RawQuery } from '../http/query';
import type { StoredFile } from '../http/upload';
import type { EmbedShape } from '../versions/adapter';

/*
 * The embedding requests (API-CONTRACT §5.8) read into the canonical ones: POST /embed and
 * /embed/tasks (forms and JSON, the version's EmbedShape naming the model), /embed-v2 and
 * /embed-v2/tasks (JSON; base64 media already in the blob store as StoredMedia, http/media-json.ts).
 */

/** A request body or form, as the body parser or the multipart reader left it. */
export type Fields = Record<string, unknown>;

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

/** A date query parameter (ISO 8601 or RFC 3339), or `parameter_invalid`. */
function dateParam(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw errors.invalid(name, 'It must be a date (ISO 8601).');
  return date;
}

/** GET /embed/tasks and /embed-v2/tasks query: paging, a creation window (started_at, ended_at), statuses. */
export function parseListEmbedTasks(query: RawQuery): ListEmbedTasksRequest__Input {
  const page = parsePageQuery(query);
  const from = dateParam(scalar(query, 'started_at'), 'started_at');
  const to = dateParam(scalar(query, 'ended_at'), 'ended_at');
  return {
    page: { page: page.page, page_limit: page.pageLimit },
    created_at: from || to ? { ...(from ? { gte: toTimestamp(from) } : {}), ...(to ? { lte: toTimestamp(to) } : {}) } : null,
    statuses: list(query, 'status') ?? [],
  };
}
