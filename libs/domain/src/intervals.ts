/**
 * Interval algebra over the matched moments of one video: combined queries (API-CONTRACT §5.5.1)
 * and classification's matched time (API-CONTRACT §5.6).
 *
 * A list of moments is read as a score over time: at instant t the score is the best score of the
 * moments covering t (a moment covers [start, end)). Normalised lists are that function written
 * out: sorted, disjoint pieces of positive length, where touching pieces have different scores.
 * Pieces are not merged across a score change, so a long match keeps the score of each of its
 * segments; use `coalesce` to get one moment per continuous stretch (for clips).
 *
 * Scores (all in 0..1; inputs are clamped):
 * - OR (`union`) takes the best score at each instant (max).
 * - AND (`intersect`) takes the weakest (min): a conjunction is only as strong as its weakest part.
 * - NOT (`subtract`) keeps the origin's score where the subtrahend does not match.
 * - Pairs joined by proximity or by THEN give the whole stretch from the first to the last
 *   moment (their hull) the weaker of the scores; where such stretches overlap, the best one wins.
 *
 * Every function is pure: inputs are not mutated, and outputs are normalised.
 */
export interface Moment {
  start: number; // seconds
  end: number; // seconds
  score: number; // 0..1
}

/**
 * Pieces cut shorter than this (a twentieth of a second, about a frame) are boundary
 * misalignments between two searches, not matches: AND and NOT drop such remnants.
 */
export const MIN_MOMENT_SECONDS = 0.05;

/** Sorted, disjoint pieces with the best score at each instant; touching equal scores merge. */
export function normalise(moments: readonly Moment[]): Moment[] {
  const valid = moments.filter(isValidMoment).map((m) => ({ start: m.start, end: m.end, score: clampScore(m.score) }));
  return mergeEqualNeighbours(scoreOverTime(valid, bestScore));
}

function bestScore(covering: readonly Moment[]): number {
  let best = covering[0]!.score;
  for (let i = 1; i < covering.length; i++) best = Math.max(best, covering[i]!.score);
  return best;
}

/**
 * A score over time from timed items: one piece between each two consecutive starts or ends that
 * some item covers, scored by `scoreOf` of the items covering it (normalise takes their best;
 * search's clips combine their evidence). Items must have end > start. `covering` is one array
 * updated from piece to piece (search scores every piece of every matched video): read it during
 * the call, do not keep it.
 */
export function scoreOverTime<T extends { start: number; end: number }>(
  items: readonly T[],
  scoreOf: (covering: readonly T[]) => number,
): Moment[] {
  // One item (most videos of a search have one match): one piece, as the sweep below would make it.
  if (items.length === 1 && items[0]!.end > items[0]!.start) return [{ start: items[0]!.start, end: items[0]!.end, score: scoreOf(items) }];
  const boundaries = sortedUnique(items);
  const byStart = [...items].sort((a, b) => a.start - b.start);
  const pieces: Moment[] = [];
  let next = 0;
  const active: T[] = [];
  for (let i = 0; i + 1 < boundaries.length; i++) {
    const [from, to] = [boundaries[i]!, boundaries[i + 1]!];
    while (next < byStart.length && byStart[next]!.start <= from) active.push(byStart[next++]!);
    // Every end is a boundary, so an item still open after `from` covers the whole piece.
    let open = 0;
    for (const m of active) if (m.end > from) active[open++] = m;
    active.length = open;
    if (open > 0) pieces.push({ start: from, end: to, score: scoreOf(active) });
  }
  return pieces;
}

/** Seconds covered by at least one moment (overlaps counted once). */
export function coveredSeconds(moments: readonly Moment[]): number {
  return normalise(moments).reduce((total, m) => total + (m.end - m.start), 0);
}

/** OR: the best score at each instant. */
export function union(a: readonly Moment[], b: readonly Moment[]): Moment[] {
  return combine(a, b, (sa, sb) => (sa === undefined ? sb : sb === undefined ? sa : Math.max(sa, sb)));
}

/** OR of any number of lists. */
export function unionAll(lists: readonly (readonly Moment[])[]): Moment[] {
  return normalise(lists.flat());
}

/**
 * OR with proximity: gaps of at most `maxGap` seconds between moments are filled, so nearby
 * matches read as one stretch. A filled gap gets the weaker of its two neighbours' scores.
 */
export function closeGaps(moments: readonly Moment[], maxGap: number): Moment[] {
  const pieces = normalise(moments);
  if (!(maxGap > 0)) return pieces;
  const filled: Moment[] = [];
  for (const piece of pieces) {
    const previous = filled.at(-1);
    if (previous && piece.start > previous.end && piece.start - previous.end <= maxGap) {
      filled.push({ start: previous.end, end: piece.start, score: Math.min(previous.score, piece.score) });
    }
    filled.push(piece);
  }
  return mergeEqualNeighbours(filled);
}

/**
 * AND.
 * - Without proximity (or 0): where both match, with the weaker score; remnants shorter than
 *   MIN_MOMENT_SECONDS are dropped (moments that merely touch do not co-occur).
 * - With proximity p > 0 ("A and B within 5 s"): every pair of an a-moment and a b-moment at most
 *   p seconds apart (overlapping pairs included) yields the stretch covering both, from the first
 *   start to the last end, with the weaker score. The user asked for both things near each
 *   other, so the answer shows both, not the (possibly empty) gap between them.
 *   p is the largest gap between the two moments; each moment is not padded by p on both sides.
 */
export function intersect(a: readonly Moment[], b: readonly Moment[], proximity = 0): Moment[] {
  if (!(proximity > 0)) {
    const both = combine(a, b, (sa, sb) => (sa === undefined || sb === undefined ? undefined : Math.min(sa, sb)));
    return dropShortRuns(both);
  }
  const pieces = normalise(b);
  const hulls: Moment[] = [];
  for (const x of normalise(a)) {
    for (const y of pieces) {
      if (y.start > x.end + proximity) break;
      if (y.end < x.start - proximity) continue;
      hulls.push({ start: Math.min(x.start, y.start), end: Math.max(x.end, y.end), score: Math.min(x.score, y.score) });
    }
  }
  return normalise(hulls);
}

/** NOT: the parts of `a` where `b` does not match, with a's score; slivers are dropped. */
export function subtract(a: readonly Moment[], b: readonly Moment[]): Moment[] {
  return dropShortRuns(combine(a, b, (sa, sb) => (sb === undefined ? sa : undefined)));
}

/** THEN for two lists; see `sequence`. */
export function followedBy(a: readonly Moment[], b: readonly Moment[], proximity?: number): Moment[] {
  return sequence([a, b], proximity);
}

/**
 * THEN: a moment of each list in the given order, each one following the previous.
 * - "Following": the next moment neither starts nor ends before the previous one does
 *   (next.start >= prev.start and next.end >= prev.end). Overlap is allowed: two matches in the
 *   same segment may be in either order, and nothing contradicts the query. A moment lying strictly
 *   inside the previous one does not follow it.
 * - With proximity p: the next moment also starts at most p seconds after the previous one ends.
 *   Without: anywhere later in the video.
 * - Each chain yields the stretch from its first start to its last end, with its weakest score.
 *   For each moment of the last list only the tightest chain ending there counts (the one starting
 *   latest; on a tie the better score): without proximity, "crash then ambulance" should show the
 *   crash right before the ambulance, not everything since the first crash in the video.
 *
 * Chains are followed moment by moment rather than by folding pairs into stretches, because a
 * stretch forgets where its last moment started.
 */
export function sequence(lists: readonly (readonly Moment[])[], proximity?: number): Moment[] {
  if (lists.length === 0) return [];
  const follows = (previous: Moment, next: Moment) =>
    next.start >= previous.start && next.end >= previous.end && (proximity === undefined || next.start - previous.end <= proximity);
  let chains = normalise(lists[0]!).map((last) => ({ start: last.start, score: last.score, last }));
  for (const list of lists.slice(1)) {
    chains = normalise(list).flatMap((last) => {
      let best: { start: number; score: number } | undefined;
      for (const chain of chains) {
        if (!follows(chain.last, last)) continue;
        const score = Math.min(chain.score, last.score);
        if (!best || chain.start > best.start || (chain.start === best.start && score > best.score)) {
          best = { start: chain.start, score };
        }
      }
      return best ? [{ ...best, last }] : [];
    });
  }
  return normalise(chains.map((chain) => ({ start: chain.start, end: chain.last.end, score: chain.score })));
}

/** Each moment padded by `seconds` on both sides (never before 0). */
export function widen(moments: readonly Moment[], seconds: number): Moment[] {
  const pad = Math.max(0, seconds);
  return normalise(moments.map((m) => ({ start: Math.max(0, m.start - pad), end: m.end + pad, score: m.score })));
}

/** One moment per continuous stretch (overlapping or touching moments merge), with its best score. */
export function coalesce(moments: readonly Moment[]): Moment[] {
  const runs: Moment[] = [];
  for (const piece of normalise(moments)) {
    const last = runs.at(-1);
    if (last && piece.start <= last.end) runs[runs.length - 1] = { ...last, end: piece.end, score: Math.max(last.score, piece.score) };
    else runs.push(piece);
  }
  return runs;
}

/** Pointwise combination of two score functions over the pieces of both. */
function combine(
  a: readonly Moment[],
  b: readonly Moment[],
  scoreOf: (a: number | undefined, b: number | undefined) => number | undefined,
): Moment[] {
  const [pa, pb] = [normalise(a), normalise(b)];
  const boundaries = sortedUnique([...pa, ...pb]);
  const pieces: Moment[] = [];
  let [ia, ib] = [0, 0];
  for (let i = 0; i + 1 < boundaries.length; i++) {
    const [from, to] = [boundaries[i]!, boundaries[i + 1]!];
    while (ia < pa.length && pa[ia]!.end <= from) ia++;
    while (ib < pb.length && pb[ib]!.end <= from) ib++;
    const sa = ia < pa.length && pa[ia]!.start <= from ? pa[ia]!.score : undefined;
    const sb = ib < pb.length && pb[ib]!.start <= from ? pb[ib]!.score : undefined;
    const score = scoreOf(sa, sb);
    if (score !== undefined) pieces.push({ start: from, end: to, score });
  }
  return mergeEqualNeighbours(pieces);
}

/** Drops continuous stretches shorter than MIN_MOMENT_SECONDS (pieces of longer stretches stay). */
function dropShortRuns(pieces: readonly Moment[]): Moment[] {
  const kept: Moment[] = [];
  let run: Moment[] = [];
  const flush = () => {
    if (run.length > 0 && run.at(-1)!.end - run[0]!.start >= MIN_MOMENT_SECONDS) kept.push(...run);
    run = [];
  };
  for (const piece of pieces) {
    if (run.length > 0 && piece.start > run.at(-1)!.end) flush();
    run.push(piece);
  }
  flush();
  return kept;
}

function mergeEqualNeighbours(pieces: readonly Moment[]): Moment[] {
  const merged: Moment[] = [];
  for (const piece of pieces) {
    const last = merged.at(-1);
    if (last && last.end === piece.start && last.score === piece.score) last.end = piece.end;
    else merged.push({ start: piece.start, end: piece.end, score: piece.score });
  }
  return merged;
}

function isValidMoment(m: Moment): boolean {
  return Number.isFinite(m.start) && Number.isFinite(m.end) && m.end > m.start;
}

function clampScore(score: number): number {
  return Number.isNaN(score) ? 0 : Math.min(1, Math.max(0, score));
}

/**
 * The distinct starts and ends of the moments, ascending. Most calls have a moment or two (one
 * search scores each matched video), so a plain array sorted in place: a Set or a typed array
 * costs more to make than the sort.
 */
function sortedUnique(moments: readonly { start: number; end: number }[]): number[] {
  const values: number[] = [];
  for (const m of moments) values.push(m.start, m.end);
  values.sort((x, y) => x - y);
  let count = 0;
  for (const value of values) if (count === 0 || value !== values[count - 1]) values[count++] = value;
  values.length = count;
  return values;
}
