import type * as tfType from '@tensorflow/tfjs';
import { centernetForInput, centernetInputSize, centernetShapeConstants } from '../src/vision/centernet-input';

describe('centernetInputSize', () => {
  it.each([
    ['16:9 (the SDK example, 640 × 360)', 640, 360, { width: 512, height: 288 }],
    ['720p', 1280, 720, { width: 512, height: 288 }],
    ['4:3, 640 × 480', 640, 480, { width: 512, height: 384 }],
    ['a square', 1024, 1024, { width: 512, height: 512 }],
    ['portrait 9:16', 720, 1280, { width: 288, height: 512 }],
    ['1.85:1 rounds the short side up to the stride (276.8 → 288)', 1998, 1080, { width: 512, height: 288 }],
    ['a strip never goes under one stride', 4000, 10, { width: 512, height: 32 }],
    ['a tiny image is scaled up like the graph always did', 64, 36, { width: 512, height: 288 }],
  ])('%s', (_name, width, height, expected) => {
    expect(centernetInputSize(width, height)).toEqual(expected);
  });
});

describe('centernetShapeConstants', () => {
  it('gives the published graph its own constants at 512 × 512', () => {
    expect(centernetShapeConstants(512, 512)).toEqual({
      'tower_0/CenternetHead/c5_upsample/up_sampling2d/mul': [32, 32],
      'tower_0/CenternetHead/c4_upsample/up_sampling2d_1/mul': [64, 64],
      'tower_0/CenternetHead/c3_upsample/up_sampling2d_2/mul': [128, 128],
      'tower_0/strided_slice_6': [128],
      'tower_0/BatchGather/concat': [16384, 4],
    });
  });

  it('sizes are [height, width] and the row is the width', () => {
    const constants = centernetShapeConstants(512, 288);
    expect(constants['tower_0/CenternetHead/c3_upsample/up_sampling2d_2/mul']).toEqual([72, 128]);
    expect(constants['tower_0/strided_slice_6']).toEqual([128]);
    expect(constants['tower_0/BatchGather/concat']).toEqual([72 * 128, 4]);
  });
});

/** A graph shaped like CenterNet's: a placeholder, a float16 weight before the constants, an int32 after them. */
function fakeGraph(): tfType.io.ModelArtifacts {
  const constants = Object.entries(centernetShapeConstants(512, 512));
  const specs: tfType.io.WeightsManifestEntry[] = [
    { name: 'conv/weights', shape: [3, 3], dtype: 'float32', quantization: { dtype: 'float16' } },
    ...constants.map(([name, values]) => ({ name, shape: values.length === 1 ? [] : [values.length], dtype: 'int32' as const })),
    { name: 'after', shape: [2], dtype: 'int32' },
  ];
  const bytes = 9 * 2 + constants.reduce((sum, [, values]) => sum + 4 * values.length, 0) + 8;
  const view = new DataView(new ArrayBuffer(bytes));
  let offset = 18;
  for (const value of constants.flatMap(([, values]) => values)) {
    view.setInt32(offset, value, true);
    offset += 4;
  }
  view.setInt32(offset, 7, true);
  view.setInt32(offset + 4, 9, true);
  return {
    modelTopology: {
      node: [
        {
          name: 'tower_0/images',
          op: 'Placeholder',
          attr: { shape: { shape: { dim: [{ size: '1' }, { size: '512' }, { size: '512' }, { size: '3' }] } } },
        },
      ],
    },
    weightSpecs: specs,
    weightData: view.buffer,
  };
}

/** The int32 values of each int32 weight of `artifacts`, by name. */
function int32Weights(artifacts: tfType.io.ModelArtifacts): Record<string, number[]> {
  const view = new DataView(artifacts.weightData as ArrayBuffer);
  const found: Record<string, number[]> = {};
  let offset = 0;
  for (const spec of artifacts.weightSpecs!) {
    const elements = spec.shape.reduce((a, b) => a * b, 1);
    const size = spec.quantization ? 2 : 4;
    if (spec.dtype === 'int32') found[spec.name] = Array.from({ length: elements }, (_, i) => view.getInt32(offset + 4 * i, true));
    offset += elements * size;
  }
  return found;
}

describe('centernetForInput', () => {
  it('rewrites the input shape and the shape constants in a copy, and nothing else', () => {
    const graph = fakeGraph();
    const shaped = centernetForInput(graph, 512, 288);
    const topology = shaped.modelTopology as { node: { attr: { shape: { shape: { dim: { size: string }[] } } } }[] };
    expect(topology.node[0]!.attr.shape.shape.dim.map((d) => d.size)).toEqual(['1', '288', '512', '3']);
    expect(int32Weights(shaped)).toEqual({ ...centernetShapeConstants(512, 288), after: [7, 9] });
    // The published graph is left as it was: other shapes are made from it later.
    expect(int32Weights(graph)).toEqual({ ...centernetShapeConstants(512, 512), after: [7, 9] });
    const original = graph.modelTopology as typeof topology;
    expect(original.node[0]!.attr.shape.shape.dim.map((d) => d.size)).toEqual(['1', '512', '512', '3']);
  });

  it('refuses a size off the stride and a graph without the constants', () => {
    expect(() => centernetForInput(fakeGraph(), 512, 300)).toThrow(/multiple of 32/);
    const graph = fakeGraph();
    const without = { ...graph, weightSpecs: graph.weightSpecs!.filter((s) => s.name !== 'tower_0/strided_slice_6') };
    expect(() => centernetForInput(without, 512, 288)).toThrow(/no tower_0\/strided_slice_6/);
  });
});
