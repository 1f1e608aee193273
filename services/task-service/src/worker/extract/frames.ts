import { FrameChangeDetector, sampleFrames, type MediaProbe } from '@vus/media';
import type { FaceDetector, ObjectDetector, TextReader, VisualEmbedder } from '@vus/models';
import type { FrameObservation } from './timeline';

/** The models that look at frames; an absent one is not run. */
export interface FrameModels {
  textReader?: TextReader | undefined;
  objectDetector?: ObjectDetector | undefined;
  faceDetector?: FaceDetector | undefined;
  embedder?: VisualEmbedder | undefined;
}

export interface FrameAnalysisOptions {
  /** Frames sampled per second of video. */
  fps: number;
  /**
   * Width frames are decoded at (never upscaled). PaddleOCR's text detector works at ≤ 960 px and
   * the COCO detector downscales to 512 px itself, so a larger frame only costs decoding.
   */
  width: number;
  /** Keyframes kept as thumbnails at most (spread over the video). */
  maxThumbnails: number;
  signal?: AbortSignal | undefined;
  /** Called after each sampled frame with the position reached, seconds. */
  onProgress?: ((positionSec: number) => void) | undefined;
}

export interface FrameAnalysis {
  /** One per sampled frame; `changed` frames were analysed, the others reuse the last results. */
  observations: (FrameObservation & { changed: boolean })[];
  /** Vectors of the analysed frames, when an embedder ran. */
  vectors: { timeSec: number; vector: Float32Array }[];
  /** JPEG keyframes (the first frame of a scene), at most `maxThumbnails`. */
  thumbnails: { timeSec: number; jpeg: Buffer }[];
  /** Seconds of video a sampled frame stands for. */
  step: number;
  /** Wall-clock milliseconds spent per model and decoding, for the benchmark. */
  timings: Record<'decode' | 'text' | 'objects' | 'faces' | 'embedding', number>;
  analysedFrames: number;
}

/** Keeps the memory bounded while scanning: past 2×max items, every other one goes. */
function decimate<T>(items: T[], max: number): T[] {
  return items.length >= 2 * max ? items.filter((_, i) => i % 2 === 0) : items;
}

/** At most `max` items, evenly spaced over the sequence, first one included. */
export function spread<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  return Array.from({ length: max }, (_, i) => items[Math.floor((i * items.length) / max)]!);
}

/**
 * One pass over the video's frames for every frame-based extractor. Frames that did not change
 * (FrameChangeDetector) are not analysed again: they carry the last analysed frame's results,
 * which is what makes OCR and detection affordable (about 0.5 s per 720p frame each).
 */
export async function analyseFrames(
  file: string,
  probe: MediaProbe,
  models: FrameModels,
  options: FrameAnalysisOptions,
): Promise<FrameAnalysis> {
  const timings = { decode: 0, text: 0, objects: 0, faces: 0, embedding: 0 };
  const timed = async <T>(key: keyof typeof timings, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings[key] += performance.now() - started;
    }
  };
  const changes = new FrameChangeDetector();
  const observations: FrameAnalysis['observations'] = [];
  const vectors: FrameAnalysis['vectors'] = [];
  let thumbnails: FrameAnalysis['thumbnails'] = [];
  let last: FrameObservation = { timeSec: 0, lines: [], labels: [] };
  let analysedFrames = 0;

  const frames = sampleFrames(file, { fps: options.fps, width: options.width, probe, signal: options.signal });
  for (;;) {
    const next = await timed('decode', () => frames.next());
    if (next.done) break;
    const frame = next.value;
    const changed = changes.hasChanged(frame.signature);
    if (changed) {
      analysedFrames++;
      const lines = models.textReader ? await timed('text', () => models.textReader!.readText(frame.data)) : [];
      const objects = models.objectDetector ? await timed('objects', () => models.objectDetector!.detectObjects(frame.data)) : [];
      const faces = models.faceDetector ? await timed('faces', () => models.faceDetector!.detectFaces(frame.data)) : [];
      if (models.embedder)
        vectors.push({ timeSec: frame.timeSec, vector: await timed('embedding', () => models.embedder!.embedImage(frame.data)) });
      last = {
        timeSec: frame.timeSec,
        lines: lines.map((l) => ({ text: l.text, confidence: l.confidence })),
        labels: [...new Set([...objects.map((o) => o.label), ...(faces.length > 0 ? ['face'] : [])])],
      };
      thumbnails = decimate([...thumbnails, { timeSec: frame.timeSec, jpeg: frame.data }], options.maxThumbnails);
    }
    observations.push({ ...last, timeSec: frame.timeSec, changed });
    options.onProgress?.(frame.timeSec);
  }
  return {
    observations,
    vectors,
    thumbnails: spread(thumbnails, options.maxThumbnails),
    step: 1 / options.fps,
    timings,
    analysedFrames,
  };
}
