import { confidentDetections, LABEL_MIN_SCORES, minScoreOf, tentativeLabels, type LabelMinScores } from '../src/vision/label-scores';

describe('confidentDetections', () => {
  const table: LabelMinScores = { default: 0.4, byLabel: { person: 0.35, bed: 0.6 } };

  it.each([
    ['a label at its own minimum is kept', 'person', 0.35, true],
    ['a label under its own minimum goes', 'person', 0.34, false],
    ['a label without a figure uses the default', 'dog', 0.39, false],
    ['a label without a figure at the default is kept', 'dog', 0.4, true],
    ['a label known for wrong guesses needs more', 'bed', 0.53, false],
  ])('%s', (_name, label, score, kept) => {
    expect(confidentDetections([{ label, score }], table)).toEqual(kept ? [{ label, score }] : []);
  });

  it('keeps the order given', () => {
    const found = [
      { label: 'cat', score: 0.69 },
      { label: 'dog', score: 0.24 },
      { label: 'person', score: 0.5 },
    ];
    expect(confidentDetections(found, table).map((d) => d.label)).toEqual(['cat', 'person']);
  });
});

describe('the calibrated table', () => {
  // The wrong guesses the calibration saw must all stay out, the right ones in.
  it.each([
    ['dog on the cat photo', 'dog', 0.24, false],
    ['person on a motorcycle without rider', 'person', 0.26, false],
    ['bed on microscope cells', 'bed', 0.53, false],
    ['remote on a phone', 'remote', 0.52, false],
    ['stop sign on a pill', 'stop sign', 0.33, false],
    ['the kitten small in a frame', 'cat', 0.31, true],
    ['people in a dim photo', 'person', 0.4, true],
    ['a phone on a sofa', 'cell phone', 0.43, true],
    ['cell phone on a pill', 'cell phone', 0.33, false],
    ['the motorcycle', 'motorcycle', 0.71, true],
  ])('%s', (_name, label, score, kept) => {
    expect(score >= minScoreOf(label, LABEL_MIN_SCORES)).toBe(kept);
  });
});

describe('tentativeLabels', () => {
  it.each([
    ['nothing seen', [], []],
    ['a clear sighting is not tentative', [{ label: 'cat', score: 0.69 }], []],
    ['at the clear score is clear', [{ label: 'cat', score: 0.5 }], []],
    ['a sighting under the clear score is', [{ label: 'cat', score: 0.31 }], ['cat']],
    [
      'one clear detection of a label makes the label clear',
      [
        { label: 'person', score: 0.4 },
        { label: 'person', score: 0.77 },
      ],
      [],
    ],
    [
      'each label once, in the order first seen',
      [
        { label: 'cup', score: 0.34 },
        { label: 'person', score: 0.4 },
        { label: 'cup', score: 0.35 },
        { label: 'horse', score: 0.6 },
      ],
      ['cup', 'person'],
    ],
  ])('%s', (_name, detections, expected) => {
    expect(tentativeLabels(detections)).toEqual(expected);
  });
});
