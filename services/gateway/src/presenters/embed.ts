import type { Embedding } from '@vus/grpc/types/embed/v1/Embedding';
import type { EmbeddingSegment } from '@vus/grpc/types/embed/v1/EmbeddingSegment';
import type { EmbeddingSet } from '@vus/grpc/types/embed/v1/EmbeddingSet';
import type { EmbedTask } from '@vus/grpc/types/embed/v1/EmbedTask';
import type { ListEmbedTasksResponse } from '@vus/grpc/types/embed/v1/ListEmbedTasksResponse';
import { fromTimestamp } from '@vus/grpc';
import type { EmbedShape } from '../versions/adapter';

/** Rounded to 7 significant digits: float32 precision, and a third of the JSON. */
const floats = (vector: readonly number[]): number[] => vector.map((v) => Number(v.toPrecision(7)));

function metadataOf(set: EmbeddingSet): Record<string, string> {
  const metadata = set.metadata;
  return {
    ...(metadata?.input_url ? { input_url: metadata.input_url } : {}),
    ...(metadata?.input_filename ? { input_filename: metadata.input_filename } : {}),
  };
}

/**
 * POST /embed (API-CONTRACT §5.8): `{model_name|engine_name, text_embedding?, image_embedding?,
 * audio_embedding?}` with `segments[].float`; v1.2 also gives `text_embedding.float` (py 0.2 reads it).
 */
export function presentLegacyEmbedding(embedding: Embedding, shape: EmbedShape): Record<string, unknown> {
  const out: Record<string, unknown> = { [shape.modelField]: embedding.model_name };
  const text = embedding.text_embedding?.segments[0];
  if (text) {
    const vector = floats(text.vector);
    out.text_embedding = { segments: [{ float: vector }], ...(shape.textFloat ? { float: vector } : {}) };
  }
  if (embedding.image_embedding) {
    out.image_embedding = {
      segments: embedding.image_embedding.segments.map((s) => ({ float: floats(s.vector) })),
      metadata: metadataOf(embedding.image_embedding),
    };
  }
  if (embedding.audio_embedding) {
    out.audio_embedding = {
      segments: embedding.audio_embedding.segments.map((s) => ({
        float: floats(s.vector),
        start_offset_sec: s.start ?? 0,
        end_offset_sec: s.end ?? 0,
      })),
      metadata: metadataOf(embedding.audio_embedding),
    };
  }
  return out;
}

/** The set /embed-v2 answers with for its input type. */
function setOf(embedding: Embedding, inputType: string): EmbeddingSet | null {
  if (inputType === 'text') return embedding.text_embedding;
  if (inputType === 'image') return embedding.image_embedding;
  if (inputType === 'audio') return embedding.audio_embedding;
  if (inputType === 'video') return embedding.video_embedding;
  return embedding.text_image_embedding;
}

/** v1.3 calls the whole range's vector `asset` (embed-service's tasks and video: `video`). */
const scopeV2 = (scope: string) => (scope === 'video' ? 'asset' : scope);

/**
 * POST /embed-v2 (API-CONTRACT §5.8): `{data: [{embedding, embedding_option?, embedding_scope?,
 * start_sec?, end_sec?}], metadata?}`; metadata only for media (the SDK's metadata union has no text member).
 */
export function presentEmbeddingV2(embedding: Embedding, inputType: string): Record<string, unknown> {
  const set = setOf(embedding, inputType);
  const data = (set?.segments ?? []).map((s) => ({
    embedding: floats(s.vector),
    ...(s.embedding_option ? { embedding_option: s.embedding_option } : {}),
    ...(s.embedding_scope ? { embedding_scope: scopeV2(s.embedding_scope) } : {}),
    ...(s.start === undefined ? {} : { start_sec: s.start, end_sec: s.end }),
  }));
  if (inputType === 'text' || !set) return { data };
  const metadata: Record<string, unknown> = { input_type: inputType, ...metadataOf(set) };
  if (inputType === 'video') metadata.clip_length = set.metadata?.clip_length ?? 0;
  if (inputType === 'audio' || inputType === 'video') {
    const clips = set.segments.filter((s) => s.start !== undefined);
    const start = Math.min(...clips.map((s) => s.start ?? 0));
    const end = Math.max(...clips.map((s) => s.end ?? 0));
    Object.assign(metadata, {
      embedding_options: [...new Set(set.segments.map((s) => s.embedding_option).filter(Boolean))],
      embedding_scopes: [...new Set(set.segments.map((s) => scopeV2(s.embedding_scope)).filter(Boolean))],
      duration: clips.length > 0 ? end - start : 0,
      start_offset_sec: clips.length > 0 ? start : 0,
      end_offset_sec: clips.length > 0 ? end : 0,
    });
  }
  return { data, metadata };
}

const iso = (task: EmbedTask, field: 'created_at' | 'updated_at') => fromTimestamp(task[field])?.toISOString();

function taskMetadata(task: EmbedTask): Record<string, unknown> {
  const metadata = task.embedding?.metadata;
  return {
    ...(metadata?.input_url ? { input_url: metadata.input_url } : {}),
    ...(metadata?.input_filename ? { input_filename: metadata.input_filename } : {}),
    video_clip_length: metadata?.clip_length ?? 0,
    video_embedding_scope: metadata?.embedding_scopes ?? [],
    duration: metadata?.duration ?? 0,
  };
}

/** GET /embed/tasks/{id}/status and list items: no vectors. */
export function presentEmbedTaskSummary(task: EmbedTask, shape: EmbedShape): Record<string, unknown> {
  return {
    _id: task.id,
    [shape.modelField]: task.model_name,
    status: task.status,
    created_at: iso(task, 'created_at'),
    updated_at: iso(task, 'updated_at'),
    video_embedding: { metadata: taskMetadata(task) },
  };
}

/** The legacy name of an option (`visual` was `visual-text` before Marengo 3.0). */
const legacyOption = (option: string) => (option === 'visual' ? 'visual-text' : option);

/** How a model names its options: Marengo 3.0 as embed-service does (visual, audio, transcription), earlier ones `visual-text`. */
export const optionNamesOf = (model: string): ((option: string) => string) =>
  /^marengo[-\s]?3/i.test(model.trim()) ? (option) => option : legacyOption;

/** A video's clip vectors as embed tasks and video objects show them (API-CONTRACT §5.2, §5.8). */
/** `option` names each segment's option: the legacy name by default (embed tasks), as embedded for a video object. */
function presentVideoSegments(segments: readonly EmbeddingSegment[], option: (name: string) => string = legacyOption) {
  return segments.map((s) => ({
    float: floats(s.vector),
    start_offset_sec: s.start ?? 0,
    end_offset_sec: s.end ?? 0,
    embedding_scope: s.embedding_scope,
    embedding_option: option(s.embedding_option),
  }));
}

/** A video object's `embedding` (GET …/videos/{id} with `embed=true` or `embedding_option`). */
export function presentVideoEmbedding(embedding: Embedding, shape: EmbedShape): Record<string, unknown> {
  return {
    [shape.modelField]: embedding.model_name,
    // Labelled with the names asked (visual or visual-text, audio, transcription): embed-service keeps them.
    video_embedding: { segments: presentVideoSegments(embedding.video_embedding?.segments ?? [], (name) => name) },
  };
}

/**
 * GET /embed/tasks/{id}: `video_embedding.segments`; v1.2 also the early `video_embeddings` list
 * with `float` and `embedding.float` per item (js 0.2 and py 0.2 read those: API-CONTRACT §5.8).
 */
export function presentEmbedTask(task: EmbedTask, shape: EmbedShape): Record<string, unknown> {
  const segments = presentVideoSegments(task.embedding?.segments ?? [], optionNamesOf(task.model_name));
  const out: Record<string, unknown> = {
    ...presentEmbedTaskSummary(task, shape),
    video_embedding: { metadata: taskMetadata(task), segments },
  };
  if (task.status === 'failed' && task.error_message) out.error_message = task.error_message;
  if (shape.textFloat) {
    out.video_embeddings = segments.map((s) => ({
      start_offset_sec: s.start_offset_sec,
      end_offset_sec: s.end_offset_sec,
      embedding_scope: s.embedding_scope,
      float: s.float,
      embedding: { float: s.float },
    }));
  }
  return out;
}

export function presentEmbedTaskList(list: ListEmbedTasksResponse, shape: EmbedShape): Record<string, unknown> {
  return { data: list.data.map((task) => presentEmbedTaskSummary(task, shape)), page_info: list.page_info };
}

/**
 * GET /embed-v2/tasks/{id} and list items (API-CONTRACT §5.8): `data` once ready (each vector with
 * its option, scope — the whole range is `asset` — and times), `metadata`, `error` when failed.
 */
export function presentEmbedTaskV2(task: EmbedTask): Record<string, unknown> {
  const segments = task.embedding?.segments ?? [];
  const scopeOf = scopeV2;
  const metadata = task.embedding?.metadata;
  return {
    _id: task.id,
    status: task.status,
    created_at: iso(task, 'created_at'),
    updated_at: iso(task, 'updated_at'),
    data:
      task.status === 'ready' && segments.length > 0
        ? segments.map((s) => ({
            embedding: floats(s.vector),
            embedding_option: s.embedding_option === 'visual-text' ? 'visual' : s.embedding_option,
            embedding_scope: scopeOf(s.embedding_scope),
            start_sec: s.start ?? 0,
            end_sec: s.end ?? 0,
          }))
        : null,
    metadata: {
      input_type: task.input_type || 'video',
      ...(metadata?.input_url ? { input_url: metadata.input_url } : {}),
      ...(metadata?.input_filename ? { input_filename: metadata.input_filename } : {}),
      clip_length: metadata?.clip_length ?? 0,
      embedding_scopes: (metadata?.embedding_scopes ?? []).map(scopeOf),
      embedding_options: [...new Set(segments.map((s) => (s.embedding_option === 'visual-text' ? 'visual' : s.embedding_option)))],
      duration: metadata?.duration ?? 0,
    },
    ...(task.status === 'failed' ? { error: { message: task.error_message || 'The task failed.' } } : {}),
  };
}
