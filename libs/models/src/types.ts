/**
 * The capabilities the indexing pipeline asks for, one small interface each. Providers implement
 * them; callers only ever see these types (and get them from a `ModelRegistry`).
 */

/** An encoded image (JPEG, PNG, WebP …) in memory, or the path of an image file. */
export type ImageInput = Buffer | string;

/** An axis-aligned rectangle in pixels of the image that was analysed, origin top-left. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

// ---------------------------------------------------------------------------------------------
// Text in video

export interface RecognisedWord {
  readonly text: string;
  /** Mean per-character probability, 0–1. */
  readonly confidence: number;
  readonly box: Box;
}

export interface RecognisedLine {
  /** The line's words joined by single spaces. */
  readonly text: string;
  readonly confidence: number;
  readonly box: Box;
  readonly words: readonly RecognisedWord[];
}

export interface TextReader {
  /** Lines of text found in the image, top to bottom, then left to right. */
  readText(image: ImageInput): Promise<RecognisedLine[]>;
}

// ---------------------------------------------------------------------------------------------
// Objects and faces

export interface DetectedObject {
  /** A COCO-80 label in lower case, e.g. `person`, `traffic light`. */
  readonly label: string;
  readonly score: number;
  readonly box: Box;
}

export interface ObjectDetector {
  /** Objects scoring at least the detector's threshold, best first. */
  detectObjects(image: ImageInput): Promise<DetectedObject[]>;
}

/** A point in pixels of the image that was analysed. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** The face points a recogniser aligns a face by (the centres of the eyes and of the mouth). */
export interface FaceLandmarks {
  readonly leftEye: Point;
  readonly rightEye: Point;
  readonly mouth: Point;
}

export interface DetectedFace {
  readonly score: number;
  readonly box: Box;
  /** Where the detector gives them (BlazeFace does). */
  readonly landmarks?: FaceLandmarks | undefined;
}

export interface FaceDetector {
  /** Faces scoring at least the detector's threshold, best first. */
  detectFaces(image: ImageInput): Promise<DetectedFace[]>;
}

export interface EmbeddedFace extends DetectedFace {
  /** Who the face is: one person's faces lie close together (faceDistance, FACE_MATCH_THRESHOLD). */
  readonly embedding: Float32Array;
}

export interface FaceEmbedder {
  /** Length of every embedding. */
  readonly dimensions: number;
  /** Each face found (at least the embedder's detection threshold), best first, with its embedding. */
  embedFaces(image: ImageInput): Promise<EmbeddedFace[]>;
  /**
   * The faces a face detector already found in this image (its boxes and landmarks), embedded
   * without looking for faces again: one per face, in their order.
   */
  embedDetectedFaces(image: ImageInput, faces: readonly DetectedFace[]): Promise<EmbeddedFace[]>;
}

// ---------------------------------------------------------------------------------------------
// One embedding space for images and text

export interface VisualEmbedder {
  /** Length of every vector this embedder returns. */
  readonly dimensions: number;
  /** An L2-normalised vector for the image. */
  embedImage(image: ImageInput): Promise<Float32Array>;
  /** An L2-normalised vector for the text, in the same space as `embedImage`. */
  embedText(text: string): Promise<Float32Array>;
}

// ---------------------------------------------------------------------------------------------
// One embedding space for sounds and text

export interface AudioEmbedder {
  /** Length of every vector this embedder returns. */
  readonly dimensions: number;
  /** The sample rate `embedAudio` expects, Hz (CLAP: 48 kHz). */
  readonly sampleRate: number;
  /** An L2-normalised vector for mono PCM samples in -1…1 at `sampleRate`. */
  embedAudio(samples: Float32Array): Promise<Float32Array>;
  /** An L2-normalised vector for the text, in the same space as `embedAudio`. */
  embedText(text: string): Promise<Float32Array>;
}

// ---------------------------------------------------------------------------------------------
// Speech

/** A stretch of speech; times in seconds from the start of the audio. */
export interface SpeechSegment {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** ISO 639-1 code of the speech, where the recogniser knows it (its model's, or the one asked for). */
  readonly language?: string;
}

export interface TranscribeOptions {
  /** ISO 639-1 code (`en`, `fr` …); the model's default when absent. */
  readonly language?: string;
  /** Stops the recognition (the task was cancelled or its lease lost). */
  readonly signal?: AbortSignal | undefined;
}

export interface SpeechRecognizer {
  /** The ISO 639-1 languages it recognises; absent: any (the model detects or is told). */
  readonly languages?: readonly string[];
  /** Mono 16 kHz PCM samples in -1…1 (what libs/media's audio extraction yields), or a WAV file path. */
  transcribe(audio: Float32Array | string, options?: TranscribeOptions): Promise<SpeechSegment[]>;
}

// ---------------------------------------------------------------------------------------------
// The registry's vocabulary

export interface CapabilityTypes {
  text_reader: TextReader;
  object_detector: ObjectDetector;
  face_detector: FaceDetector;
  face_embedder: FaceEmbedder;
  visual_embedder: VisualEmbedder;
  audio_embedder: AudioEmbedder;
  speech_recognizer: SpeechRecognizer;
}

export type Capability = keyof CapabilityTypes;

export const CAPABILITIES: readonly Capability[] = [
  'text_reader',
  'object_detector',
  'face_detector',
  'face_embedder',
  'visual_embedder',
  'audio_embedder',
  'speech_recognizer',
];

/**
 * - `available`: its files are present; it loads on first use.
 * - `loaded`: in memory and ready.
 * - `unavailable`: cannot load here; `reason` says why (missing files, load error).
 */
export type ProviderState = 'available' | 'loaded' | 'unavailable';

export interface ProviderStatus {
  readonly capability: Capability;
  /** Stable provider name, e.g. `paddleocr-v4`, `clip`. */
  readonly provider: string;
  /** What it runs: a package and model file, or a Hugging Face model id. */
  readonly model: string;
  /** `bundled` ships with npm install; `downloadable` needs files in MODELS_DIR. */
  readonly kind: 'bundled' | 'downloadable';
  readonly state: ProviderState;
  readonly reason?: string;
}

/** Something that can be freed: sessions, tensors, WASM memory. */
export interface Disposable {
  dispose(): Promise<void>;
}
