/**
 * When a COCO detection is trusted enough to become a label. A label is a claim search matches
 * (a segment carries no scores, only which of its labels were seen clearly: CLEAR_DETECTION_SCORE),
 * so a weak guess must not become one: each label has a minimum score, the default or its own.
 *
 * Calibrated on labelled photos with the letterboxed MB3-CenterNet (2026-11, issue 23): scikit-image's
 * astronaut, camera, chelsea (cat), coffee, horse, motorcycle and rocket; @vladmandic/face-api's six
 * demo photos of people; ij-test's cat, blurred cat, cells and pill (xtc); each file on its own and
 * pasted into a 960 × 540 frame (what the worker sees). True detections scored: person 0.40–0.77,
 * cat 0.31–0.69, cup 0.34–0.56, cell phone 0.29–0.64, horse 0.50–0.62, motorcycle 0.71–0.78,
 * wine glass 0.42. The highest wrong ones: bed 0.53 (the microscope cells), remote 0.52 (a phone),
 * stop sign and cell phone 0.33 (the pill), dining table 0.35, person 0.26 (a motorcycle without rider), dog 0.24
 * (chelsea the cat); every other wrong one scored under 0.30. Where right and wrong overlap (a
 * phone at 0.29 in a frame, the pill's "cell phone" at 0.33) the label keeps the default: a missed
 * label costs less than a false one. Twenty photos are a small sample: labels without a figure of
 * their own keep the default, above nearly every wrong guess seen.
 */
export interface LabelMinScores {
  readonly default: number;
  readonly byLabel: Readonly<Record<string, number>>;
}

export const LABEL_MIN_SCORES: LabelMinScores = {
  default: 0.4,
  byLabel: {
    // Seen right at 0.40 (a dim party photo), wrong at most 0.26.
    person: 0.35,
    // Right from 0.31 (a kitten small in a frame), wrong at most 0.18.
    cat: 0.3,
    // Right from 0.34 (coffee cup in a frame), wrong at most 0.26.
    cup: 0.3,
    // Wrong at 0.53 on a microscope picture of cells, never seen right.
    bed: 0.6,
    // Wrong at 0.52 on a phone, never seen right.
    remote: 0.6,
  },
};

export function minScoreOf(label: string, table: LabelMinScores): number {
  return table.byLabel[label] ?? table.default;
}

/** The detections that reach their label's minimum score, in the order given. Pure. */
export function confidentDetections<T extends { label: string; score: number }>(detections: readonly T[], table: LabelMinScores): T[] {
  return detections.filter((d) => d.score >= minScoreOf(d.label, table));
}

/**
 * A detection at or above this score is a clear sighting; one between its label's minimum and this
 * is tentative, and search weighs it below a clear one, so that a weak guess alone never answers a
 * query with `high` confidence. In the calibration above, every wrong detection scored under 0.36
 * but bed (0.53) and remote (0.52), whose own minimums keep them out; right ones scored 0.29–0.78,
 * about half of them under this cut.
 */
export const CLEAR_DETECTION_SCORE = 0.5;

/**
 * The labels of `detections` that are only tentative: no detection of the label reaches the clear
 * score. Each label once, in the order first seen. Pure.
 */
export function tentativeLabels(detections: readonly { label: string; score: number }[], clearScore = CLEAR_DETECTION_SCORE): string[] {
  const clear = new Set(detections.filter((d) => d.score >= clearScore).map((d) => d.label));
  return [...new Set(detections.map((d) => d.label))].filter((label) => !clear.has(label));
}
