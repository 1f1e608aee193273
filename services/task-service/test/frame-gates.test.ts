import { objectsDue, pictureModelDue, recheckDue, withinPictureDue } from '../src/worker/extract/frame-gates';

describe('recheckDue', () => {
  // A still stretch that began at 10 s, sampled once a second: read again 3, 9, 27 … s in.
  it.each([
    ['2 s after it began', 12, 10, false],
    ['3 s after it began', 13, 10, true],
    ['8 s in, read 3 s in', 18, 13, false],
    ['9 s in, read 3 s in', 19, 13, true],
    ['26 s in, read 9 s in', 36, 19, false],
    ['27 s in, read 9 s in', 37, 19, true],
  ])('%s', (_name, now, lastRead, due) => {
    expect(recheckDue(now, lastRead, 10, 1)).toBe(due);
  });
});

describe('pictureModelDue', () => {
  it.each([
    ['the first analysed frame', false, 0, -Infinity, 1, 3, true],
    ['a different picture right after a run', true, 10.5, 10, 0.5, 3, true],
    ['the same picture, 2 s after a run, 3 s refresh', false, 12, 10, 1, 3, false],
    ['the same picture, 3 s after a run, 3 s refresh', false, 13, 10, 1, 3, true],
    // Frame times are not exact: a frame less than half a step early is the one due.
    ['the same picture, 2.96 s after a run, 3 s refresh', false, 12.96, 10, 1, 3, true],
    ['at 2 frames/s, 2.5 s after a run, 3 s refresh', false, 12.5, 10, 0.5, 3, false],
  ])('%s → %s', (_name, pictureChanged, now, lastRun, step, refresh, due) => {
    expect(pictureModelDue(pictureChanged, now, lastRun, step, refresh)).toBe(due);
  });
});

describe('objectsDue', () => {
  // Sampled once a second; the refresh is 5 s after the detector's last run.
  it.each([
    ['the first analysed frame', false, 0, -Infinity, true],
    ['a different picture 1 s after a run', true, 11, 10, true],
    ['the same picture moving, 1 s after a run', false, 11, 10, false],
    ['the same picture moving, 4 s after a run', false, 14, 10, false],
    ['the same picture moving, 5 s after a run', false, 15, 10, true],
  ])('%s → %s', (_name, pictureChanged, now, lastRun, due) => {
    expect(objectsDue(pictureChanged, now, lastRun, 1)).toBe(due);
  });
});

describe('withinPictureDue', () => {
  // Sampled once a second; text, faces and the vector are looked for again 2 s after their last run.
  it.each([
    ['the first analysed frame', false, 0, -Infinity, true],
    ['a different picture 1 s after a run', true, 11, 10, true],
    ['the same picture moving, 1 s after a run', false, 11, 10, false],
    ['the same picture moving, 2 s after a run', false, 12, 10, true],
    ['a caption changing on a still picture 3 s after a run', false, 13, 10, true],
  ])('%s → %s', (_name, pictureChanged, now, lastRun, due) => {
    expect(withinPictureDue(pictureChanged, now, lastRun, 1)).toBe(due);
  });
});
