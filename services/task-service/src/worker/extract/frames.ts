import { FrameChangeDetector, sampleFrames, type MediaProbe } from '@vus/media';
import {
  tentativeLabels,
  type DetectedFace,
  type DetectedObject,
  type EmbeddedFace,
  type FaceDetector,
  type FaceEmbedder,
  type ObjectDetector,
  type TextReader,
} from '@vus/models';
import type { FrameObservation } from './timeline';
import { reusedEmbeddings, type CarriedFace, type FrameFaces } from './face-tracks';
import { objectsDue, PICTURE_CHANGE, recheckDue, withinPictureDue } from './frame-gates';

/** The models that look at frames; an absent one is not run. */
export interface FrameModels {
  textReader?: TextReader | undefined;
  objectDetector?: ObjectDetector | undefined;
  faceDetector?: FaceDetector | undefined;
  /**
   * Face embeddings for entity search (face-tracks.ts): of the face detector's faces (its boxes, no
   * detection of its own), each embedded once while its box stays in place (reusedEmbeddings).
   */
  faceEmbedder?: FaceEmbedder | undefined;
  /** Clip vectors (embed-service); undefined for a frame when it gives none. */
  embedder?: { embedImage(jpeg: Buffer): Promise<Float32Array | undefined> } | undefined;
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
  /**
   * One per sampled frame; `changed` frames (the picture changed) were analysed, a few others had
   * their text read again (recheckDue), the others reuse the last results.
   */
  observations: (FrameObservation & { changed: boolean })[];
  /** Vectors of the analysed frames, when an embedder ran. */
  vectors: { timeSec: number; vector: Float32Array }[];
  /** JPEG keyframes (the first frame of a scene), at most `maxThumbnails`. */
  thumbnails: { timeSec: number; jpeg: Buffer }[];
  /** Each sampled frame's embedded faces (an unchanged frame carries the last analysed one's), for face tracks. */
  faces: FrameFaces[];
  /** Seconds of video a sampled frame stands for. */
  step: number;
  /** Wall-clock milliseconds spent per model and waiting for frames, for the benchmark (a frame's models overlap). */
  timings: Record<'decode' | 'text' | 'objects' | 'faces' | 'embedding', number>;
  analysedFrames: number;
  /** Analysed frames the object detector ran on (objectsDue); the others carry its last objects. */
  objectFrames: number;
  /** Analysed frames text, faces and the vector were looked for on (withinPictureDue); the others carry the last ones. */
  withinPictureFrames: number;
  /** Frames of still stretches whose text was read again (recheckDue). */
  recheckedFrames: number;
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
 * which is what makes OCR and detection affordable (about 0.5 s per 720p frame each). The change
 * detector misses text that appears slowly or small on a still picture (a title fading in, a small
 * credit line: under 1 % of the frame), so still stretches have their text read again (recheckDue).
 *
 * It is the change detector, not ffmpeg's scene score (libs/media detectShots), that finds the
 * shots here: on the SDK's 160 s example (BBC footage, split screens) the scene score found one cut,
 * between two dark cards none, and it costs a decoding pass of its own (8 s on the 60 s benchmark
 * video, 14 s on the example, on a busy 2-core machine).
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
  const step = 1 / options.fps;
  const changes = new FrameChangeDetector();
  const pictureChanges = new FrameChangeDetector(PICTURE_CHANGE);
  let lastObjects: DetectedObject[] = [];
  let objectsRunSec = -Infinity;
  let objectFrames = 0;
  let withinPictureRunSec = -Infinity;
  let withinPictureFrames = 0;
  let lastDetectedFaces: DetectedFace[] = [];
  let lastVector: Float32Array | undefined;
  const observations: FrameAnalysis['observations'] = [];
  const vectors: FrameAnalysis['vectors'] = [];
  let thumbnails: FrameAnalysis['thumbnails'] = [];
  let last: FrameObservation = { timeSec: 0, lines: [], labels: [] };
  let analysedFrames = 0;
  let recheckedFrames = 0;
  const frameFaces: FrameFaces[] = [];
  let lastFaces: CarriedFace[] = [];
  /** lastFaces without their bookkeeping, as every frame until the next analysed one reports them. */
  let carriedFaces: EmbeddedFace[] = [];
  /** When the picture last changed (the change detector's last frame let through). */
  let stillSince = 0;

  const frames = sampleFrames(file, { fps: options.fps, width: options.width, probe, signal: options.signal });
  // One frame decoded ahead: ffmpeg works on the next frame while the models look at this one.
  const ahead = () => {
    const decoding = frames.next();
    // Handled when awaited, which may be after it fails (ffmpeg killed while the models run).
    decoding.catch(() => undefined);
    return decoding;
  };
  let decoding = ahead();
  for (;;) {
    const next = await timed('decode', () => decoding);
    if (next.done) break;
    decoding = ahead();
    const frame = next.value;
    const changed = changes.hasChanged(frame.signature);
    if (changed) stillSince = frame.timeSec;
    if (!changed && models.textReader && recheckDue(frame.timeSec, last.timeSec, stillSince, step)) {
      recheckedFrames++;
      const lines = await timed('text', () => models.textReader!.readText(frame.data));
      last = { ...last, timeSec: frame.timeSec, lines: lines.map((l) => ({ text: l.text, confidence: l.confidence })) };
    }
    if (changed) {
      analysedFrames++;
      const pictureChanged = pictureChanges.hasChanged(frame.signature);
      const runObjects = models.objectDetector !== undefined && objectsDue(pictureChanged, frame.timeSec, objectsRunSec, step);
      if (runObjects) {
        objectFrames++;
        objectsRunSec = frame.timeSec;
      }
      // Text, faces and the vector mostly stay within one picture: looked for again on a new one or every 2 s.
      const runWithinPicture = withinPictureDue(pictureChanged, frame.timeSec, withinPictureRunSec, step);
      if (runWithinPicture) {
        withinPictureFrames++;
        withinPictureRunSec = frame.timeSec;
      }
      // The frame's models at once, each on a core of its own when one is free: OCR on
      // onnxruntime's threads, objects and faces in their TF.js threads, the vector in embed-service.
      const [lines, objects, faces, vector] = await Promise.all([
        models.textReader && runWithinPicture ? timed('text', () => models.textReader!.readText(frame.data)) : last.lines,
        runObjects ? timed('objects', () => models.objectDetector!.detectObjects(frame.data)) : lastObjects,
        models.faceDetector && runWithinPicture ? timed('faces', () => models.faceDetector!.detectFaces(frame.data)) : lastDetectedFaces,
        models.embedder && runWithinPicture ? timed('embedding', () => models.embedder!.embedImage(frame.data)) : lastVector,
      ]);
      [lastObjects, lastDetectedFaces, lastVector] = [objects, faces, vector];
      if (vector) vectors.push({ timeSec: frame.timeSec, vector });
      if (models.faceEmbedder && (runWithinPicture || !models.faceDetector)) {
        // After this frame's detection, from the last analysed frame's faces: the reuse follows frame order.
        lastFaces = models.faceDetector
          ? await embedDetected(models.faceEmbedder, frame, faces, lastFaces, pictureChanged, step, timed)
          : (await timed('faces', () => models.faceEmbedder!.embedFaces(frame.data))).map((f) => ({ ...f, embeddedSec: frame.timeSec }));
        carriedFaces = lastFaces.map(({ embeddedSec: _, ...face }) => face);
      }
      last = {
        timeSec: frame.timeSec,
        lines: lines.map((l) => ({ text: l.text, confidence: l.confidence })),
        labels: [...new Set([...objects.map((o) => o.label), ...(faces.length > 0 ? ['face'] : [])])],
        tentativeLabels: tentativeLabels(objects),
      };
      thumbnails = decimate([...thumbnails, { timeSec: frame.timeSec, jpeg: frame.data }], options.maxThumbnails);
    }
    observations.push({ ...last, timeSec: frame.timeSec, changed });
    // Unchanged frames share the last analysed frame's faces (one array, read only).
    if (carriedFaces.length > 0) frameFaces.push({ timeSec: frame.timeSec, faces: carriedFaces });
    options.onProgress?.(frame.timeSec);
  }
  return {
    observations,
    vectors,
    thumbnails: spread(thumbnails, options.maxThumbnails),
    faces: frameFaces,
    step,
    timings,
    analysedFrames,
    objectFrames,
    withinPictureFrames,
    recheckedFrames,
  };
}

/**
 * The analysed frame's faces, each with an embedding: carried from the last analysed frame where
 * the face stayed in place (reusedEmbeddings), made from the detector's box for the others; none
 * made on a frame without faces.
 */
async function embedDetected(
  embedder: FaceEmbedder,
  frame: { timeSec: number; data: Buffer },
  faces: readonly DetectedFace[],
  carried: readonly CarriedFace[],
  pictureChanged: boolean,
  step: number,
  timed: <T>(key: 'faces', work: () => Promise<T>) => Promise<T>,
): Promise<CarriedFace[]> {
  const reused = reusedEmbeddings(faces, carried, pictureChanged, frame.timeSec, step);
  const fresh = faces.filter((_, i) => reused[i] === undefined);
  const embedded = fresh.length > 0 ? await timed('faces', () => embedder.embedDetectedFaces(frame.data, fresh)) : [];
  let next = 0;
  return faces.map((face, i) => {
    const previous = reused[i] === undefined ? undefined : carried[reused[i]];
    if (previous) return { ...face, embedding: previous.embedding, embeddedSec: previous.embeddedSec };
    return { ...embedded[next++]!, embeddedSec: frame.timeSec };
  });
}
