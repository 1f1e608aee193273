import { blazeFaceAnchors, blazeFaceAnyShape, blazeFaceInputSize } from '../src/vision/blazeface';
import { humanModelsDir, readGraphModel } from '../src/vision/tfjs';

describe('blazeFaceInputSize', () => {
  it.each([
    ['16:9 (the SDK example, 640 × 360): 144 rounded up to 160', 640, 360, { width: 256, height: 160 }],
    ['720p', 1280, 720, { width: 256, height: 160 }],
    ['4:3', 640, 480, { width: 256, height: 192 }],
    ['a square is the published input', 1000, 1000, { width: 256, height: 256 }],
    ['portrait 9:16', 720, 1280, { width: 160, height: 256 }],
    ['a strip never goes under one stride', 4000, 10, { width: 256, height: 32 }],
    ['a small photo is scaled up as the square input always did', 100, 75, { width: 256, height: 192 }],
  ])('%s', (_name, width, height, expected) => {
    expect(blazeFaceInputSize(width, height)).toEqual(expected);
  });
});

describe('blazeFaceAnchors', () => {
  it('gives the published 256 × 256 graph its 896 anchors: 16 × 16 cells of 2, then 8 × 8 of 6', () => {
    const anchors = blazeFaceAnchors(256, 256);
    expect(anchors).toHaveLength(16 * 16 * 2 + 8 * 8 * 6);
    expect(anchors.slice(0, 3)).toEqual([
      [8, 8],
      [8, 8],
      [24, 8],
    ]);
    expect(anchors[512]).toEqual([16, 16]);
    expect(anchors.at(-1)).toEqual([240, 240]);
  });

  it('follows a 256 × 160 input row by row: 16 × 10 cells, then 8 × 5', () => {
    const anchors = blazeFaceAnchors(256, 160);
    expect(anchors).toHaveLength(16 * 10 * 2 + 8 * 5 * 6);
    // The first row of the fine grid has 16 cells: its 17th cell starts the second row.
    expect(anchors[32]).toEqual([8, 24]);
    expect(anchors[16 * 10 * 2 - 1]).toEqual([248, 152]);
    expect(anchors.at(-1)).toEqual([240, 144]);
  });
});

describe('blazeFaceAnyShape', () => {
  type Topology = { node: { op: string; attr?: { shape?: { shape?: { dim?: { size: string }[] } } } }[] };
  const placeholderDims = (topology: unknown) =>
    (topology as Topology).node.find((node) => node.op === 'Placeholder')!.attr!.shape!.shape!.dim!.map((d) => d.size);

  it("leaves the published graph's input size and anchor counts to the input, in a copy", async () => {
    const published = await readGraphModel(humanModelsDir(), 'blazeface');
    const before = Buffer.from(published.weightData as ArrayBuffer).toString('base64');
    const anyShape = blazeFaceAnyShape(published);
    expect(placeholderDims(anyShape.modelTopology)).toEqual(['1', '-1', '-1', '3']);
    expect(placeholderDims(published.modelTopology)).toEqual(['1', '256', '256', '3']);
    expect(Buffer.from(published.weightData as ArrayBuffer).toString('base64')).toBe(before);
    // Only the four reshapes' anchor counts (4 bytes each) differ from the published weights.
    const a = new Uint8Array(published.weightData as ArrayBuffer);
    const b = new Uint8Array(anyShape.weightData as ArrayBuffer);
    expect(b).toHaveLength(a.length);
    expect(a.filter((byte, i) => byte !== b[i]).length).toBeLessThanOrEqual(16);
  });

  it('refuses a graph without the reshapes it was written for', async () => {
    const published = await readGraphModel(humanModelsDir(), 'blazeface');
    const without = { ...published, weightSpecs: published.weightSpecs!.filter((spec) => !spec.name.includes('regressors_2')) };
    expect(() => blazeFaceAnyShape(without)).toThrow(/regressors_2/);
  });
});
