/**
 * Scores of search: every retrieval path yields a calibrated score in 0..1 (how well a segment
 * answers the query), options are fused into one, and the fused score maps to a confidence.
 *
 * Why calibrated scores and not reciprocal rank fusion: `threshold` and `confidence` are absolute
 * ("high" must mean the same on an index of three videos and of ten thousand), and RRF only orders.
 * A lexical score is the share of the query's words a segment covers, each word counted by how
 * directly it matched (itself, a synonym, a hypernym); a vector score is the cosine similarity
 * rescaled over the range where CLIP's text-image similarities live. Both read as "fraction of
 * the query answered", so they can be fused and cut the same way.
 */

export type Confidence = 'high' | 'medium' | 'low' | 'none';
export type Threshold = Confidence;

/**
 * How one alternative of a query word matched a segment: its own words or a label seen clearly
 * (direct), a label's broader word (expanded), or the same through a label the detector only
 * guessed at (tentative, tentative-expanded).
 */
export type MatchKind = 'direct' | 'expanded' | 'tentative' | 'tentative-expanded';

/**
 * Weight of a match found only among a label's WordNet expansions (the segment shows a car, the
 * query said vehicle): a guess one step removed from what was seen.
 */
export const EXPANDED_MATCH_FACTOR = 0.75;

/**
 * Weight of a match on a label seen only tentatively (a detection under the detector's clear score,
 * @vus/models CLEAR_DETECTION_SCORE). With the longest moment's bonus it stays under `high`'s cut
 * (0.7 + 0.05 < 0.8), so a weak detection alone never answers with high confidence.
 */
export const TENTATIVE_MATCH_FACTOR = 0.7;

const MATCH_FACTORS: Readonly<Record<MatchKind, number>> = {
  direct: 1,
  expanded: EXPANDED_MATCH_FACTOR,
  tentative: TENTATIVE_MATCH_FACTOR,
  'tentative-expanded': TENTATIVE_MATCH_FACTOR * EXPANDED_MATCH_FACTOR,
};

export interface WeightedAlternative {
  /** 1 for the word itself, less for synonyms and hypernyms (libs expansion). */
  weight: number;
}

/**
 * Per query word group, the weight of its best matched alternative (0 for a group with no match):
 * how well a segment covers each word of the query. `matchOf(g, a)` says how alternative `a` of
 * group `g` matched.
 */
export function groupCoverage(
  groups: readonly { alternatives: readonly WeightedAlternative[] }[],
  matchOf: (group: number, alternative: number) => MatchKind | undefined,
): number[] {
  // Loops, not map/forEach: this runs per candidate, hundreds of times a search (issue 31).
  const coverage = new Array<number>(groups.length);
  for (let g = 0; g < groups.length; g++) {
    const alternatives = groups[g]!.alternatives;
    let best = 0;
    for (let a = 0; a < alternatives.length; a++) {
      const kind = matchOf(g, a);
      if (kind) best = Math.max(best, alternatives[a]!.weight * MATCH_FACTORS[kind]);
    }
    coverage[g] = best;
  }
  return coverage;
}

/**
 * A moment that answers one word of a query of a few words well is a partial answer, not noise:
 * its score is at least this share of its best word's coverage ("cooking show sardines marathon
 * launch" finds the marathon line at 0.35, low, rather than at 1/5). With one or two words the mean
 * is always at least this much. Beyond PARTIAL_ANSWER_WORDS words the floor shrinks in proportion:
 * one word of a 500-word text is not an answer to it.
 */
export const PARTIAL_ANSWER_FACTOR = 0.35;
export const PARTIAL_ANSWER_WORDS = 6;

/**
 * The score of a coverage (groupCoverage): the mean over the query's words, at least the
 * partial-answer floor. `words`: how many of `coverage` are the query's words (all of them unless
 * told; clips.ts reads a reused buffer's first few).
 */
export function coverageScore(coverage: ArrayLike<number>, words = coverage.length): number {
  if (words === 0) return 0;
  let total = 0;
  let best = 0;
  for (let g = 0; g < words; g++) {
    const clamped = clamp01(coverage[g]!);
    total += clamped;
    best = Math.max(best, clamped);
  }
  const floor = PARTIAL_ANSWER_FACTOR * best * Math.min(1, PARTIAL_ANSWER_WORDS / words);
  return clamp01(Math.max(total / words, floor));
}

/** A segment's lexical score: coverageScore of its groupCoverage. */
export function lexicalScore(
  groups: readonly { alternatives: readonly WeightedAlternative[] }[],
  matchOf: (group: number, alternative: number) => MatchKind | undefined,
): number {
  return coverageScore(groupCoverage(groups, matchOf));
}

/**
 * CLIP ViT-B/32 text-image cosine similarities of matching pairs sit around 0.25–0.35 and of
 * unrelated ones around 0.10–0.18: the score rises linearly over that band.
 */
export const VECTOR_SCORE_BAND = { floor: 0.15, ceiling: 0.33 } as const;

export function vectorScore(cosineSimilarity: number, band: { floor: number; ceiling: number } = VECTOR_SCORE_BAND): number {
  return clamp01((cosineSimilarity - band.floor) / (band.ceiling - band.floor));
}

/**
 * Fuses the scores of several independent pieces of evidence for the same moment: noisy-or, so
 * that every further agreeing piece raises the score but never past 1, and one strong match is
 * not diluted by options that did not match. Coverage of the query's words is one piece however
 * many options supplied it (a person seen and "talking" heard cover two words of one query: see
 * clips.ts), so words are never counted twice. `count`: the first this many of `scores` (all unless told).
 */
export function fuseScores(scores: ArrayLike<number>, count = scores.length): number {
  let miss = 1;
  for (let i = 0; i < count; i++) miss *= 1 - clamp01(scores[i]!);
  return clamp01(1 - miss);
}

/**
 * Moments: matches of one video closer than this merge into one clip (one-second scenes that
 * follow each other, a line of speech over them), so a query answers with a few clips per video.
 */
export const MOMENT_MERGE_GAP_SEC = 1;
/**
 * A merged moment's score is its best instant's, plus a small bonus for length: the same answer
 * seen over several seconds is a little more certain than one frame of it. The bonus is capped
 * (0.05, reached at 11 s) below the width of a confidence band, so length can lift a moment across
 * at most one cut point it nearly reached, never make a weak match strong.
 */
export const LENGTH_BONUS_PER_SEC = 0.005;
export const LENGTH_BONUS_CAP = 0.05;

export function momentScore(peak: number, seconds: number): number {
  return clamp01(clamp01(peak) + Math.min(LENGTH_BONUS_CAP, LENGTH_BONUS_PER_SEC * Math.max(0, seconds - 1)));
}

/**
 * Cut points of the confidences at the default `adjust_confidence_level` (0.5). A score of 1 is
 * every query word matched directly; 0.75 is three of four; 0.5 half.
 */
export const CONFIDENCE_CUTS = { high: 0.8, medium: 0.6, low: 0.3 } as const;

/**
 * `adjust_confidence_level` (0..1) moves every cut point together: above 0.5 is stricter, below
 * more lenient, by up to ±0.2.
 */
export function confidenceCuts(adjustConfidenceLevel = 0.5): { high: number; medium: number; low: number } {
  const shift = (clamp01(adjustConfidenceLevel) - 0.5) * 0.4;
  return { high: CONFIDENCE_CUTS.high + shift, medium: CONFIDENCE_CUTS.medium + shift, low: CONFIDENCE_CUTS.low + shift };
}

/** The default level's cuts, made once: every clip and module of a search asks. */
const DEFAULT_CUTS = confidenceCuts(0.5);

export function confidenceOf(score: number, adjustConfidenceLevel = 0.5): Confidence {
  const cuts = adjustConfidenceLevel === 0.5 ? DEFAULT_CUTS : confidenceCuts(adjustConfidenceLevel);
  if (score >= cuts.high) return 'high';
  if (score >= cuts.medium) return 'medium';
  if (score >= cuts.low) return 'low';
  return 'none';
}

const RANK: Readonly<Record<Confidence, number>> = { none: 0, low: 1, medium: 2, high: 3 };

/** `threshold` keeps results at or above its confidence; `none` keeps everything. */
export function meetsThreshold(confidence: Confidence, threshold: Threshold): boolean {
  return RANK[confidence] >= RANK[threshold];
}

/** The 0–100 score the API shows, two decimals. */
export function displayScore(score: number): number {
  return Math.round(clamp01(score) * 10000) / 100;
}

function clamp01(n: number): number {
  if (!(n > 0)) return 0;
  return n > 1 ? 1 : n;
}
