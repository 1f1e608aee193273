/**
 * Classification scoring (API-CONTRACT §5.6): from the clips each prompt matched to, per video,
 * the classes it shows, how strongly and for how long. Pure; README "Classification scoring"
 * says the same in prose.
 *
 * Per video and class, over the class's clips in that video (every prompt's, at least
 * `min_clip_score`):
 * - `score`: the chance that at least one prompt is really there, reading each prompt's best clip
 *   score as its confidence: 100 × (1 − Π(1 − best_p / 100)). One strong prompt is enough; several
 *   prompts agreeing raise it.
 * - `duration_ratio`: the seconds covered by those clips (overlaps once) over the video's duration.
 * - `max_score`, `avg_score`: the best and the mean clip score; `normalized_score`: the score
 *   relative to the video's best class (that class is 100).
 * A class below `min_video_score` or `min_duration_ratio`, or without clips, is left out; a video
 * left without classes is left out.
 */
import { coveredSeconds, type CanonicalOption } from '@vus/domain';

/** One moment a prompt matched in a video, scored 0–100 (search's fused clip score). */
export interface PromptClip {
  videoId: string;
  /** The video's index (its thumbnails are named by it). */
  indexId: string;
  start: number;
  end: number;
  score: number;
  /** The search option that matched best. */
  option: CanonicalOption;
  prompt: string;
  thumbnailKey: string;
}

/** A class with every clip its prompts matched, in any of the classified videos. */
export interface ClassMatches {
  name: string;
  clips: readonly PromptClip[];
}

export interface VideoToClassify {
  id: string;
  /** Seconds. */
  duration: number;
}

/** Unset bounds do not filter. */
export interface Thresholds {
  minVideoScore?: number | undefined;
  minClipScore?: number | undefined;
  minDurationRatio?: number | undefined;
}

export interface DetailedScores {
  maxScore: number;
  avgScore: number;
  normalizedScore: number;
}

export interface ClassScore {
  name: string;
  score: number;
  durationRatio: number;
  detailedScores: DetailedScores;
  /** In time order. */
  clips: PromptClip[];
}

export interface VideoClassification {
  videoId: string;
  /** Best first. */
  classes: ClassScore[];
}

/** Scores and ratios are given to two decimals (as the real API does). */
const round2 = (value: number) => Math.round(value * 100) / 100;

/** 100 × (1 − Π(1 − s/100)) over each prompt's best clip score. */
export function classScore(clips: readonly PromptClip[]): number {
  const bestPerPrompt = new Map<string, number>();
  for (const clip of clips) bestPerPrompt.set(clip.prompt, Math.max(bestPerPrompt.get(clip.prompt) ?? 0, clip.score));
  let missing = 1;
  for (const best of bestPerPrompt.values()) missing *= 1 - Math.min(100, Math.max(0, best)) / 100;
  return 100 * (1 - missing);
}

/** Matched seconds over the video's seconds, at most 1; 0 for a video without a known duration. */
export function durationRatio(clips: readonly PromptClip[], videoDuration: number): number {
  if (!(videoDuration > 0)) return 0;
  const covered = coveredSeconds(clips.map((c) => ({ start: c.start, end: c.end, score: 1 })));
  return Math.min(1, covered / videoDuration);
}

const byTime = (a: PromptClip, b: PromptClip) =>
  a.start - b.start || a.end - b.end || b.score - a.score || a.prompt.localeCompare(b.prompt);

/** One class in one video, or undefined when it has no clip or misses a threshold. */
function scoreClass(
  name: string,
  clips: readonly PromptClip[],
  video: VideoToClassify,
  thresholds: Thresholds,
): (Omit<ClassScore, 'detailedScores'> & { maxScore: number; avgScore: number }) | undefined {
  const kept = clips.filter((c) => c.score >= (thresholds.minClipScore ?? 0));
  if (kept.length === 0) return undefined;
  const score = round2(classScore(kept));
  const ratio = round2(durationRatio(kept, video.duration));
  if (score < (thresholds.minVideoScore ?? 0) || ratio < (thresholds.minDurationRatio ?? 0)) return undefined;
  const scores = kept.map((c) => c.score);
  return {
    name,
    score,
    durationRatio: ratio,
    maxScore: round2(Math.max(...scores)),
    avgScore: round2(scores.reduce((a, b) => a + b, 0) / scores.length),
    clips: [...kept].sort(byTime),
  };
}

/** Each class's clips by video, for classifyVideo. */
export function clipsByClassAndVideo(classes: readonly ClassMatches[]): Map<string, PromptClip[]>[] {
  return classes.map((c) => {
    const byVideo = new Map<string, PromptClip[]>();
    for (const clip of c.clips) {
      const list = byVideo.get(clip.videoId);
      if (list) list.push(clip);
      else byVideo.set(clip.videoId, [clip]);
    }
    return byVideo;
  });
}

/**
 * One video's classes, by score, then by their order in the request; undefined when it shows none.
 * `clipsByClass` is clipsByClassAndVideo(classes).
 */
export function classifyVideo(
  video: VideoToClassify,
  classes: readonly ClassMatches[],
  clipsByClass: readonly Map<string, PromptClip[]>[],
  thresholds: Thresholds,
): VideoClassification | undefined {
  const scored = classes
    .map((c, i) => ({ order: i, found: scoreClass(c.name, clipsByClass[i]!.get(video.id) ?? [], video, thresholds) }))
    .filter((entry): entry is { order: number; found: NonNullable<typeof entry.found> } => entry.found !== undefined)
    .sort((a, b) => b.found.score - a.found.score || a.order - b.order);
  if (scored.length === 0) return undefined;
  const best = scored[0]!.found.score;
  return {
    videoId: video.id,
    classes: scored.map(({ found: { maxScore, avgScore, ...rest } }) => ({
      ...rest,
      detailedScores: { maxScore, avgScore, normalizedScore: best > 0 ? round2((100 * rest.score) / best) : 0 },
    })),
  };
}

/** Videos best first: by their best class's score, then by id, so the order (and every page cut from it) is the same each time. */
export function byBestClass(a: VideoClassification, b: VideoClassification): number {
  return b.classes[0]!.score - a.classes[0]!.score || (a.videoId < b.videoId ? -1 : a.videoId > b.videoId ? 1 : 0);
}

/** Every video that shows at least one class, best first (byBestClass), each with its classes (classifyVideo). */
export function classifyVideos(
  videos: readonly VideoToClassify[],
  classes: readonly ClassMatches[],
  thresholds: Thresholds,
): VideoClassification[] {
  const clipsByClass = clipsByClassAndVideo(classes);
  return videos.flatMap((video) => classifyVideo(video, classes, clipsByClass, thresholds) ?? []).sort(byBestClass);
}
