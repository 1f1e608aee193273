/**
 * The requests of the embedding endpoints (API-CONTRACT §5.8): POST /embed, /embed/tasks (v1.2,
 * v1.3), /embed-v2 and /embed-v2/tasks (v1.3), and the task lists' query, validated with zod
 * through the field helpers of embed.fields.ts, each error in the words the SDKs have always seen.
 * Length (about 400 lines): the four requests share their media-source and segmentation parts.
 */
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
import { z } from 'zod';
import { anyValue, attempt, formText, named, parseFields, part, refuse, required, seconds, within } from './embed.fields';

/*
 * The embedding requests (API-CONTRACT §5.8) read into the canonical ones: POST /embed and
 * /embed/tasks (forms and JSON, the version's EmbedShape naming the model), /embed-v2 and
 * /embed-v2/tasks (JSON; base64 media already in the blob store as StoredMedia, http/media-json.ts).
 */

/** A request body or form, as the body parser or the multipart reader left it. */
export type Fields = Record<string, unknown>;

/*
 * Zod schemas built from embed.fields.ts (which keeps the errors these endpoints have always given);
 * steps whose errors come in a fixed order across fields (multi_input, segmentation, "exactly one of"
 * a media source) stay checks in a transform.
 */

/** The model: the version's field, else model_name, else engine_name; the first given is read. */
function modelNameOf(fields: Fields, shape: EmbedShape): string {
  for (const field of [shape.modelField, 'model_name', 'engine_name']) {
    const modelName = parseFields(named(field, formText), fields[field]);
    if (modelName !== undefined) return modelName;
  }
  throw errors.notProvided(shape.modelField);
}

/** A media input given either as a URL field or as a file part, never both. */
const legacyMedia = (urlField: string, fileField: string) =>
  z.object({ url: named(urlField, formText), file: anyValue }).transform(({ url, file }, ctx): MediaSource__Input | undefined => {
    if (url !== undefined && file !== undefined)
      return refuse(ctx, errors.invalid(fileField, `Give ${urlField} or ${fileField}, not both.`));
    if (url !== undefined) return { url };
    if (file === undefined) return undefined;
    if (!Buffer.isBuffer(file)) return refuse(ctx, errors.invalid(fileField, 'It must be a file part.'));
    return { data: file };
  });

/** Every value of a repeated form field (`video_embedding_scope=clip&video_embedding_scope=video`), or a comma-separated one. */
function values(fields: Fields, name: string): string[] {
  const raw = fields[name] ?? fields[`${name}[]`];
  const all = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
  return all
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

const isStoredFile = (value: unknown): value is StoredFile =>
  typeof value === 'object' && value !== null && typeof (value as StoredFile).blobKey === 'string';

/** The video of POST /embed/tasks: the URL wins when both come (py 0.4 sends video_url twice, once as a file part: API-CONTRACT §5.3). */
const taskVideoSchema = z
  .object({ video_url: named('video_url', formText), video_file: anyValue })
  .transform(({ video_url: videoUrl, video_file: file }, ctx): { videoUrl: string } | { videoFile: StoredFile } => {
    if (videoUrl !== undefined) return { videoUrl };
    if (file === undefined)
      return refuse(ctx, new ApiError('parameter_not_provided', 'Provide video_url or video_file.', { param: 'video_file' }));
    if (!isStoredFile(file)) return refuse(ctx, errors.invalid('video_file', 'It must be a file part.'));
    return { videoFile: file };
  });

const taskOffsetsSchema = z.object({
  video_start_offset_sec: named('video_start_offset_sec', seconds),
  video_end_offset_sec: named('video_end_offset_sec', seconds),
  video_clip_length: named('video_clip_length', seconds),
});

/** POST /embed/tasks (multipart; API-CONTRACT §5.8) → the canonical request, less the media (a URL, or the upload's blob key). */
export function parseEmbedTask(
  fields: Fields,
  shape: EmbedShape,
): Omit<CreateEmbedTaskRequest__Input, 'media'> & { videoUrl?: string; videoFile?: StoredFile } {
  const modelName = modelNameOf(fields, shape);
  const video = parseFields(taskVideoSchema, fields);
  const { video_start_offset_sec: start, video_end_offset_sec: end, video_clip_length: clip } = parseFields(taskOffsetsSchema, fields);
  return {
    model_name: modelName,
    input_type: 'video',
    ...(start === undefined ? {} : { start_sec: start }),
    ...(end === undefined ? {} : { end_sec: end }),
    ...(clip === undefined ? {} : { clip_length: clip }),
    embedding_scopes: values(fields, 'video_embedding_scope'),
    ...video,
  };
}

const legacyInputsSchema = z
  .object({ image: legacyMedia('image_url', 'image_file'), audio: legacyMedia('audio_url', 'audio_file'), text: named('text', formText) })
  .superRefine(({ image, audio, text }, ctx) => {
    if (text === undefined && !image && !audio)
      refuse(
        ctx,
        new ApiError('parameter_not_provided', 'Provide at least one of text, image_url, image_file, audio_url or audio_file.', {
          param: 'text',
        }),
      );
  });

const legacyOptionsSchema = z.object({
  audio_start_offset_sec: named('audio_start_offset_sec', seconds),
  text_truncate: named('text_truncate', formText),
});

/** POST /embed (multipart, urlencoded or JSON; API-CONTRACT §5.8) → the canonical request. */
export function parseLegacyEmbed(fields: Fields, shape: EmbedShape): CreateEmbeddingRequest__Input {
  const modelName = modelNameOf(fields, shape);
  const { image, audio, text } = parseFields(legacyInputsSchema, {
    image: { url: fields.image_url, file: fields.image_file },
    audio: { url: fields.audio_url, file: fields.audio_file },
    text: fields.text,
  });
  const { audio_start_offset_sec: start, text_truncate: truncate } = parseFields(legacyOptionsSchema, fields);
  return {
    model_name: modelName,
    ...(text === undefined ? {} : { text }),
    text_truncate: truncate ?? '',
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

/** `{url} | {base64_string} | {asset_id}`, exactly one. */
const mediaSource = (name: string) =>
  part(name, {}).transform((source, ctx): MediaSource__Input => {
    const given = (['url', 'base64_string', 'asset_id'] as const).filter((key) => source[key] !== undefined && source[key] !== null);
    if (given.length === 0)
      return refuse(ctx, new ApiError('parameter_not_provided', `${name} needs one of url, base64_string or asset_id.`, { param: name }));
    if (given.length > 1)
      return refuse(ctx, errors.invalid(name, `Give one of url, base64_string or asset_id, not ${given.join(' and ')}.`));
    const key = given[0]!;
    const raw = source[key];
    // Base64 media read as it streamed is already in the blob store (http/media-json.ts).
    if (key === 'base64_string' && raw instanceof StoredMedia) {
      if (!raw.valid) return refuse(ctx, errors.invalid(`${name}.base64_string`, 'It is not base64.'));
      if (raw.size === 0) return refuse(ctx, errors.invalid(`${name}.${key}`, 'It must be a non-empty string.'));
      return { blob_key: raw.blobKey };
    }
    if (typeof raw !== 'string' || raw === '') return refuse(ctx, errors.invalid(`${name}.${key}`, 'It must be a non-empty string.'));
    if (key === 'url') return { url: raw };
    if (key === 'asset_id') return { asset_id: raw };
    const compact = raw.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
    if (!BASE64.test(compact)) return refuse(ctx, errors.invalid(`${name}.base64_string`, 'It is not base64.'));
    return { data: Buffer.from(compact, 'base64') };
  });

const LIST_OF_STRINGS = 'It must be a list of strings.';
const stringList = (name: string) =>
  named(
    name,
    z
      .array(z.string({ error: LIST_OF_STRINGS }), { error: LIST_OF_STRINGS })
      .nullish()
      .transform((list) => list ?? []),
  );

const NON_EMPTY_TEXT = 'It must be non-empty text.';
const v2Text = (name: string) =>
  required(
    name,
    z.string({ error: NON_EMPTY_TEXT }).refine((text) => text.trim() !== '', NON_EMPTY_TEXT),
  );

const modelNameSchema = required('model_name', z.string({ error: 'It must be text.' }));
const v2HeaderSchema = z.object({
  input_type: required('input_type', z.enum(V2_INPUT_TYPES, { error: `Use one of ${V2_INPUT_TYPES.join(', ')}.` })),
  model_name: modelNameSchema,
});

/** Synchronous audio is embedded per option only: a fused vector is made by an embed task (or with video). */
const syncAudioTypes = stringList('audio.embedding_type').transform((types, ctx) => {
  if (types.some((t) => t !== 'separate_embedding' && t !== 'fused_embedding'))
    return refuse(ctx, errors.invalid('audio.embedding_type', 'Use separate_embedding and/or fused_embedding.'));
  if (types.includes('fused_embedding'))
    return refuse(
      ctx,
      new ApiError('not_implemented', 'Fused audio embeddings are made by embed tasks on this server: use POST /embed-v2/tasks.', {
        param: 'audio.embedding_type',
      }),
    );
  return types;
});

const fixedClip = (name: string) => part(name, { duration_sec: named('duration_sec', seconds) }).transform((fixed) => fixed.duration_sec);

const syncAudioSchema = part('audio', {
  start_sec: named('start_sec', seconds),
  end_sec: named('end_sec', seconds),
  segmentation: part('audio.segmentation', {
    strategy: named('audio.segmentation.strategy', z.literal('fixed', { error: 'Audio is segmented with the fixed strategy.' })),
    fixed: fixedClip('audio.segmentation.fixed').optional(),
  }).optional(),
  media_source: mediaSource('audio.media_source'),
  embedding_scope: stringList('audio.embedding_scope'),
  embedding_option: stringList('audio.embedding_option'),
  embedding_type: syncAudioTypes,
});

/** multi_input's checks come in an order across its fields (list, text, sources, their types, references): one transform. */
const multiInputSchema = part('multi_input', {}).transform((multi, ctx) => {
  const sources = multi.media_sources === undefined ? [] : multi.media_sources;
  if (!Array.isArray(sources)) return refuse(ctx, errors.invalid('multi_input.media_sources', 'It must be a list.'));
  if (sources.length > MULTI_INPUT_MAX_SOURCES)
    return refuse(
      ctx,
      errors.invalid('multi_input.media_sources', `At most ${MULTI_INPUT_MAX_SOURCES} media sources; ${sources.length} were given.`),
    );
  const input =
    multi.input_text === undefined
      ? { value: undefined }
      : attempt(ctx, v2Text('multi_input.input_text'), multi.input_text, 'multi_input.input_text');
  if (!input) return z.NEVER;
  const items: Fields[] = [];
  for (const [i, raw] of sources.entries()) {
    const item = attempt(ctx, part(`multi_input.media_sources[${i}]`, {}), raw, `multi_input.media_sources[${i}]`);
    if (!item) return z.NEVER;
    items.push(item.value);
  }
  for (const [i, item] of items.entries()) {
    if (item.media_type === 'image') continue;
    const param = `multi_input.media_sources[${i}].media_type`;
    return item.media_type === 'video' || item.media_type === 'audio'
      ? refuse(
          ctx,
          new ApiError(
            'not_implemented',
            'Only image media sources are available in multi_input on this server (video and audio need Marengo 3.5).',
            {
              param,
            },
          ),
        )
      : refuse(ctx, errors.invalid(param, 'Use image, video or audio.'));
  }
  if (input.value === undefined && items.length === 0)
    return refuse(ctx, new ApiError('parameter_not_provided', 'multi_input needs input_text or a media source.', { param: 'multi_input' }));
  // `<@name>` in the text refers to the media source of that name; each must have one.
  const names = new Set(items.map((item) => item.name));
  for (const [, name = ''] of (input.value ?? '').matchAll(MEDIA_REFERENCE))
    if (!names.has(name)) return refuse(ctx, errors.invalid('multi_input.input_text', `<@${name}> names no media source.`));
  const images: MediaSource__Input[] = [];
  for (const [i, item] of items.entries()) {
    const image = attempt(ctx, mediaSource(`multi_input.media_sources[${i}]`), item, `multi_input.media_sources[${i}]`);
    if (!image) return z.NEVER;
    images.push(image.value);
  }
  return { text: input.value?.replace(MEDIA_REFERENCE, '$1'), images };
});

/** A dynamic segmentation is served as fixed clips of its minimum length (no shot-aware clips yet). */
const segmentationOf = (inputType: 'video' | 'audio') =>
  part(`${inputType}.segmentation`, {}).transform((segmentation, ctx): number | undefined => {
    if (segmentation.strategy === 'fixed')
      return within(ctx, fixedClip(`${inputType}.segmentation.fixed`), segmentation.fixed, `${inputType}.segmentation.fixed`);
    if (segmentation.strategy === 'dynamic' && inputType === 'video')
      return within(ctx, dynamicClip, segmentation.dynamic, 'video.segmentation.dynamic');
    return refuse(
      ctx,
      errors.invalid(
        `${inputType}.segmentation.strategy`,
        inputType === 'video' ? 'Use fixed or dynamic.' : 'Audio is segmented with the fixed strategy.',
      ),
    );
  });

const dynamicClip = part('video.segmentation.dynamic', { min_duration_sec: named('min_duration_sec', seconds) }).transform(
  (dynamic) => dynamic.min_duration_sec,
);

/**
 * The `video` or `audio` part of an /embed-v2 body (tasks, and synchronous video): its media source,
 * offsets, segmentation, scopes and options.
 */
const mediaPartOf = (inputType: 'video' | 'audio') =>
  part(inputType, {
    media_source: mediaSource(`${inputType}.media_source`),
    start_sec: named('start_sec', seconds),
    end_sec: named('end_sec', seconds),
    segmentation: segmentationOf(inputType).optional(),
    embedding_scope: stringList(`${inputType}.embedding_scope`),
    embedding_option: stringList(`${inputType}.embedding_option`),
    embedding_type: stringList(`${inputType}.embedding_type`),
  }).transform((p): Omit<CreateEmbedTaskRequest__Input, 'media' | 'model_name'> & { source: MediaSource__Input } => ({
    input_type: inputType,
    ...(p.start_sec === undefined ? {} : { start_sec: p.start_sec }),
    ...(p.end_sec === undefined ? {} : { end_sec: p.end_sec }),
    ...(p.segmentation === undefined ? {} : { clip_length: p.segmentation }),
    embedding_scopes: p.embedding_scope.length > 0 ? p.embedding_scope : ['clip', 'asset'],
    embedding_options: p.embedding_option,
    embedding_types: p.embedding_type,
    source: p.media_source,
  }));
const videoPart = mediaPartOf('video');
const audioPart = mediaPartOf('audio');

const textPart = part('text', { input_text: v2Text('text.input_text') });
const imagePart = part('image', { media_source: mediaSource('image.media_source') });
const textImagePart = part('text_image', {
  input_text: v2Text('text_image.input_text'),
  media_source: mediaSource('text_image.media_source'),
});

/** POST /embed-v2 (JSON, API-CONTRACT §5.8) → the canonical request. */
export function parseEmbedV2(body: Fields): { inputType: string; request: CreateEmbeddingRequest__Input } {
  const { input_type: inputType, model_name: modelName } = parseFields(v2HeaderSchema, body);
  const base = { model_name: modelName };
  switch (inputType) {
    case 'text':
      return { inputType, request: { ...base, text: parseFields(textPart, body.text).input_text, text_truncate: 'none' } };
    case 'image':
      return { inputType, request: { ...base, image: parseFields(imagePart, body.image).media_source } };
    case 'text_image': {
      const part = parseFields(textImagePart, body.text_image);
      return { inputType, request: { ...base, text: part.input_text, text_truncate: 'none', image: part.media_source } };
    }
    case 'audio': {
      const part = parseFields(syncAudioSchema, body.audio);
      return {
        inputType,
        request: {
          ...base,
          audio: part.media_source,
          ...(part.start_sec === undefined ? {} : { start_sec: part.start_sec }),
          ...(part.end_sec === undefined ? {} : { end_sec: part.end_sec }),
          ...(part.segmentation?.fixed === undefined ? {} : { clip_length: part.segmentation.fixed }),
          embedding_scopes: part.embedding_scope,
          embedding_options: part.embedding_option,
          embedding_types: part.embedding_type,
        },
      };
    }
    case 'multi_input': {
      const { text, images } = parseFields(multiInputSchema, body.multi_input);
      const [image, ...moreImages] = images;
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
      const { source, input_type, ...options } = parseFields(videoPart, body.video);
      return { inputType, request: { ...base, input_type, video: source, ...options } };
    }
  }
}

const v2TaskHeaderSchema = z.object({
  input_type: required('input_type', z.enum(['video', 'audio'], { error: 'Embedding tasks take video or audio.' })),
  model_name: modelNameSchema,
});

/** POST /embed-v2/tasks (JSON): video or audio; media by URL, base64 (put in the blob store) or asset. */
export function parseEmbedV2Task(body: Fields): { request: Omit<CreateEmbedTaskRequest__Input, 'media'>; source: MediaSource__Input } {
  const { input_type: inputType, model_name: modelName } = parseFields(v2TaskHeaderSchema, body);
  const { source, ...request } = parseFields(inputType === 'video' ? videoPart : audioPart, body[inputType]);
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
