import { ApiError, type ErrorCode } from '@vus/core';
import type { MediaProbe } from './probe';

/** The limits a video must meet to be indexed (API-CONTRACT §5.3). */
export interface IndexingRules {
  minDurationSec: number;
  maxDurationSec: number;
  /** Smallest allowed size: both sides at least this (360x360). */
  minWidth: number;
  minHeight: number;
  /**
   * Largest allowed size, as a landscape frame (5184x2160). Portrait videos are measured turned on
   * their side, so 2160x3840 is as acceptable as 3840x2160.
   */
  maxWidth: number;
  maxHeight: number;
  /**
   * The index only indexes what is said (conversation / audio only): a video without an audio
   * track has nothing to index and fails with `audio_file_broken`.
   */
  requireAudio: boolean;
}

export const DEFAULT_INDEXING_RULES: Readonly<IndexingRules> = Object.freeze({
  minDurationSec: 4,
  maxDurationSec: 2 * 60 * 60,
  minWidth: 360,
  minHeight: 360,
  maxWidth: 5184,
  maxHeight: 2160,
  requireAudio: false,
});

/** One reason a video cannot be indexed, with a message the uploader can act on. */
export interface MediaProblem {
  code: Extract<
    ErrorCode,
    'video_duration_too_short' | 'video_duration_too_long' | 'video_resolution_too_low' | 'video_resolution_too_high' | 'audio_file_broken'
  >;
  message: string;
}

/**
 * Checks a probed video against the indexing rules. Pure. Returns every problem found (in the
 * order duration, resolution, audio), so the first one is the most basic; `[]` means indexable.
 */
export function validateForIndexing(probe: MediaProbe, rules: Partial<IndexingRules> = {}): MediaProblem[] {
  const r: IndexingRules = { ...DEFAULT_INDEXING_RULES, ...rules };
  const problems: MediaProblem[] = [];
  const duration = probe.durationSec;
  if (duration < r.minDurationSec) {
    problems.push({
      code: 'video_duration_too_short',
      message: `The video is too short: ${formatSeconds(duration)}. The duration must be between ${formatSeconds(r.minDurationSec)} and ${formatSeconds(r.maxDurationSec)}; upload a longer video.`,
    });
  } else if (duration > r.maxDurationSec) {
    problems.push({
      code: 'video_duration_too_long',
      message: `The video is too long: ${formatSeconds(duration)}. The duration must be between ${formatSeconds(r.minDurationSec)} and ${formatSeconds(r.maxDurationSec)}; split it into shorter videos.`,
    });
  }

  const { width, height } = probe.video;
  const range = `between ${r.minWidth}x${r.minHeight} and ${r.maxWidth}x${r.maxHeight}`;
  const [longSide, shortSide] = width >= height ? [width, height] : [height, width];
  const [maxLong, maxShort] = r.maxWidth >= r.maxHeight ? [r.maxWidth, r.maxHeight] : [r.maxHeight, r.maxWidth];
  if (width < r.minWidth || height < r.minHeight) {
    problems.push({
      code: 'video_resolution_too_low',
      message: `The video resolution is too low. The resolution must be ${range}. Current resolution is ${width}x${height}.`,
    });
  } else if (longSide > maxLong || shortSide > maxShort) {
    problems.push({
      code: 'video_resolution_too_high',
      message: `The video resolution is too high. The resolution must be ${range}. Current resolution is ${width}x${height}.`,
    });
  }

  if (r.requireAudio && !probe.hasAudio) {
    problems.push({
      code: 'audio_file_broken',
      message:
        'The video has no audio track, and this index only indexes audio (conversation). Upload a video with sound, or use an index with the visual option.',
    });
  }
  return problems;
}

/** The error a task fails with for a problem (the worker stores its message as the reason). */
export function mediaProblemError(problem: MediaProblem): ApiError {
  return new ApiError(problem.code, problem.message);
}

/** `2.0 s`, `4 s`, `2 h`, `1 h 30 min 5 s`: short, exact enough for a person. */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  const total = Math.round(seconds);
  const parts: string[] = [];
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h) parts.push(`${h} h`);
  if (m) parts.push(`${m} min`);
  if (s) parts.push(`${s} s`);
  return parts.join(' ');
}
