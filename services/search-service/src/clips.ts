/**
 * From matched segments to the result list: moments of one video that matched (through any
 * option) merge into one clip that says which options matched it and how well; clips are then
 * filtered, ranked and, with `group_by=video`, grouped.
 */
import { CANONICAL_OPTIONS, type CanonicalOption } from '@vus/core';
import { confidenceOf, fuseScores, meetsThreshold, type Confidence, type Threshold } from './scoring';

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

/**
 * How far two matches must overlap to be one moment: matches that only touch (one line of text
 * replaced by the next) stay separate clips.
 */
const MIN_OVERLAP_SEC = 0.05;
const MAX_MATCH_TEXTS = 5;

/**
 * Merges each video's overlapping matches into clips, scores them (noisy-or of
 * the best score per option), keeps those the operator and the threshold allow, and ranks them
 * by score (ties: earlier video id, then earlier start, so the order is stable).
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
    for (const run of overlappingRuns(videoMatches)) {
      const clip = clipOf(videoId, run, rules.adjustConfidenceLevel);
      if (rules.operator === 'and' && !rules.options.every((o) => clip.modules.some((m) => m.option === o))) continue;
      if (!meetsThreshold(clip.confidence, rules.threshold)) continue;
      clips.push(clip);
    }
  }
  return rankClips(clips);
}

/** Sorts by score (stable ties) and numbers the clips. */
export function rankClips(clips: Clip[]): Clip[] {
  clips.sort((a, b) => b.score - a.score || (a.videoId < b.videoId ? -1 : a.videoId > b.videoId ? 1 : 0) || a.start - b.start);
  clips.forEach((clip, i) => (clip.rank = i + 1));
  return clips;
}

/** Runs of matches whose times overlap, each run sorted by start. */
function overlappingRuns(matches: SegmentMatch[]): SegmentMatch[][] {
  const sorted = [...matches].sort((a, b) => a.start - b.start || a.end - b.end);
  const runs: SegmentMatch[][] = [];
  let current: SegmentMatch[] = [];
  let currentEnd = -Infinity;
  for (const match of sorted) {
    if (current.length > 0 && match.start > currentEnd - MIN_OVERLAP_SEC) {
      runs.push(current);
      current = [];
      currentEnd = -Infinity;
    }
    current.push(match);
    currentEnd = Math.max(currentEnd, match.end);
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function clipOf(videoId: string, run: readonly SegmentMatch[], adjustConfidenceLevel: number): Clip {
  const best = new Map<SearchOption, SegmentMatch>();
  for (const match of run) {
    const held = best.get(match.option);
    if (!held || match.score > held.score) best.set(match.option, match);
  }
  const modules = SEARCH_OPTIONS.filter((o) => best.has(o)).map((option): ClipModule => {
    const score = best.get(option)!.score;
    return { option, score, confidence: confidenceOf(score, adjustConfidenceLevel) };
  });
  const score = fuseScores(modules.map((m) => m.score));
  const bestOverall = [...run].sort((a, b) => b.score - a.score);
  const matches: Clip['matches'] = [];
  for (const match of bestOverall) {
    const text = match.option === 'visual' ? '' : match.text;
    if (matches.some((m) => m.option === match.option && m.text === text)) continue;
    if (matches.length < MAX_MATCH_TEXTS) matches.push({ option: match.option, text });
  }
  return {
    videoId,
    start: Math.min(...run.map((m) => m.start)),
    end: Math.max(...run.map((m) => m.end)),
    score,
    confidence: confidenceOf(score, adjustConfidenceLevel),
    modules,
    matches,
    thumbnailKey: bestOverall.find((m) => m.thumbnailKey)?.thumbnailKey ?? '',
    transcription: run
      .filter((m) => m.option === 'conversation')
      .map((m) => m.text)
      .filter((text, i, all) => all.indexOf(text) === i)
      .join(' '),
    rank: 0,
  };
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
