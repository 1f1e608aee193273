/**
 * An indexed video's embeddings (`embedding_option` on the video endpoints, API-CONTRACT §5.2):
 * clips of a fixed length, each embedded from what indexing saw and heard in it, in the same
 * space as /embed's text and image vectors of the same model name.
 */
import { errors } from '@vus/core';
import { CONCEPT_WEIGHTS, mergeConcepts, unionOfFrames, type ConceptBag, type ConceptEmbedder } from '@vus/models';
import { embeddingModel, embeddingModelOfIndex } from './model-names';
import type { ModalityEmbedding } from './embed';
import { clipWindows } from './tasks';

/** What indexing saw in one stretch of the video (search-service's segments). */
export interface IndexedSegment {
  start: number;
  end: number;
  modality: string;
  text: string;
  labels: readonly string[];
}

export interface ClipWindow {
  start: number;
  end: number;
  segments: IndexedSegment[];
}

/** The contract's default and range of `video_clip_length` (API-CONTRACT §5.8). */
export const VIDEO_CLIP_SECONDS = { default: 6, min: 2, max: 10 } as const;

/**
 * Which indexed modalities each option is made of. `visual` and `transcription` are Marengo 3.0's names
 * (twelvelabs-js 1.3.4 sends visual, audio, transcription, visual-text); an answer labels each clip with
 * the name asked. Transcription is the spoken words as text, which is what audio embeds here too (the
 * index keeps speech as text, not the sound), so the two give the same vectors.
 */
export const OPTION_MODALITIES: Readonly<Record<string, readonly string[]>> = {
  'visual-text': ['visual', 'text_in_video', 'logo'],
  visual: ['visual', 'text_in_video', 'logo'],
  audio: ['conversation'],
  transcription: ['conversation'],
};

/** The options embedded when none is asked (unchanged since Marengo 2.7). */
const DEFAULT_OPTIONS = ['visual-text', 'audio'];

/** At most this many clips per request (a 24-hour video at 2 s clips; the gRPC message bounds the rest). */
const MAX_CLIPS = 43_200;

/**
 * `[0, clip) [clip, 2·clip) …` up to `duration`, each with the segments that overlap it (a segment
 * of no length belongs to the clip it starts in). Pure.
 */
export function clipsWithSegments(duration: number, clipLength: number, segments: readonly IndexedSegment[]): ClipWindow[] {
  const windows: ClipWindow[] = clipWindows(0, duration, clipLength).map((w) => ({ ...w, segments: [] }));
  for (const segment of segments) {
    const first = Math.max(0, Math.floor(segment.start / clipLength));
    for (let i = first; i < windows.length; i += 1) {
      const window = windows[i] as ClipWindow;
      if (window.start >= segment.end && !(segment.end <= segment.start && i === first)) break;
      window.segments.push(segment);
    }
  }
  return windows;
}

export interface IndexedVideoRequest {
  /** An embedding model name, or the index's video model (marengo2.7), which stands for its embedding model. */
  modelName: string;
  options: readonly string[];
  duration: number;
  clipLength?: number | undefined;
  segments: readonly IndexedSegment[];
}

export interface IndexedVideoEmbedding {
  modelName: string;
  clipLength: number;
  /** Per option, in the order asked. */
  options: { option: string; embedding: ModalityEmbedding }[];
}

export function createIndexedVideoEmbedding(embedder: ConceptEmbedder) {
  /** What a clip shows: the union over its visual segments' labels (as frames), with on-screen text and logos. */
  function visualConcepts(segments: readonly IndexedSegment[]): ConceptBag {
    const frames = segments
      .filter((s) => s.modality === 'visual')
      .map((s) => s.labels.reduce((bag, label) => mergeConcepts(bag, embedder.labelConcepts(label)), new Map() as ConceptBag));
    const bag = unionOfFrames(frames);
    for (const s of segments) {
      if (s.modality === 'text_in_video') mergeConcepts(bag, embedder.textConcepts(s.text), CONCEPT_WEIGHTS.onScreenText);
      if (s.modality === 'logo') mergeConcepts(bag, embedder.labelConcepts(s.text || s.labels.join(' ')));
    }
    return bag;
  }

  function speechConcepts(segments: readonly IndexedSegment[]): ConceptBag {
    return embedder.textConcepts(
      segments
        .filter((s) => s.modality === 'conversation')
        .map((s) => s.text)
        .join(' '),
    );
  }

  return {
    embed(request: IndexedVideoRequest): IndexedVideoEmbedding {
      const model = /^marengo\d/i.test(request.modelName) ? embeddingModelOfIndex(request.modelName) : embeddingModel(request.modelName);
      const clipLength = request.clipLength ?? VIDEO_CLIP_SECONDS.default;
      if (!(clipLength >= VIDEO_CLIP_SECONDS.min && clipLength <= VIDEO_CLIP_SECONDS.max))
        throw errors.invalid(
          'video_clip_length',
          `The clip length must be between ${VIDEO_CLIP_SECONDS.min} and ${VIDEO_CLIP_SECONDS.max} seconds.`,
        );
      const options = request.options.length > 0 ? [...new Set(request.options)] : DEFAULT_OPTIONS;
      const unknown = options.find((o) => !Object.hasOwn(OPTION_MODALITIES, o));
      if (unknown !== undefined)
        throw errors.invalid(
          'embedding_option',
          `Unknown option ${JSON.stringify(unknown.slice(0, 32))}; use ${Object.keys(OPTION_MODALITIES).join(', ')}.`,
        );
      const duration = Number.isFinite(request.duration) && request.duration > 0 ? request.duration : 0;
      if (duration / clipLength > MAX_CLIPS) throw errors.invalid('video_clip_length', 'The video is too long for clips this short.');
      const windows = clipsWithSegments(duration, clipLength, request.segments);
      return {
        modelName: model.name,
        clipLength,
        options: options.map((option) => ({
          option,
          embedding: {
            segments: windows.map((w) => ({
              vector: embedder.embed(
                OPTION_MODALITIES[option]?.includes('conversation') ? speechConcepts(w.segments) : visualConcepts(w.segments),
                model.dimensions,
              ),
              start: w.start,
              end: w.end,
              scope: 'clip',
            })),
          },
        })),
      };
    },
  };
}

export type IndexedVideoEmbedder = ReturnType<typeof createIndexedVideoEmbedding>;
