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

/** How one alternative of a query word matched a segment. */
export type MatchKind = 'direct' | 'expanded';

/**
 * Weight of a match found only among a label's WordNet expansions (the segment shows a car, the
 * query said vehicle): a guess one step removed from what was seen.
 */
export const EXPANDED_MATCH_FACTOR = 0.75;

export interface WeightedAlternative {
  /** 1 for the word itself, less for synonyms and hypernyms (libs expansion). */
  weight: number;
}

/**
 * A segment's lexical score: the mean over query word groups of the best alternative matched
 * (0 for a group with no match). `matchOf(g, a)` says how alternative `a` of group `g` matched.
 */
export function lexicalScore(
  groups: readonly { alternatives: readonly WeightedAlternative[] }[],
  matchOf: (group: number, alternative: number) => MatchKind | undefined,
): number {
  if (groups.length === 0) return 0;
  let total = 0;
  groups.forEach((group, g) => {
    let best = 0;
    group.alternatives.forEach((alternative, a) => {
      const kind = matchOf(g, a);
      if (!kind) return;
      best = Math.max(best, alternative.weight * (kind === 'expanded' ? EXPANDED_MATCH_FACTOR : 1));
    });
    total += best;
  });
  return clamp01(total / groups.length);
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
 * Fuses the scores of several options that matched the same moment: noisy-or, so that every
 * further agreeing option raises the score but never past 1, and one strong match is not diluted
 * by options that did not match.
 */
export function fuseScores(scores: readonly number[]): number {
  let miss = 1;
  for (const score of scores) miss *= 1 - clamp01(score);
  return clamp01(1 - miss);
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

export function confidenceOf(score: number, adjustConfidenceLevel = 0.5): Confidence {
  const cuts = confidenceCuts(adjustConfidenceLevel);
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
