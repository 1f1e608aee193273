import type * as tfType from '@tensorflow/tfjs';
import { frameShapedInput, rewriteInt32Weights, withInputShape } from './graph-rewrite';

/**
 * MB3-CenterNet's input shaped like the frame (issue 30). The published graph takes 512 × 512, so a
 * 16:9 frame letterboxed into it is 44 % black padding, and the detector's cost is its pixels: on
 * the SDK's example (640 × 360 frames) it spent ~0.19 CPU-s a frame. The network is convolutional
 * all the way to its heat maps; only the input placeholder, the three upsampling sizes of its head
 * and the decoding step's row width and heat-map length are written into the graph as constants
 * for 512 × 512. Rewriting those for, say, 512 × 288 gives the same network on 56 % of the pixels.
 */

/** The side the graph was built for: the frame's long side is scaled to it. */
export const CENTERNET_SIDE = 512;
/** The network's coarsest stride: each input side must be a multiple of it. */
const STRIDE = 32;

/**
 * The input for a `width` × `height` frame: the long side at CENTERNET_SIDE, the short side scaled
 * alike and rounded up to the stride (the rest is padding, at most 31 px). Pure.
 */
export function centernetInputSize(width: number, height: number): { width: number; height: number } {
  return frameShapedInput(width, height, CENTERNET_SIDE, STRIDE);
}

/**
 * The shape constants of the 512 × 512 graph for an input of `width` × `height` (multiples of
 * STRIDE), by weight name. The head upsamples to strides 16, 8 and 4 (ResizeBilinear to a fixed
 * size); decoding flattens the stride-4 heat map (80 classes) and finds a peak's column as
 * index / 80 mod its width, and gathers its box from the stride-4 map of 4 values per cell. Pure.
 */
export function centernetShapeConstants(width: number, height: number): Record<string, readonly number[]> {
  const at = (stride: number) => [height / stride, width / stride];
  return {
    'tower_0/CenternetHead/c5_upsample/up_sampling2d/mul': at(16),
    'tower_0/CenternetHead/c4_upsample/up_sampling2d_1/mul': at(8),
    'tower_0/CenternetHead/c3_upsample/up_sampling2d_2/mul': at(4),
    'tower_0/strided_slice_6': [width / 4],
    'tower_0/BatchGather/concat': [(height / 4) * (width / 4), 4],
  };
}

/**
 * The graph's artifacts for a `width` × `height` input: the placeholder's shape and the shape
 * constants (centernetShapeConstants) rewritten in a copy of the weights. Throws when a constant
 * is missing or not int32 of the expected length: another graph than the one this was written for.
 */
export function centernetForInput(artifacts: tfType.io.ModelArtifacts, width: number, height: number): tfType.io.ModelArtifacts {
  if (width % STRIDE !== 0 || height % STRIDE !== 0) throw new Error(`CenterNet input ${width}×${height} is not a multiple of ${STRIDE}`);
  return {
    ...artifacts,
    modelTopology: withInputShape(artifacts, [1, height, width, 3]),
    weightData: rewriteInt32Weights(artifacts, centernetShapeConstants(width, height)),
  };
}
