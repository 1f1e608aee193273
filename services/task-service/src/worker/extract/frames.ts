import { FrameChangeDetector, MediaError, sampleFrames, type MediaProbe, type SampledFrame } from '@vus/media';
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
import { FIRST_FRAME_GATES, PICTURE_CHANGE, planFrame, type FramePlan } from './frame-gates';
import { Lane } from './lanes';

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
 * JPEG frames decoded and not yet assembled into observations, the one ffmpeg is decoding included.
 * The models take their frames in order each on its own (a lane each), so the fastest may run up to
 * this many frames ahead of the slowest: room for a model's slow frames (OCR of a frame full of text)
 * to be made up while the others go on, and memory stays at a few JPEGs (tens of kB each at 960 px)
 * whatever the video's length. The thumbnails kept are apart from these (maxThumbnails).
 */
export const FRAMES_IN_FLIGHT = 8;

/** A decoded frame, its plan and its due models' calls (undefined where a model carries its last result). */
interface PlannedFrame {
  timeSec: number;
  data: Buffer;
  plan: FramePlan;
  lines: Promise<readonly TextLine[]> | undefined;
  objects: Promise<DetectedObject[]> | undefined;
  faces: Promise<SeenFaces> | undefined;
  vector: Promise<Float32Array | undefined> | undefined;
}

type TextLine = { text: string; confidence: number };

/** The face lane's result on a frame: what the detector found, and the faces embedded (reused or new). */
interface SeenFaces {
  detected: DetectedFace[] | undefined;
  embedded: CarriedFace[] | undefined;
}

/**
 * One pass over the video's frames for every frame-based extractor. Frames that did not change
 * (FrameChangeDetector) are not analysed again: they carry the last analysed frame's results,
 * which is what makes OCR and detection affordable (about 0.5 s per 720p frame each). The change
 * detector misses text that appears slowly or small on a still picture (a title fading in, a small
 * credit line: under 1 % of the frame), so still stretches have their text read again (recheckDue).
 *
 * The gates (frame-gates.ts planFrame) need only the frames' signatures and times, so each frame is
 * planned as it is decoded; then each model works through its own due frames in order (a Lane each:
 * OCR on onnxruntime's threads, objects and faces in their TF.js threads, the vector in
 * embed-service), up to FRAMES_IN_FLIGHT frames ahead of the slowest, instead of every frame
 * waiting for its slowest model. Observations are assembled in frame order from each model's
 * results, a model's last result carried to the frames it skipped.
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
  // Aborted on the first failure (a model's, ffmpeg's) or the caller's cancel: ffmpeg is killed and
  // the lanes start no further call.
  const stop = new AbortController();
  const cancel = () => stop.abort(new MediaError('aborted', 'The frame pass was cancelled.'));
  if (options.signal?.aborted) cancel();
  options.signal?.addEventListener('abort', cancel, { once: true });

  const present = {
    text: models.textReader !== undefined,
    objects: models.objectDetector !== undefined,
    faces: models.faceDetector !== undefined,
    faceEmbedder: models.faceEmbedder !== undefined,
    vector: models.embedder !== undefined,
  };
  const lanes = { text: new Lane(stop), objects: new Lane(stop), faces: new Lane(stop), vector: new Lane(stop) };
  const changes = new FrameChangeDetector();
  const pictureChanges = new FrameChangeDetector(PICTURE_CHANGE);
  let gates = FIRST_FRAME_GATES;
  /** The face lane's last embedded faces: a face that stays in place keeps its embedding (reusedEmbeddings). */
  let embeddedFaces: CarriedFace[] = [];

  /** Plans a decoded frame and hands it to the lanes of its due models. */
  const start = (frame: SampledFrame): PlannedFrame => {
    const changed = changes.hasChanged(frame.signature);
    const pictureChanged = changed && pictureChanges.hasChanged(frame.signature);
    const planned = planFrame(gates, { timeSec: frame.timeSec, changed, pictureChanged }, present, step);
    gates = planned.state;
    const { plan } = planned;
    const data = frame.data;
    const seeFaces = async (): Promise<SeenFaces> => {
      const detected = plan.faces ? await timed('faces', () => models.faceDetector!.detectFaces(data)) : undefined;
      if (!plan.faceEmbedding) return { detected, embedded: undefined };
      // After this frame's detection, from the last embedded faces: the lane keeps frame order.
      embeddedFaces = detected
        ? await embedDetected(models.faceEmbedder!, { timeSec: frame.timeSec, data }, detected, embeddedFaces, pictureChanged, step, timed)
        : (await timed('faces', () => models.faceEmbedder!.embedFaces(data))).map((f) => ({ ...f, embeddedSec: frame.timeSec }));
      return { detected, embedded: embeddedFaces };
    };
    return {
      timeSec: frame.timeSec,
      data,
      plan,
      lines: plan.text ? lanes.text.add(() => timed('text', () => models.textReader!.readText(data))) : undefined,
      objects: plan.objects ? lanes.objects.add(() => timed('objects', () => models.objectDetector!.detectObjects(data))) : undefined,
      faces: plan.faces || plan.faceEmbedding ? lanes.faces.add(seeFaces) : undefined,
      vector: plan.vector ? lanes.vector.add(() => timed('embedding', () => models.embedder!.embedImage(data))) : undefined,
    };
  };

  // Each model's last results, carried to the frames it does not look at.
  let lastObjects: DetectedObject[] = [];
  let lastDetectedFaces: DetectedFace[] = [];
  let lastVector: Float32Array | undefined;
  const observations: FrameAnalysis['observations'] = [];
  const vectors: FrameAnalysis['vectors'] = [];
  let thumbnails: FrameAnalysis['thumbnails'] = [];
  let last: FrameObservation = { timeSec: 0, lines: [], labels: [] };
  const counts = { analysedFrames: 0, objectFrames: 0, withinPictureFrames: 0, recheckedFrames: 0 };
  const frameFaces: FrameFaces[] = [];
  /** The last embedded faces without their bookkeeping, as every frame until the next embedding reports them. */
  let carriedFaces: EmbeddedFace[] = [];

  /** A frame's observation, once its models are done: frame order, so the carried results are the last ones before it. */
  const assemble = async ({ timeSec, data, plan, ...calls }: PlannedFrame) => {
    const [lines, objects, faces, vector] = await Promise.all([calls.lines, calls.objects, calls.faces, calls.vector]);
    if (plan.recheck) {
      counts.recheckedFrames++;
      last = { ...last, timeSec, lines: lines!.map((l) => ({ text: l.text, confidence: l.confidence })) };
    }
    if (plan.analysed) {
      counts.analysedFrames++;
      if (plan.objects) counts.objectFrames++;
      if (plan.withinPicture) counts.withinPictureFrames++;
      if (plan.objects) lastObjects = objects!;
      if (plan.faces) lastDetectedFaces = faces!.detected!;
      if (plan.vector) lastVector = vector;
      if (lastVector) vectors.push({ timeSec, vector: lastVector });
      if (plan.faceEmbedding) carriedFaces = faces!.embedded!.map(({ embeddedSec: _, ...face }) => face);
      last = {
        timeSec,
        lines: (lines ?? last.lines).map((l) => ({ text: l.text, confidence: l.confidence })),
        labels: [...new Set([...lastObjects.map((o) => o.label), ...(lastDetectedFaces.length > 0 ? ['face'] : [])])],
        tentativeLabels: tentativeLabels(lastObjects),
      };
      thumbnails = decimate([...thumbnails, { timeSec, jpeg: data }], options.maxThumbnails);
    }
    observations.push({ ...last, timeSec, changed: plan.analysed });
    // Unchanged frames share the last analysed frame's faces (one array, read only).
    if (carriedFaces.length > 0) frameFaces.push({ timeSec, faces: carriedFaces });
    options.onProgress?.(timeSec);
  };

  const frames = sampleFrames(file, { fps: options.fps, width: options.width, probe, signal: stop.signal });
  // The next frame is decoded while the models work, until FRAMES_IN_FLIGHT are held.
  const ahead = () => {
    const decoding = frames.next();
    // Handled when awaited, which may be after it fails (ffmpeg killed while the models run).
    decoding.catch(() => undefined);
    return decoding;
  };
  let decoding: Promise<IteratorResult<SampledFrame>> | undefined = ahead();
  const pending: PlannedFrame[] = [];
  try {
    for (;;) {
      if (decoding && pending.length < FRAMES_IN_FLIGHT - 1) {
        const next: IteratorResult<SampledFrame> = await timed('decode', () => decoding!);
        decoding = next.done ? undefined : ahead();
        if (!next.done) pending.push(start(next.value));
        continue;
      }
      const head = pending.shift();
      if (!head) break;
      await assemble(head);
    }
  } catch (error) {
    // The first failure is the one to report; ffmpeg's and the lanes' own failures follow from the stop.
    if (!stop.signal.aborted) stop.abort(error);
    pending.length = 0;
    await Promise.allSettled([decoding, ...Object.values(lanes).map((lane) => lane.settled())]);
    await frames.return(undefined);
    throw stop.signal.reason;
  } finally {
    options.signal?.removeEventListener('abort', cancel);
  }
  return {
    observations,
    vectors,
    thumbnails: spread(thumbnails, options.maxThumbnails),
    faces: frameFaces,
    step,
    timings,
    ...counts,
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
