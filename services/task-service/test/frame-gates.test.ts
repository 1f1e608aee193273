import {
  FIRST_FRAME_GATES,
  objectsDue,
  pictureModelDue,
  planFrame,
  recheckDue,
  withinPictureDue,
  type FramePlan,
  type ModelsPresent,
} from '../src/worker/extract/frame-gates';

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

describe('planFrame', () => {
  const ALL: ModelsPresent = { text: true, objects: true, faces: true, faceEmbedder: true, vector: true };
  /** A frame sampled once a second: its time and change tests (`-` unchanged, `m` moved within the picture, `P` a new picture). */
  type Frame = [timeSec: number, change: '-' | 'm' | 'P'];
  /** The models a plan runs, as one string: `analysed`, `within` (withinPicture) and `recheck` marked too. */
  const runs = (plan: FramePlan) =>
    (['analysed', 'within', 'recheck', 'text', 'objects', 'faces', 'faceEmbedding', 'vector'] as const)
      .filter((key) => plan[key === 'within' ? 'withinPicture' : key])
      .join(' ');
  const plansOf = (frames: Frame[], present: ModelsPresent) => {
    let state = FIRST_FRAME_GATES;
    return frames.map(([timeSec, change]) => {
      const planned = planFrame(state, { timeSec, changed: change !== '-', pictureChanged: change === 'P' }, present, 1);
      state = planned.state;
      return runs(planned.plan);
    });
  };
  const everything = 'analysed within text objects faces faceEmbedding vector';

  it.each<[string, ModelsPresent, Frame[], string[]]>([
    [
      'a new picture every second: every model on every frame',
      ALL,
      [
        [0, 'P'],
        [1, 'P'],
        [2, 'P'],
      ],
      [everything, everything, everything],
    ],
    [
      'one picture moving: text, faces and the vector every 2 s, objects every 5 s',
      ALL,
      [
        [0, 'P'],
        [1, 'm'],
        [2, 'm'],
        [3, 'm'],
        [4, 'm'],
        [5, 'm'],
      ],
      [
        'analysed within text objects faces faceEmbedding vector',
        'analysed',
        'analysed within text faces faceEmbedding vector',
        'analysed',
        'analysed within text faces faceEmbedding vector',
        'analysed objects',
      ],
    ],
    [
      'a still stretch: its text read again 3 s and 9 s after it began, nothing else',
      ALL,
      [
        [0, 'P'],
        [1, '-'],
        [2, '-'],
        [3, '-'],
        [4, '-'],
        [8, '-'],
        [9, '-'],
        [10, '-'],
      ],
      [everything, '', '', 'recheck text', '', '', 'recheck text', ''],
    ],
    [
      'a still stretch after a moving picture: counted from the last change, not the last new picture',
      ALL,
      [
        [0, 'P'],
        [1, 'm'],
        [2, '-'],
        [3, '-'],
        [4, '-'],
      ],
      [everything, 'analysed', '', '', 'recheck text'],
    ],
    [
      'without a text reader, no recheck',
      { ...ALL, text: false },
      [
        [0, 'P'],
        [3, '-'],
      ],
      ['analysed within objects faces faceEmbedding vector', ''],
    ],
    [
      'absent models are never planned; the schedule still runs',
      { text: false, objects: false, faces: false, faceEmbedder: false, vector: false },
      [
        [0, 'P'],
        [1, 'm'],
        [2, 'm'],
      ],
      ['analysed within', 'analysed', 'analysed within'],
    ],
    [
      'a face embedder without a detector: its own faces on every analysed frame',
      { ...ALL, faces: false },
      [
        [0, 'P'],
        [1, 'm'],
        [2, '-'],
      ],
      ['analysed within text objects faceEmbedding vector', 'analysed faceEmbedding', ''],
    ],
  ])('%s', (_name, present, frames, expected) => {
    expect(plansOf(frames, present)).toEqual(expected);
  });

  it('keeps its state in what it returns, not in the state it was given', () => {
    const before = { ...FIRST_FRAME_GATES };
    planFrame(FIRST_FRAME_GATES, { timeSec: 0, changed: true, pictureChanged: true }, ALL, 1);
    expect(FIRST_FRAME_GATES).toEqual(before);
  });
});
