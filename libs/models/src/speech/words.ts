import type { SpeechSegment } from '../types';

/** One recognised word; times in seconds from the start of the audio. */
export interface TimedWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

export interface LineOptions {
  /** A pause at least this long (s) starts a new line. */
  readonly pauseSec?: number;
  /** A line is closed once it spans this long (s). */
  readonly maxLineSec?: number;
  /** …or holds this many words. */
  readonly maxWords?: number;
}

export const LINE_DEFAULTS = { pauseSec: 0.7, maxLineSec: 6, maxWords: 14 } as const;

/**
 * Timed words → transcript lines the size of a subtitle cue: a pause, a long line or many words
 * close a line. Search matches and shows lines, so they stay short enough to point at a moment.
 */
export function wordsToLines(words: readonly TimedWord[], options: LineOptions = {}): SpeechSegment[] {
  const o = { ...LINE_DEFAULTS, ...options };
  const lines: SpeechSegment[] = [];
  let current: TimedWord[] = [];
  const close = () => {
    const first = current[0];
    const last = current[current.length - 1];
    if (first && last) lines.push({ start: first.start, end: last.end, text: current.map((w) => w.word).join(' ') });
    current = [];
  };
  for (const word of [...words].sort((a, b) => a.start - b.start)) {
    const first = current[0];
    const last = current[current.length - 1];
    if (first && last && (word.start - last.end >= o.pauseSec || word.end - first.start > o.maxLineSec || current.length >= o.maxWords))
      close();
    current.push(word);
  }
  close();
  return lines;
}
