import type { EmbeddedFace } from '@vus/models';
import { referenceFace } from '../src/entities/reference-faces';

const face = (name: number, width: number, height: number, score: number): EmbeddedFace => ({
  score,
  box: { x: 0, y: 0, width, height },
  embedding: Float32Array.of(name),
});

describe('referenceFace: the face a reference image stands for', () => {
  it.each<[string, EmbeddedFace[], number | undefined]>([
    ['no face (a logo, a place)', [], undefined],
    ['one face', [face(1, 50, 60, 0.4)], 1],
    [
      'the largest of several (the subject, not a passer-by behind)',
      [face(1, 40, 40, 0.99), face(2, 200, 220, 0.6), face(3, 90, 90, 0.9)],
      2,
    ],
    ['equal sizes: the clearer', [face(1, 100, 100, 0.7), face(2, 100, 100, 0.9)], 2],
  ])('%s', (_name, faces, expected) => {
    expect(referenceFace(faces)?.embedding[0]).toBe(expected);
  });
});
