import type * as tfType from '@tensorflow/tfjs';
import type * as FaceApiModule from '@vladmandic/face-api';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { Disposable, EmbeddedFace, FaceEmbedder, ImageInput } from '../types';
import { tensorflow } from './tfjs';

/**
 * Face embeddings with face-api's recognition net (`@vladmandic/face-api`, MIT): dlib's ResNet-34
 * face recogniser ported to TF.js, 128 numbers per face, one person's faces closer to each other (in
 * euclidean distance) than to anyone else's (face-match.ts holds the measured threshold). Faces are
 * found by face-api's SSD MobileNet v1 and aligned by its 68 landmarks before being embedded, so a
 * reference photo and a video frame go through the very same steps. face-api's node-wasm build
 * requires @tensorflow/tfjs and its WASM backend instead of bundling them: it runs on the runtime
 * every TF.js provider here shares (tfjs.ts).
 */

export interface FaceRecognitionOptions {
  /** The detector's minimum score: below it a face is not embedded (blurred or tiny faces embed poorly). */
  readonly minScore?: number;
  readonly maxFaces?: number;
  /** Larger images are scaled down to this side first: detection runs at 512 px, crops need no more. */
  readonly maxSide?: number;
}

export const FACE_EMBEDDING_DIMENSIONS = 128;
const NETS = ['ssd_mobilenetv1_model', 'face_landmark_68_model', 'face_recognition_model'] as const;

type FaceApi = typeof FaceApiModule;

/** Folder of face-api's weights (`<net>-weights_manifest.json` + `<net>.bin`). */
export function faceApiModelDir(): string {
  return join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
}

async function checkFaceApi(): Promise<string | undefined> {
  try {
    const dir = faceApiModelDir();
    await Promise.all(NETS.flatMap((net) => [access(join(dir, `${net}-weights_manifest.json`)), access(join(dir, `${net}.bin`))]));
    return undefined;
  } catch (error) {
    return `@vladmandic/face-api's weights are missing (${(error as Error).message}); run npm install`;
  }
}

export function faceRecognitionProvider(options: FaceRecognitionOptions = {}): ProviderDefinition<'face_embedder'> {
  return {
    capability: 'face_embedder',
    name: 'face-api-resnet',
    model: '@vladmandic/face-api ssd_mobilenetv1 + face_landmark_68 + face_recognition',
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
    private readonly faceapi: FaceApi,
    private readonly options: Required<FaceRecognitionOptions>,
  ) {}

  static async load(options: FaceRecognitionOptions = {}): Promise<FaceRecognition> {
    const tf = await tensorflow();
    // Loaded only now: requiring it registers face-api's kernels on the shared runtime.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
    const dir = faceApiModelDir();
    await faceapi.nets.ssdMobilenetv1.loadFromDisk(dir);
    await faceapi.nets.faceLandmark68Net.loadFromDisk(dir);
    await faceapi.nets.faceRecognitionNet.loadFromDisk(dir);
    return new FaceRecognition(tf, faceapi, {
      minScore: options.minScore ?? 0.3,
      maxFaces: options.maxFaces ?? 20,
      maxSide: options.maxSide ?? 1920,
    });
  }

  embedFaces(image: ImageInput): Promise<EmbeddedFace[]> {
    return this.queue.run(async () => {
      const side = this.options.maxSide;
      const { data, info } = await sharp(image)
        .rotate()
        .removeAlpha()
        .resize(side, side, { fit: 'inside', withoutEnlargement: true })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const input = this.tf.tensor3d(new Int32Array(data), [info.height, info.width, 3], 'int32');
      try {
        const detectorOptions = new this.faceapi.SsdMobilenetv1Options({
          minConfidence: this.options.minScore,
          maxResults: this.options.maxFaces,
        });
        const faces = await this.faceapi.detectAllFaces(input, detectorOptions).withFaceLandmarks().withFaceDescriptors();
        return faces
          .map((face) => {
            const { x, y, width, height } = face.detection.box;
            return {
              score: face.detection.score,
              box: { x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height) },
              embedding: Float32Array.from(face.descriptor),
            };
          })
          .sort((a, b) => b.score - a.score);
      } finally {
        input.dispose();
      }
    });
  }

  async dispose(): Promise<void> {
    for (const net of [this.faceapi.nets.ssdMobilenetv1, this.faceapi.nets.faceLandmark68Net, this.faceapi.nets.faceRecognitionNet]) {
      net.dispose();
    }
  }
}
