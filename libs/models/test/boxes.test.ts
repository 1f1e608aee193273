import { iou, letterbox, nonMaxSuppression, rescaleBox, unletterboxBox } from '../src/vision/boxes';

describe('iou', () => {
  it.each([
    ['identical', { x: 0, y: 0, width: 10, height: 10 }, { x: 0, y: 0, width: 10, height: 10 }, 1],
    ['disjoint', { x: 0, y: 0, width: 10, height: 10 }, { x: 20, y: 0, width: 10, height: 10 }, 0],
    ['half overlap', { x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 0, width: 10, height: 10 }, 50 / 150],
    ['empty', { x: 0, y: 0, width: 0, height: 0 }, { x: 0, y: 0, width: 0, height: 0 }, 0],
  ])('%s', (_name, a, b, expected) => {
    expect(iou(a, b)).toBeCloseTo(expected);
  });
});

describe('nonMaxSuppression', () => {
  const box = (x: number) => ({ x, y: 0, width: 10, height: 10 });
  it('keeps the best of overlapping boxes per group, in score order, up to the limit', () => {
    const kept = nonMaxSuppression(
      [
        { id: 'a', group: 'person', score: 0.5, box: box(0) },
        { id: 'b', group: 'person', score: 0.9, box: box(1) },
        { id: 'c', group: 'tie', score: 0.4, box: box(1) },
        { id: 'd', group: 'person', score: 0.3, box: box(50) },
      ],
      0.5,
      10,
    );
    expect(kept.map((k) => k.id)).toEqual(['b', 'c', 'd']);
    expect(nonMaxSuppression(kept, 0.5, 1).map((k) => k.id)).toEqual(['b']);
  });
});

describe('rescaleBox', () => {
  it.each([
    ['scales each axis', { x: 128, y: 128, width: 256, height: 256 }, { x: 320, y: 180, width: 640, height: 360 }],
    ['clamps to the target', { x: -10, y: 500, width: 100, height: 100 }, { x: 0, y: 703, width: 225, height: 17 }],
  ])('%s', (_name, box, expected) => {
    expect(rescaleBox(box, 512, 512, 1280, 720)).toEqual(expected);
  });
});

describe('letterbox', () => {
  it.each([
    ['a 16:9 frame sits in the middle of the square', 1280, 720, { scale: 0.4, width: 512, height: 288, left: 0, top: 112 }],
    ['a portrait photo sits in the middle', 300, 600, { scale: 512 / 600, width: 256, height: 512, left: 128, top: 0 }],
    ['a square fills it', 1024, 1024, { scale: 0.5, width: 512, height: 512, left: 0, top: 0 }],
  ])('%s', (_name, width, height, expected) => {
    const placed = letterbox(width, height, 512);
    expect(placed).toEqual({ ...expected, scale: expect.closeTo(expected.scale, 6) });
  });

  it.each([
    ['a 16:9 frame fills a 512 × 288 input', 1280, 720, 512, 288, { scale: 0.4, width: 512, height: 288, left: 0, top: 0 }],
    [
      'a 1.85:1 frame sits in the middle of 512 × 288',
      1998,
      1080,
      512,
      288,
      { scale: 512 / 1998, width: 512, height: 277, left: 0, top: 5 },
    ],
    ['a portrait frame in a 288 × 512 input', 720, 1280, 288, 512, { scale: 0.4, width: 288, height: 512, left: 0, top: 0 }],
    ['a 4:3 frame in a 16:9 input is bounded by the height', 640, 480, 512, 288, { scale: 0.6, width: 384, height: 288, left: 64, top: 0 }],
  ])('%s', (_name, width, height, inputWidth, inputHeight, expected) => {
    const placed = letterbox(width, height, inputWidth, inputHeight);
    expect(placed).toEqual({ ...expected, scale: expect.closeTo(expected.scale, 6) });
  });

  it('maps a box in the square back to the image, clamped to it', () => {
    const placed = letterbox(1280, 720, 512);
    expect(unletterboxBox({ x: 128, y: 112 + 72, width: 256, height: 144 }, placed, 1280, 720)).toEqual({
      x: 320,
      y: 180,
      width: 640,
      height: 360,
    });
    // A box reaching into the padding stops at the image's edge.
    expect(unletterboxBox({ x: 0, y: 100, width: 100, height: 50 }, placed, 1280, 720)).toEqual({ x: 0, y: 0, width: 250, height: 95 });
  });
});
