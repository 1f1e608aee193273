import type * as tfType from '@tensorflow/tfjs';

/**
 * Rewriting a published TF.js graph's shape constants in a copy of its artifacts (issue 30): the
 * convolutional detectors were exported for a square input, and a video frame is not square.
 * centernet-input.ts and blazeface.ts say which constants their graphs hold.
 */

/**
 * The input of a convolutional graph for a `width` × `height` frame: the long side at `side` (the
 * published square's), the short side scaled alike and rounded up to the network's coarsest
 * `stride` (the rest is padding, under one stride), never under one stride. Pure.
 */
export function frameShapedInput(width: number, height: number, side: number, stride: number): { width: number; height: number } {
  const scale = side / Math.max(width, height, 1);
  const fit = (pixels: number) => Math.min(side, Math.max(stride, Math.ceil((pixels * scale) / stride) * stride));
  return { width: fit(width), height: fit(height) };
}

interface GraphNode {
  op: string;
  attr?: { shape?: { shape?: { dim?: { size: string }[] } } };
}

/** A copy of the graph's topology with its input placeholder of shape `dims` (-1: any size). */
export function withInputShape(artifacts: tfType.io.ModelArtifacts, dims: readonly number[]): tfType.io.ModelArtifacts['modelTopology'] {
  const topology = structuredClone(artifacts.modelTopology) as { node: GraphNode[] };
  const input = topology.node.find((node) => node.op === 'Placeholder');
  if (!input?.attr?.shape?.shape?.dim) throw new Error('the graph has no input shape to rewrite');
  input.attr.shape.shape.dim = dims.map((size) => ({ size: String(size) }));
  return topology;
}

/** A copy of the weights with the named int32 constants set to `values`. */
export function rewriteInt32Weights(artifacts: tfType.io.ModelArtifacts, values: Record<string, readonly number[]>): ArrayBuffer {
  if (!(artifacts.weightData instanceof ArrayBuffer) || !artifacts.weightSpecs) throw new Error('the graph has no single weight buffer');
  const data = artifacts.weightData.slice(0);
  const view = new DataView(data);
  const left = new Set(Object.keys(values));
  let offset = 0;
  for (const spec of artifacts.weightSpecs) {
    const elements = spec.shape.reduce((product, size) => product * size, 1);
    const wanted = values[spec.name];
    if (wanted) {
      if (spec.dtype !== 'int32' || spec.quantization || elements !== wanted.length)
        throw new Error(`the graph's ${spec.name} is not the int32[${wanted.length}] it should be`);
      wanted.forEach((value, i) => view.setInt32(offset + 4 * i, value, true));
      left.delete(spec.name);
    }
    offset += elements * bytesPerElement(spec);
  }
  if (left.size > 0) throw new Error(`the graph has no ${[...left].join(', ')}`);
  return data;
}

function bytesPerElement(spec: tfType.io.WeightsManifestEntry): number {
  const stored = spec.quantization?.dtype ?? spec.dtype;
  const bytes: Record<string, number> = { float32: 4, int32: 4, float16: 2, uint16: 2, uint8: 1, bool: 1 };
  const size = bytes[stored];
  if (size === undefined) throw new Error(`cannot walk past a ${stored} weight (${spec.name})`);
  return size;
}
