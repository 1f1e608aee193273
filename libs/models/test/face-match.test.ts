import { closestFace, FACE_MATCH_THRESHOLD, faceDistance, isSameFace } from '../src/vision/face-match';

describe('faceDistance', () => {
  it.each<[number[], number[], number]>([
    [[0, 0], [0, 0], 0],
    [[0, 0], [3, 4], 5],
    [[1, 2, 3], [1, 2, 3], 0],
    [[-1, 0], [1, 0], 2],
  ])('%j to %j is %d', (a, b, expected) => {
    expect(faceDistance(a, b)).toBeCloseTo(expected, 10);
    expect(faceDistance(b, a)).toBeCloseTo(expected, 10);
  });

  it('refuses embeddings of different lengths', () => {
    expect(() => faceDistance([1, 2], [1, 2, 3])).toThrow(/different lengths/);
  });
});

describe('isSameFace', () => {
  const at = (d: number) => [d, 0];
  it.each<[number, boolean]>([
    [0, true],
    [FACE_MATCH_THRESHOLD - 0.001, true],
    [FACE_MATCH_THRESHOLD, false],
    [FACE_MATCH_THRESHOLD + 0.001, false],
  ])('at distance %d: %s', (d, same) => {
    expect(isSameFace(at(0), at(d))).toBe(same);
  });

  it('takes another threshold', () => {
    expect(isSameFace([0], [0.5], 0.6)).toBe(true);
    expect(isSameFace([0], [0.5], 0.4)).toBe(false);
  });
});

describe('closestFace', () => {
  it.each<[string, number[][], number[], ReturnType<typeof closestFace>]>([
    ['no reference', [], [0, 0], undefined],
    [
      'the nearer of two, matching',
      [
        [1, 0],
        [0.1, 0],
      ],
      [0, 0],
      { index: 1, distance: 0.1, match: true },
    ],
    [
      'the nearest, still too far',
      [
        [2, 0],
        [0, 3],
      ],
      [0, 0],
      { index: 0, distance: 2, match: false },
    ],
  ])('%s', (_case, references, face, expected) => {
    const result = closestFace(references, face);
    if (!expected) return expect(result).toBeUndefined();
    expect(result).toMatchObject({ index: expected.index, match: expected.match });
    expect(result?.distance).toBeCloseTo(expected.distance, 10);
  });
});
