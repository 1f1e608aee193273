import { formatSeconds, spanOnTimeline } from '../src/lib/format';

describe('formatSeconds', () => {
  it.each([
    [0, '0:00'],
    [4.9, '0:04'],
    [75.4, '1:15'],
    [3723, '1:02:03'],
    [-1, '–'],
    [Number.NaN, '–'],
  ])('%s → %s', (seconds, text) => {
    expect(formatSeconds(seconds)).toBe(text);
  });
});

describe('spanOnTimeline', () => {
  it.each([
    ['a span inside', 4, 8, 12, { left: 100 / 3, width: 100 / 3 }],
    ['clamped to the end', 10, 20, 12, { left: (10 / 12) * 100, width: (2 / 12) * 100 }],
    ['a point still visible', 6, 6, 12, { left: 50, width: 0.5 }],
    ['no duration', 1, 2, 0, undefined],
    ['end before start', 5, 4, 12, undefined],
  ])('%s', (_name, start, end, duration, expected) => {
    const span = spanOnTimeline(start, end, duration);
    if (expected === undefined) expect(span).toBeUndefined();
    else {
      expect(span?.left).toBeCloseTo(expected.left);
      expect(span?.width).toBeCloseTo(expected.width);
    }
  });
});
