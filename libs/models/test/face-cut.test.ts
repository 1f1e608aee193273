import { blazeFaceLandmarks, cutTransform, faceCut, SQUARE_PER_BOX_SIDE, type DetectedFace, type FaceCut } from '../src';

const round = (cut: FaceCut) => ({
  centre: { x: Math.round(cut.centre.x), y: Math.round(cut.centre.y) },
  side: Math.round(cut.side),
  angle: Math.round((cut.angle * 180) / Math.PI),
});
const box = { x: 100, y: 100, width: 90, height: 100 };
/** An upright face: eyes 80 px apart at y 140, mouth 90 px below their middle (eye-to-mouth distance 98.5). */
const upright: DetectedFace = {
  score: 0.9,
  box,
  landmarks: { rightEye: { x: 105, y: 140 }, leftEye: { x: 185, y: 140 }, mouth: { x: 145, y: 230 } },
};
/** The same face turned 90° clockwise about (145, 170): its eyes one above the other. */
const turned: DetectedFace = {
  score: 0.9,
  box,
  landmarks: { rightEye: { x: 175, y: 130 }, leftEye: { x: 175, y: 210 }, mouth: { x: 85, y: 170 } },
};
/** Eyes 22 px apart (under MIN_EYE_SPACING of the eye-to-mouth distance), at 27° to each other. */
const eyesTogether: DetectedFace = {
  score: 0.9,
  box,
  landmarks: { rightEye: { x: 135, y: 140 }, leftEye: { x: 155, y: 150 }, mouth: { x: 145, y: 230 } },
};

describe('faceCut: where a face is cut from its image for the recogniser', () => {
  it.each<[string, DetectedFace, ReturnType<typeof round>]>([
    // Side 98.5 / 0.45; the centroid (145, 170) sits at 0.43 of the side: the centre 0.07 × 219 lower.
    ['an upright face, from its eyes and mouth', upright, { centre: { x: 145, y: 185 }, side: 219, angle: 0 }],
    // Turned: the same side, the centre 15 px from the centroid the other way, the eyes' angle 90°.
    ['a turned face, levelled', turned, { centre: { x: 130, y: 170 }, side: 219, angle: 90 }],
    ['eyes too close together to be levelled by', eyesTogether, { centre: { x: 145, y: 187 }, side: 190, angle: 0 }],
    [
      'a face without landmarks: its box grown to a square',
      { score: 0.9, box },
      { centre: { x: 145, y: 150 }, side: Math.round(100 * SQUARE_PER_BOX_SIDE), angle: 0 },
    ],
  ])('%s', (_name, face, expected) => {
    expect(round(faceCut(face))).toEqual(expected);
  });
});

describe('cutTransform: output pixel → input pixel', () => {
  const apply = (t: number[], x: number, y: number) => [t[0]! * x + t[1]! * y + t[2]!, t[3]! * x + t[4]! * y + t[5]!].map(Math.round);
  it.each<[string, FaceCut, number, [number, number, number, number][]]>([
    // A 300 px square centred at (200, 100) sampled into 150 px: 2 input pixels per output pixel.
    [
      'upright',
      { centre: { x: 200, y: 100 }, side: 300, angle: 0 },
      1,
      [
        [0, 0, 50, -50],
        [75, 75, 200, 100],
        [150, 150, 350, 250],
      ],
    ],
    [
      "turned 90°: the cut's top edge runs down the image",
      { centre: { x: 200, y: 100 }, side: 300, angle: Math.PI / 2 },
      1,
      [
        [0, 0, 350, -50],
        [150, 0, 350, 250],
        [75, 75, 200, 100],
      ],
    ],
    ['on an image scaled by half', { centre: { x: 200, y: 100 }, side: 300, angle: 0 }, 0.5, [[0, 0, 25, -25]]],
  ])('%s', (_name, cut, scale, points) => {
    const transform = cutTransform(cut, 150, scale);
    expect(transform.slice(6)).toEqual([0, 0]);
    for (const [x, y, inX, inY] of points) expect(apply(transform, x, y)).toEqual([inX, inY]);
  });
});

describe('blazeFaceLandmarks', () => {
  it('reads the eyes and mouth of a row, relative to its anchor, in image pixels', () => {
    // [logit, dx, dy, w, h, right eye, left eye, nose, mouth, right ear, left ear]; anchor (64, 32); input 2× the image.
    const row = [5, 0, 0, 40, 40, -10, -6, 10, -6, 0, 0, 0, 12, -20, 0, 20, 0];
    expect(blazeFaceLandmarks(row, [64, 32], 2)).toEqual({
      rightEye: { x: 27, y: 13 },
      leftEye: { x: 37, y: 13 },
      mouth: { x: 32, y: 22 },
    });
  });

  it('gives none for a row without key points', () => {
    expect(blazeFaceLandmarks([5, 0, 0, 40, 40], [64, 32], 2)).toBeUndefined();
  });
});
