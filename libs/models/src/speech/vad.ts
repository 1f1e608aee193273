import { SPEECH_SAMPLE_RATE, type SampleSource } from '../audio';

/**
 * Voice activity by energy: where the audio is loud enough, for long enough, to hold speech.
 * Recognisers then read only those stretches, so silence costs no CPU and long silent gaps
 * cannot be filled with invented words. Pure; 16 kHz mono samples in -1…1.
 *
 * The threshold adapts to the recording: a frame is speech when it stands well above the quiet
 * floor of this file (its 10th percentile of frame energy) — or, in talk with hardly a pause,
 * when it is within reach of the file's loud level (its 90th percentile) — and always above an
 * absolute floor (a file of faint hiss is not speech). Music and noise pass too; telling them from
 * speech is the recogniser's job.
 */

/** A stretch of audio, seconds from the start. */
export interface SpeechRegion {
  readonly start: number;
  readonly end: number;
}

export interface SpeechDetectionOptions {
  readonly sampleRate?: number;
  /** Frames quieter than this (dBFS) are never speech. */
  readonly minLevelDb?: number;
  /** How far above the file's quiet floor (dB) a frame must be to count as speech… */
  readonly aboveFloorDb?: number;
  /** …unless it is at most this far (dB) below the file's loud level. */
  readonly belowLoudDb?: number;
  /** Pauses shorter than this (s) do not split a region (speech has short pauses between words). */
  readonly bridgeSec?: number;
  /** Regions shorter than this (s) after bridging are clicks, not speech. */
  readonly minRegionSec?: number;
  /** Kept on each side of a region (s), so word onsets and endings are not cut off. */
  readonly padSec?: number;
  /** Longer regions are cut (at their quietest frame near the limit) so work can be shared out. */
  readonly maxRegionSec?: number;
}

export const SPEECH_DETECTION_DEFAULTS = {
  sampleRate: SPEECH_SAMPLE_RATE,
  minLevelDb: -50,
  aboveFloorDb: 10,
  belowLoudDb: 20,
  bridgeSec: 0.5,
  minRegionSec: 0.25,
  padSec: 0.25,
  maxRegionSec: 20,
} as const;

const FRAME_SEC = 0.03;
/** Where a long region is cut: the quietest frame in this last stretch before the limit. */
const CUT_SEARCH_SEC = 5;

/** The stretches of the audio that may hold speech, in order, not overlapping. */
export function detectSpeechRegions(samples: Float32Array, options: SpeechDetectionOptions = {}): SpeechRegion[] {
  const o = { ...SPEECH_DETECTION_DEFAULTS, ...options };
  const frameLength = frameLengthAt(o.sampleRate);
  return regionsOfLevels(frameLevels(samples, frameLength), frameLength, samples.length, o);
}

/**
 * detectSpeechRegions over a track read a window at a time: the same regions, holding only the
 * frame levels (8 bytes per 30 ms: about 1 MB an hour) and one window of samples.
 */
export async function detectSpeechRegionsIn(source: SampleSource, options: SpeechDetectionOptions = {}): Promise<SpeechRegion[]> {
  const o = { ...SPEECH_DETECTION_DEFAULTS, sampleRate: source.sampleRate, ...options };
  const frameLength = frameLengthAt(o.sampleRate);
  // Whole frames per window, so that the windows' frames are the track's frames.
  const windowLength = frameLength * FRAMES_PER_WINDOW;
  const levels: number[] = [];
  for (let start = 0; start < source.length; start += windowLength) {
    for (const level of frameLevels(await source.read(start, windowLength), frameLength)) levels.push(level);
  }
  return regionsOfLevels(levels, frameLength, source.length, o);
}

/** Frames per window read by detectSpeechRegionsIn: 60 s, 3.8 MB of samples. */
const FRAMES_PER_WINDOW = 2000;

function frameLengthAt(sampleRate: number): number {
  return Math.max(1, Math.round(sampleRate * FRAME_SEC));
}

/** The regions, from the levels of a track's whole frames of `frameLength` samples. Pure. */
function regionsOfLevels(
  levels: readonly number[],
  frameLength: number,
  sampleCount: number,
  o: Required<SpeechDetectionOptions>,
): SpeechRegion[] {
  const frameSec = frameLength / o.sampleRate;
  if (levels.length === 0) return [];
  const sorted = [...levels].sort((a, b) => a - b);
  const threshold = Math.max(o.minLevelDb, Math.min(percentile(sorted, 0.1) + o.aboveFloorDb, percentile(sorted, 0.9) - o.belowLoudDb));

  // Runs of loud frames, as [first, last] frame indices, with short pauses bridged.
  const runs: [number, number][] = [];
  const bridge = Math.round(o.bridgeSec / frameSec);
  levels.forEach((level, i) => {
    if (level < threshold) return;
    const last = runs[runs.length - 1];
    if (last && i - last[1] - 1 <= bridge) last[1] = i;
    else runs.push([i, i]);
  });

  const duration = sampleCount / o.sampleRate;
  const minFrames = o.minRegionSec / frameSec;
  const regions: SpeechRegion[] = [];
  for (const [first, last] of runs) {
    if (last - first + 1 < minFrames) continue;
    for (const [a, b] of cutLongRun(first, last, levels, Math.round(o.maxRegionSec / frameSec), Math.round(CUT_SEARCH_SEC / frameSec))) {
      const start = round3(Math.max(0, a * frameSec - (a === first ? o.padSec : 0)));
      const end = round3(Math.min(duration, (b + 1) * frameSec + (b === last ? o.padSec : 0)));
      const previous = regions[regions.length - 1];
      // Padding may make neighbours of two runs overlap: they become one region. (The pieces
      // of a cut run only touch, and stay apart.)
      if (previous && start < previous.end) regions[regions.length - 1] = { start: previous.start, end };
      else regions.push({ start, end });
    }
  }
  return regions;
}

/** The total length (s) of the regions. */
export function speechSeconds(regions: readonly SpeechRegion[]): number {
  return regions.reduce((sum, r) => sum + (r.end - r.start), 0);
}

/** Mean energy of each whole frame in dBFS (a partial last frame is dropped). */
function frameLevels(samples: Float32Array, frameLength: number): number[] {
  const levels: number[] = [];
  for (let at = 0; at + frameLength <= samples.length; at += frameLength) {
    let sum = 0;
    for (let i = at; i < at + frameLength; i++) {
      const s = samples[i] ?? 0;
      sum += s * s;
    }
    levels.push(10 * Math.log10(sum / frameLength + 1e-12));
  }
  return levels;
}

/** Cuts [first, last] into pieces of at most `maxFrames`, each cut at the quietest frame of the window before its limit. */
function cutLongRun(first: number, last: number, levels: readonly number[], maxFrames: number, searchFrames: number): [number, number][] {
  const pieces: [number, number][] = [];
  let from = first;
  while (last - from + 1 > maxFrames) {
    const limit = from + maxFrames - 1;
    let cut = limit;
    for (let i = limit; i > Math.max(from, limit - searchFrames); i--) {
      if ((levels[i] ?? 0) < (levels[cut] ?? 0)) cut = i;
    }
    pieces.push([from, cut]);
    from = cut + 1;
  }
  pieces.push([from, last]);
  return pieces;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
