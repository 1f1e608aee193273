import { blazeFaceAnchors } from '../src';
import { iou, nonMaxSuppression, rescaleBox } from '../src/vision/boxes';

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

describe('blazeFaceAnchors', () => {
  it('lays 2 anchors per cell on the 16×16 grid, then 6 per cell on the 8×8 grid', () => {
    const anchors = blazeFaceAnchors(256);
    expect(anchors).toHaveLength(16 * 16 * 2 + 8 * 8 * 6);
    expect(anchors[0]).toEqual([8, 8]);
    expect(anchors[2]).toEqual([24, 8]);
    expect(anchors[512]).toEqual([16, 16]);
    expect(anchors.at(-1)).toEqual([240, 240]);
  });
});
