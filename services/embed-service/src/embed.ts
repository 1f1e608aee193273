/**
 * Embeddings of text, images, audio and text+image with the bundled concept embedding, sized per
 * model name. Pure of transport: server.ts maps the proto, the media arrive as bytes.
 */
import { ApiError, errors } from '@vus/core';
import { describeImage, mergeConcepts, type ConceptBag, type ConceptEmbedder, type ProviderStatus, type TimeSpan } from '@vus/models';
import { embeddingModel, EMBEDDING_MODELS } from './model-names';
import { truncateText } from './text';
import type { DecodedAudio } from './audio';

/** Limits of a synchronous request (the real API: media under about 10 minutes, images up to 5 MB). */
export const SYNC_LIMITS = {
  imageBytes: 5 * 1024 * 1024,
  audioBytes: 100 * 1024 * 1024,
  audioSeconds: 600,
  /** Seconds per audio segment (the real API's legacy audio embeddings are 10 s segments). */
  audioSegmentSec: 10,
  minImageSide: 8,
} as const;

export interface MediaInput {
  bytes: Buffer;
  /** Echoed in the metadata. */
  url?: string;
  filename?: string;
}

export interface EmbeddingRequest {
  modelName: string;
  text?: string;
  textTruncate?: string;
  image?: MediaInput;
  /** multi_input: the images after `image`; `textImage` then fuses the text (if any) and every image. */
  moreImages?: readonly MediaInput[];
  audio?: MediaInput;
  startSec?: number;
  endSec?: number;
  /** Seconds per audio segment. */
  clipLength?: number;
  /** Audio: `clip` (segments, the default) and/or `asset` (one vector for the whole span). */
  scopes?: readonly string[];
  /** Audio: `audio` (the default); `transcription` needs a speech recogniser this server does not bundle. */
  options?: readonly string[];
  /** Aborted when the caller goes away or its deadline passes: stops the audio's speech recognition. */
  signal?: AbortSignal | undefined;
}

export interface Segment {
  vector: Float32Array;
  start?: number;
  end?: number;
  /** `clip` or `asset` for audio segments. */
  scope?: string;
}

export interface ModalityEmbedding {
  segments: Segment[];
  inputUrl?: string;
  inputFilename?: string;
}

export interface EmbeddingResult {
  modelName: string;
  inputType: 'text' | 'image' | 'audio' | 'text_image';
  text?: ModalityEmbedding;
  image?: ModalityEmbedding;
  audio?: ModalityEmbedding;
  /** Text and image in one vector (input_type text_image). */
  textImage?: ModalityEmbedding;
}

/** What one served embedding counts for metering. */
export interface Usage {
  modelName: string;
  inputType: string;
  /** Seconds of audio embedded (0 for text and images). */
  mediaSeconds: number;
}

export interface UsageStore {
  /** The usage row and its `usage.recorded` events (`embeddingUsage`, usage.ts), in one transaction. */
  record(orgId: string, usage: Usage): Promise<void>;
}

export interface EmbedDeps {
  embedder: ConceptEmbedder;
  usage: UsageStore;
  decodeAudio(bytes: Buffer, startSec: number, maxSec: number, param: string): Promise<DecodedAudio>;
  providers(): Promise<ProviderStatus[]>;
}

export function createEmbedService(deps: EmbedDeps) {
  const { embedder } = deps;

  async function imageConcepts(image: MediaInput): Promise<ConceptBag> {
    if (image.bytes.length > SYNC_LIMITS.imageBytes) {
      throw new ApiError('payload_too_large', `The image is ${image.bytes.length} bytes; at most ${SYNC_LIMITS.imageBytes} are accepted.`, {
        param: 'image',
      });
    }
    const facts = await describeImage(image.bytes);
    if (!facts || facts.format === 'other')
      throw new ApiError('unsupported_file_type', 'The image is not a JPEG, PNG, WebP or GIF image.', { param: 'image' });
    if (Math.min(facts.width, facts.height) < SYNC_LIMITS.minImageSide)
      throw errors.invalid(
        'image',
        `The image is ${facts.width}×${facts.height}; each side must be at least ${SYNC_LIMITS.minImageSide} pixels.`,
      );
    return embedder.imageConcepts(image.bytes);
  }

  async function audioSegments(audio: MediaInput, request: EmbeddingRequest, dimensions: number): Promise<Segment[]> {
    if (audio.bytes.length > SYNC_LIMITS.audioBytes) {
      throw new ApiError('payload_too_large', `The audio is ${audio.bytes.length} bytes; at most ${SYNC_LIMITS.audioBytes} are accepted.`, {
        param: 'audio',
      });
    }
    const start = request.startSec ?? 0;
    if (!(start >= 0)) throw errors.invalid('audio_start_offset_sec', 'It must be 0 or more.');
    if (request.endSec !== undefined && !(request.endSec > start)) throw errors.invalid('end_sec', 'It must be after the start.');
    const wanted = request.endSec === undefined ? SYNC_LIMITS.audioSeconds : request.endSec - start;
    if (wanted > SYNC_LIMITS.audioSeconds)
      throw errors.invalid(
        'end_sec',
        `A synchronous embedding takes at most ${SYNC_LIMITS.audioSeconds} s of audio; use an embed task for longer media.`,
      );
    const segmentSec = request.clipLength ?? SYNC_LIMITS.audioSegmentSec;
    if (!(segmentSec >= 1 && segmentSec <= SYNC_LIMITS.audioSeconds))
      throw errors.invalid('segmentation', `The segment length must be between 1 and ${SYNC_LIMITS.audioSeconds} seconds.`);
    const scopes = request.scopes && request.scopes.length > 0 ? request.scopes : ['clip'];
    const unknownScope = scopes.find((scope) => scope !== 'clip' && scope !== 'asset');
    if (unknownScope !== undefined) throw errors.invalid('embedding_scope', 'Use clip and/or asset.');
    const options = request.options && request.options.length > 0 ? request.options : ['audio'];
    if (options.some((option) => option !== 'audio' && option !== 'transcription'))
      throw errors.invalid('embedding_option', 'Use audio and/or transcription.');
    if (options.includes('transcription'))
      throw new ApiError('not_implemented', 'Transcription embeddings need a speech recogniser, and none is loaded on this server.', {
        param: 'embedding_option',
      });
    const decoded = await deps.decodeAudio(audio.bytes, start, wanted, 'audio');
    const rate = decoded.samples.length / Math.max(decoded.durationSec, 1e-9);
    const spans: (TimeSpan & { scope: 'clip' | 'asset' })[] = [];
    if (scopes.includes('clip')) {
      for (let at = 0; at < decoded.durationSec - 1e-6; at += segmentSec)
        spans.push({ start: at, end: Math.min(decoded.durationSec, at + segmentSec), scope: 'clip' });
    }
    if (scopes.includes('asset')) spans.push({ start: 0, end: decoded.durationSec, scope: 'asset' });
    // One recognition of the audio for every span (ConceptEmbedder.audioConcepts), stopped if the caller goes away.
    request.signal?.throwIfAborted();
    const bags = await embedder.audioConcepts(decoded.samples, rate, spans, request.signal);
    return spans.map((span, i) => ({
      vector: embedder.embed(bags[i]!, dimensions),
      start: start + span.start,
      end: start + span.end,
      scope: span.scope,
    }));
  }

  return {
    async createEmbedding(orgId: string, request: EmbeddingRequest): Promise<EmbeddingResult> {
      const model = embeddingModel(request.modelName);
      const hasText = request.text !== undefined && request.text !== '';
      if (!hasText && !request.image && !request.audio)
        throw new ApiError('parameter_not_provided', 'Provide at least one input: text, an image or audio.', { param: 'text' });
      const text = hasText ? truncateText(request.text ?? '', model.maxTextTokens, request.textTruncate ?? '') : undefined;
      const result: EmbeddingResult = {
        modelName: model.name,
        inputType: request.audio ? 'audio' : request.image ? (text ? 'text_image' : 'image') : 'text',
      };
      const textBag = text === undefined ? undefined : embedder.textConcepts(text);
      if (textBag) result.text = { segments: [{ vector: embedder.embed(textBag, model.dimensions) }] };
      if (request.image) {
        const imageBag = await imageConcepts(request.image);
        result.image = { segments: [{ vector: embedder.embed(imageBag, model.dimensions) }], ...source(request.image) };
        const more: ConceptBag[] = [];
        for (const image of request.moreImages ?? []) more.push(await imageConcepts(image));
        if (textBag || more.length > 0) {
          const fused = [textBag, imageBag, ...more].reduce<ConceptBag>((all, bag) => (bag ? mergeConcepts(all, bag) : all), new Map());
          result.textImage = { segments: [{ vector: embedder.embed(fused, model.dimensions) }] };
        }
      }
      if (request.audio)
        result.audio = { segments: await audioSegments(request.audio, request, model.dimensions), ...source(request.audio) };
      const mediaSeconds = (result.audio?.segments ?? [])
        .filter((s) => s.scope === 'clip')
        .reduce((sum, s) => sum + ((s.end ?? 0) - (s.start ?? 0)), 0);
      await deps.usage.record(orgId, { modelName: model.name, inputType: result.inputType, mediaSeconds });
      return result;
    },

    /** Query vectors for search (text or image), in the same space as the stored ones. */
    async embedQuery(
      modelName: string,
      inputs: ({ text: string } | { image: Buffer })[],
    ): Promise<{ modelName: string; vectors: Float32Array[] }> {
      const model = embeddingModel(modelName);
      const vectors: Float32Array[] = [];
      for (const input of inputs) {
        const bag = 'text' in input ? embedder.textConcepts(input.text) : await imageConcepts({ bytes: input.image });
        vectors.push(embedder.embed(bag, model.dimensions));
      }
      return { modelName: model.name, vectors };
    },

    async models() {
      return { models: EMBEDDING_MODELS, providers: await deps.providers() };
    },
  };
}

function source(media: MediaInput): Pick<ModalityEmbedding, 'inputUrl' | 'inputFilename'> {
  return { ...(media.url ? { inputUrl: media.url } : {}), ...(media.filename ? { inputFilename: media.filename } : {}) };
}

export type EmbedService = ReturnType<typeof createEmbedService>;
