import { thumbnailFor } from '../src/worker/segments';

describe('thumbnailFor', () => {
  const thumbnails = [
    { time: 0, key: 't0' },
    { time: 5, key: 't5' },
    { time: 10, key: 't10' },
  ];
  it.each([
    ['the first inside the stretch', 4, 11, 't5'],
    ['one starting exactly at the start', 5, 6, 't5'],
    ['none inside: the nearest to the middle', 6, 7, 't5'],
    ['none inside, nearer the later one', 8, 9.5, 't10'],
    ['past the end of the video', 20, 25, 't10'],
  ])('%s', (_case, start, end, expected) => {
    expect(thumbnailFor(thumbnails, start, end)).toBe(expected);
  });
  it('is undefined without thumbnails', () => {
    expect(thumbnailFor([], 0, 5)).toBeUndefined();
  });
});
