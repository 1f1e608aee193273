import { metadataChange, metadataMatches, nearestThumbnail, validateWindow } from '../src/videos';

describe('metadataMatches', () => {
  it.each([
    ['cars', ['cars']],
    ['5', ['5', 5]],
    [' -2.5 ', [' -2.5 ', -2.5]],
    ['1e3', ['1e3', 1000]],
    ['True', ['True', true]],
    ['false', ['false', false]],
    ['5px', ['5px']],
    [7, [7]],
    [false, [false]],
  ] as const)('%p matches %p', (value, expected) => {
    expect(metadataMatches(value)).toEqual(expected);
  });
});

describe('metadataChange', () => {
  it('splits a merge into keys to set and keys to delete', () => {
    expect(metadataChange('t', { a: 1, b: null }, false)).toEqual({ title: 't', set: { a: 1 }, unset: ['b'], replace: false });
  });

  it('drops null keys on a replace', () => {
    expect(metadataChange(undefined, { a: 1, b: null }, true)).toEqual({ title: undefined, set: { a: 1 }, unset: [], replace: true });
  });
});

describe('nearestThumbnail', () => {
  const at = (...times: number[]) => times.map((time) => ({ time, blobKey: `k${time}`, contentType: 'image/jpeg' }));

  it.each([
    [at(0, 5, 10), undefined, 0],
    [at(0, 5, 10), 6, 5],
    [at(0, 5, 10), 7.5, 5],
    [at(0, 5, 10), 99, 10],
    [at(), 3, undefined],
  ])('%j at %p → %p', (thumbnails, time, expected) => {
    expect(nearestThumbnail(thumbnails, time)?.time).toBe(expected);
  });
});

describe('validateWindow', () => {
  it.each([
    [{}, true],
    [{ start: 0, end: 0 }, true],
    [{ start: 2 }, true],
    [{ start: -1 }, false],
    [{ start: 3, end: 2 }, false],
    [{ end: Number.POSITIVE_INFINITY }, false],
  ])('%j valid: %p', (window, valid) => {
    const run = () => validateWindow(window);
    if (valid) expect(run()).toEqual(window);
    else expect(run).toThrow(expect.objectContaining({ code: 'parameter_invalid' }));
  });
});
