/**
 * From matched segments to the result list: the matches of one video become a score over time,
 * moments where it stands out merge into clips (one clip per moment, with its real start and end,
 * saying which options matched it and how well); clips are then filtered, ranked and, with
 * `group_by=video`, grouped — the same clips either way.
 */
import { CANONICAL_OPTIONS, intersect, scoreOverTime, unionAll, type CanonicalOption, type Moment } from '@vus/domain';
import {
  CONFIDENCE_CUTS,
  MOMENT_MERGE_GAP_SEC,
  confidenceOf,
  coverageScore,
  fuseScores,
  meetsThreshold,
  momentScore,
  type Confidence,
  type Threshold,
} from './scoring';

/** A search goes through the canonical options (@vus/core's vocabulary). */
export const SEARCH_OPTIONS = CANONICAL_OPTIONS;
export type SearchOption = CanonicalOption;

/** One segment that answered the query through one option, with its calibrated score. */
export interface SegmentMatch {
  videoId: string;
  start: number;
  end: number;
  option: SearchOption;
  score: number;
  /**
   * A text query's lexical matches: per word group of the query, the weight this segment matched
   * (scoring.ts groupCoverage). Absent for evidence about the whole query (vectors, exact_match,
   * an image's labels).
   */
  coverage?: readonly number[] | undefined;
  /** What matched: the transcript line, on-screen text or logo name; empty for visual. */
  text: string;
  thumbnailKey: string;
}

export interface ClipModule {
  option: SearchOption;
  score: number;
  confidence: Confidence;
}

export interface Clip {
  videoId: string;
  start: number;
  end: number;
  score: number;
  confidence: Confidence;
  /** One per option that matched, in the order of SEARCH_OPTIONS. */
  modules: ClipModule[];
  /** What matched, per option (v1.2 `metadata`); visual carries no text. */
  matches: { option: SearchOption; text: string }[];
  thumbnailKey: string;
  /** The matched transcript lines, in time order (v1.3 `transcription`). */
  transcription: string;
  /** 1-based position among all clips of the result set. */
  rank: number;
}

export interface ClipRules {
  /** `and`: a clip must be matched by every requested option; `or`: by any. */
  operator: 'and' | 'or';
  options: readonly SearchOption[];
  threshold: Threshold;
  adjustConfidenceLevel: number;
}

/** A match must overlap a moment by this much to be part of its clip (a frame: touching is not overlapping). */
const MIN_OVERLAP_SEC = 0.05;
const MAX_MATCH_TEXTS = 5;
/**
 * A video's moments stand out from its score over time: instants at least this share of the
 * video's best (and at least the `low` cut) make its clips; weaker stretches are clips of their own
 * (shown only with a threshold that keeps them), never glue between strong ones.
 */
const PEAK_SHARE = 0.5;

/**
 * Moments of each video (momentsOf), each a clip scored by its best instant with the length bonus,
 * kept when the operator and threshold allow, ranked by score (ties: earlier video id, then
 * earlier start, so the order is stable).
 */
export function clipsOf(matches: readonly SegmentMatch[], rules: ClipRules): Clip[] {
  const byVideo = new Map<string, SegmentMatch[]>();
  for (const match of matches) {
    const list = byVideo.get(match.videoId);
    if (list) list.push(match);
    else byVideo.set(match.videoId, [match]);
  }
  const clips: Clip[] = [];
  for (const [videoId, videoMatches] of byVideo) {
    for (const moment of momentsOf(videoMatches)) {
      // A clip's confidence is its moment's: the moments the threshold drops (the weak ones,
      // usually most of them) are not made into clips at all.
      const confidence = confidenceOf(moment.score, rules.adjustConfidenceLevel);
      if (!meetsThreshold(confidence, rules.threshold)) continue;
      const inside = matchesInside(moment, videoMatches);
      const best = bestPerOption(inside);
      if (rules.operator === 'and' && !rules.options.every((o) => best.has(o))) continue;
      clips.push(clipOf(videoId, moment, confidence, inside, best, rules.adjustConfidenceLevel));
    }
  }
  return rankClips(clips);
}

/**
 * A composed query (text and an image) asks for moments that answer both: each side's matches are
 * kept only where the other side matches the same video at the same time, cut to that shared
 * time, so the clips are where both hold and their evidence adds up (instantScore). A side with
 * no match at all leaves nothing. Pure.
 */
export function composedMatches(byText: readonly SegmentMatch[], byImage: readonly SegmentMatch[]): SegmentMatch[] {
  /** Each video's matched time (scores aside). */
  const timesOf = (matches: readonly SegmentMatch[]) => {
    const byVideo = new Map<string, Moment[]>();
    for (const m of matches) {
      const times = byVideo.get(m.videoId) ?? [];
      times.push({ start: m.start, end: m.end, score: 1 });
      byVideo.set(m.videoId, times);
    }
    return new Map([...byVideo].map(([videoId, times]) => [videoId, unionAll([times])]));
  };
  const [textTimes, imageTimes] = [timesOf(byText), timesOf(byImage)];
  const shared = new Map<string, Moment[]>();
  for (const [videoId, times] of textTimes) {
    const other = imageTimes.get(videoId);
    if (other) shared.set(videoId, intersect(times, other));
  }
  return [...byText, ...byImage].flatMap((m) =>
    (shared.get(m.videoId) ?? []).flatMap((both) => {
      const [start, end] = [Math.max(m.start, both.start), Math.min(m.end, both.end)];
      return end - start >= MIN_OVERLAP_SEC ? [{ ...m, start, end }] : [];
    }),
  );
}

/** Sorts by score (stable ties) and numbers the clips. */
export function rankClips(clips: Clip[]): Clip[] {
  clips.sort((a, b) => b.score - a.score || (a.videoId < b.videoId ? -1 : a.videoId > b.videoId ? 1 : 0) || a.start - b.start);
  clips.forEach((clip, i) => (clip.rank = i + 1));
  return clips;
}

/**
 * Merges moments that overlap, touch or lie at most `maxGap` seconds apart into one, spanning them
 * all; its score is momentScore: the best of the merged scores plus the capped length bonus. One
 * pass over the moments by start (it runs for every video of every search).
 */
export function mergeMoments(moments: readonly Moment[], maxGap = MOMENT_MERGE_GAP_SEC): Moment[] {
  const merged: Moment[] = [];
  for (const m of [...moments].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last && m.start <= last.end + maxGap) {
      last.end = Math.max(last.end, m.end);
      last.score = Math.max(last.score, m.score);
    } else merged.push({ start: m.start, end: m.end, score: m.score });
  }
  for (const m of merged) m.score = momentScore(m.score, m.end - m.start);
  return merged;
}

/**
 * The evidence at one instant, from the matches covering it: the query's words as covered by all
 * of them together (a word is covered by the best match of it, whichever option: a person seen
 * covers "man", speech heard covers "talking"), fused (scoring.ts fuseScores) with each option's
 * best evidence about the whole query (vectors, exact phrases, image labels), in the order the
 * options first appear among the matches.
 *
 * It runs for every piece of every video's score over time, so it allocates nothing: the words'
 * coverage and the evidence go through buffers of this module, reused from one call to the next
 * (the function is synchronous, so no two calls share them).
 */
export function instantScore(covering: readonly SegmentMatch[]): number {
  let words = 0;
  for (const match of covering) if (match.coverage && match.coverage.length > words) words = match.coverage.length;
  if (wordBuffer.length < words) wordBuffer = new Float64Array(Math.max(words, 2 * wordBuffer.length));
  wordBuffer.fill(0, 0, words);
  // evidence[0]: the words' coverage score; then each option's best whole-query score.
  let options = 0;
  for (const match of covering) {
    const coverage = match.coverage;
    if (coverage) {
      for (let g = 0; g < coverage.length; g++) wordBuffer[g] = Math.max(wordBuffer[g]!, coverage[g]!);
      continue;
    }
    const slot = OPTION_SLOT[match.option];
    let at = 0;
    while (at < options && evidenceOption[at] !== slot) at++;
    if (at === options) {
      evidenceOption[options++] = slot;
      evidenceBuffer[1 + at] = Math.max(0, match.score);
    } else evidenceBuffer[1 + at] = Math.max(evidenceBuffer[1 + at]!, match.score);
  }
  evidenceBuffer[0] = words > 0 ? coverageScore(wordBuffer, words) : 0;
  return fuseScores(evidenceBuffer, 1 + options);
}

/** instantScore's buffers: per query word its best coverage; the evidence and its options' slots in SEARCH_OPTIONS. */
let wordBuffer = new Float64Array(16);
const evidenceBuffer = new Float64Array(1 + SEARCH_OPTIONS.length);
const evidenceOption = new Int8Array(SEARCH_OPTIONS.length);
const OPTION_SLOT = Object.fromEntries(SEARCH_OPTIONS.map((option, slot) => [option, slot])) as Record<SearchOption, number>;

/**
 * A video's moments: its score over time (instantScore between consecutive match boundaries),
 * then the stretches at or above max(low cut, half the video's best) merged into moments
 * (mergeMoments), and the weaker stretches outside them merged into moments of their own.
 */
export function momentsOf(matches: readonly SegmentMatch[]): Moment[] {
  const pieces = scoreOverTimeOf(matches);
  // Most videos of a result have one matching stretch: it is their one moment.
  if (pieces.length === 1) {
    const [only] = pieces as [Moment];
    return [{ start: only.start, end: only.end, score: momentScore(only.score, only.end - only.start) }];
  }
  let peak = 0;
  for (const piece of pieces) peak = Math.max(peak, piece.score);
  const floor = Math.max(CONFIDENCE_CUTS.low, PEAK_SHARE * peak);
  const strong = mergeMoments(pieces.filter((p) => p.score >= floor));
  // The weaker pieces outside the strong moments (those inside were bridged), merged among
  // themselves but never across a strong moment. Pieces are sorted and disjoint.
  const weakRuns: Moment[][] = [[]];
  let next = 0;
  for (const piece of pieces) {
    if (piece.score >= floor) continue;
    while (next < strong.length && strong[next]!.end <= piece.start) {
      next += 1;
      weakRuns.push([]);
    }
    const around = strong[next];
    if (around && piece.start >= around.start && piece.end <= around.end) continue;
    weakRuns.at(-1)!.push(piece);
  }
  return [...strong, ...weakRuns.flatMap((run) => mergeMoments(run))].sort((a, b) => a.start - b.start);
}

/** instantScore over time (@vus/core scoreOverTime); a match at a point in time (start = end) lasts a frame, so that it is a moment too. */
function scoreOverTimeOf(matches: readonly SegmentMatch[]): Moment[] {
  const timed = matches.some((m) => !(m.end > m.start))
    ? matches.map((m) => (m.end > m.start ? m : { ...m, end: m.start + MIN_OVERLAP_SEC }))
    : matches;
  return scoreOverTime(timed, instantScore);
}

/** The video's matches that overlap the moment (a match at a point in time: touching it). */
function matchesInside(moment: Moment, videoMatches: readonly SegmentMatch[]): SegmentMatch[] {
  return videoMatches.filter(
    (m) => Math.min(m.end, moment.end) - Math.max(m.start, moment.start) >= Math.min(MIN_OVERLAP_SEC, m.end - m.start),
  );
}

/** Each option's best-scored match (the first of equals). */
function bestPerOption(inside: readonly SegmentMatch[]): Map<SearchOption, SegmentMatch> {
  const best = new Map<SearchOption, SegmentMatch>();
  for (const match of inside) {
    const held = best.get(match.option);
    if (!held || match.score > held.score) best.set(match.option, match);
  }
  return best;
}

function clipOf(
  videoId: string,
  moment: Moment,
  confidence: Confidence,
  inside: readonly SegmentMatch[],
  best: ReadonlyMap<SearchOption, SegmentMatch>,
  adjustConfidenceLevel: number,
): Clip {
  const modules = SEARCH_OPTIONS.filter((o) => best.has(o)).map((option): ClipModule => {
    const score = best.get(option)!.score;
    return { option, score, confidence: confidenceOf(score, adjustConfidenceLevel) };
  });
  const bestOverall = inside.length === 1 ? inside : [...inside].sort((a, b) => b.score - a.score);
  const matches: Clip['matches'] = [];
  for (const match of bestOverall) {
    const text = match.option === 'visual' ? '' : match.text;
    if (matches.some((m) => m.option === match.option && m.text === text)) continue;
    if (matches.length < MAX_MATCH_TEXTS) matches.push({ option: match.option, text });
  }
  return {
    videoId,
    start: moment.start,
    end: moment.end,
    score: moment.score,
    confidence,
    modules,
    matches,
    thumbnailKey: bestOverall.find((m) => m.thumbnailKey)?.thumbnailKey ?? '',
    transcription: transcriptionOf(inside),
    rank: 0,
  };
}

/** The conversation matches' lines in time order, each once. */
function transcriptionOf(inside: readonly SegmentMatch[]): string {
  const lines = inside.filter((m) => m.option === 'conversation');
  if (lines.length <= 1) return lines[0]?.text ?? '';
  return lines
    .sort((a, b) => a.start - b.start)
    .map((m) => m.text)
    .filter((text, i, all) => all.indexOf(text) === i)
    .join(' ');
}

export interface VideoGroup {
  videoId: string;
  clips: Clip[];
}

/**
 * `group_by=video`: each video with its clips (best first). `score` orders videos by their best
 * clip; `clip_count` by how many clips matched, then by best clip.
 */
export function groupByVideo(rankedClips: readonly Clip[], sortOption: 'score' | 'clip_count'): VideoGroup[] {
  const groups = new Map<string, VideoGroup>();
  for (const clip of rankedClips) {
    const group = groups.get(clip.videoId);
    if (group) group.clips.push(clip);
    else groups.set(clip.videoId, { videoId: clip.videoId, clips: [clip] });
  }
  const list = [...groups.values()];
  // Clips arrive ranked, so each group's first clip is its best and Map order is by best clip.
  if (sortOption === 'clip_count') {
    list.sort((a, b) => b.clips.length - a.clips.length || a.clips[0]!.rank - b.clips[0]!.rank);
  }
  return list;
}
