import { codeOf } from '@vus/testing';
import { checkSeveralImagesModel, meanDirection } from '../src/query-image';

const v = (...values: number[]) => Float32Array.from(values);
const close = (actual: Float32Array, expected: number[]) => expect([...actual].map((x) => Math.round(x * 1e6) / 1e6)).toEqual(expected);

describe('meanDirection: several query images searched as one (issue 32 §3)', () => {
  it.each<[string, Float32Array[], number[]]>([
    ['one vector is itself, normalised', [v(3, 4)], [0.6, 0.8]],
    ['two orthogonal unit vectors: the diagonal', [v(1, 0), v(0, 1)], [0.707107, 0.707107]],
    // Normalised first: the long vector does not outweigh the short one.
    ['lengths do not weigh', [v(100, 0), v(0, 0.01)], [0.707107, 0.707107]],
    ['a zero vector adds nothing', [v(0, 0), v(0, 2)], [0, 1]],
    ['opposite vectors cancel to zero', [v(1, 0), v(-1, 0)], [0, 0]],
    ['three images: what they share dominates', [v(1, 1, 0), v(1, 0, 1), v(1, 0, 0)], [0.92388, 0.270598, 0.270598]],
  ])('%s', (_name, vectors, expected) => {
    close(meanDirection(vectors), expected);
  });

  it('refuses no vectors and vectors of different models (lengths)', () => {
    expect(() => meanDirection([])).toThrow();
    expect(() => meanDirection([v(1, 0), v(1, 0, 0)])).toThrow();
  });
});

describe('checkSeveralImagesModel: Marengo 3.0 only', () => {
  it.each<[number, string | undefined, string | false]>([
    [1, 'marengo2.7', false],
    [1, undefined, false],
    [2, 'marengo3.0', false],
    [10, 'marengo3.0', false],
    [2, 'marengo2.7', 'parameter_invalid'],
    [2, undefined, 'parameter_invalid'],
  ])('%i images on %s', async (count, model, code) => {
    expect(await codeOf(Promise.resolve().then(() => checkSeveralImagesModel(count, 'idx1', model)))).toBe(code);
  });

  it('names the model in the message', () => {
    expect(() => checkSeveralImagesModel(3, 'idx1', 'marengo2.7')).toThrow(
      'Several query images are searched with marengo3.0 only; the index idx1 uses marengo2.7. Send one image.',
    );
  });
});
