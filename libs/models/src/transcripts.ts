import { ApiError } from '@vus/core';

/**
 * Conversation from text: the user's own transcription files (SRT, WebVTT or plain text) become
 * cues on the video's timeline. Pure functions; malformed input is a `parameter_invalid` ApiError
 * that names the line at fault.
 */

/** One stretch of speech; times in seconds from the start of the video. */
export interface TranscriptCue {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export type TranscriptFormat = 'srt' | 'vtt' | 'text';

export interface ParseTranscriptOptions {
  /** Skip detection and parse as this format. */
  readonly format?: TranscriptFormat;
  /** The video's length in seconds: plain text has no times, so its sentences are spread over it. */
  readonly duration?: number;
  /** The request parameter named in errors. */
  readonly param?: string;
}

const DEFAULT_PARAM = 'transcription_file';

/** `WEBVTT` header → vtt; any `-->` timing line → srt; otherwise plain text. */
export function detectTranscriptFormat(content: string): TranscriptFormat {
  const text = normalise(content);
  if (/^WEBVTT(?:[ \t].*)?(?:\n|$)/.test(text)) return 'vtt';
  if (/^[^\n]*-->[^\n]*$/m.test(text)) return 'srt';
  return 'text';
}

/** Parses a transcription file of any supported format into cues ordered by start time. */
export function parseTranscript(content: string, options: ParseTranscriptOptions = {}): TranscriptCue[] {
  const format = options.format ?? detectTranscriptFormat(content);
  const param = options.param ?? DEFAULT_PARAM;
  switch (format) {
    case 'srt':
      return parseSrt(content, param);
    case 'vtt':
      return parseVtt(content, param);
    case 'text':
      if (options.duration === undefined) {
        throw new ApiError(
          'parameter_invalid',
          `The ${param} parameter is plain text without times; the video's duration is needed to place it.`,
          { param },
        );
      }
      return parsePlainText(content, options.duration, param);
  }
}

/** SubRip: blocks of an optional counter, `start --> end`, then text lines, separated by blank lines. */
export function parseSrt(content: string, param = DEFAULT_PARAM): TranscriptCue[] {
  const cues: TranscriptCue[] = [];
  for (const block of blocks(normalise(content))) {
    let index = 0;
    const first = block.lines[0] ?? '';
    if (/^\d+$/.test(first.trim()) && block.lines.length > 1) index = 1;
    const timing = block.lines[index] ?? '';
    const range = parseTimeRange(timing, block.startLine + index, param);
    cues.push(...cue(range, block.lines.slice(index + 1)));
  }
  if (cues.length === 0) throw malformed(param, 1, 'no cues were found');
  return sortByStart(cues);
}

/** WebVTT: the `WEBVTT` header, then cues (optional identifier line) and NOTE/STYLE/REGION blocks. */
export function parseVtt(content: string, param = DEFAULT_PARAM): TranscriptCue[] {
  const all = blocks(normalise(content));
  const header = all[0];
  if (!header || !/^WEBVTT(?:[ \t].*)?$/.test(header.lines[0] ?? '')) {
    throw malformed(param, 1, 'a WebVTT file must start with "WEBVTT"');
  }
  const cues: TranscriptCue[] = [];
  // The header block may hold metadata lines ("Kind: captions"); it never holds cues.
  for (const block of all.slice(1)) {
    const first = block.lines[0] ?? '';
    if (/^(NOTE|STYLE|REGION)(?:[ \t]|$)/.test(first)) continue;
    const index = first.includes('-->') ? 0 : 1;
    const timing = block.lines[index] ?? '';
    const range = parseTimeRange(timing, block.startLine + index, param);
    cues.push(...cue(range, block.lines.slice(index + 1).map(stripVttMarkup)));
  }
  if (cues.length === 0) throw malformed(param, 1, 'no cues were found');
  return sortByStart(cues);
}

/**
 * Plain text: sentences spread over `[0, duration]`, each taking time in proportion to its length.
 * The times are estimates, which is all a file without times can give.
 */
export function parsePlainText(content: string, duration: number, param = DEFAULT_PARAM): TranscriptCue[] {
  if (!(duration > 0)) throw new ApiError('parameter_invalid', `The video duration must be positive to place ${param}.`, { param });
  const sentences = normalise(content)
    .split(/\n\s*\n|(?<=[.!?…])\s+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
  if (sentences.length === 0) throw malformed(param, 1, 'the file has no text');
  const total = sentences.reduce((sum, s) => sum + s.length, 0);
  let at = 0;
  return sentences.map((text) => {
    const start = at;
    at += (duration * text.length) / total;
    return { start: round(start), end: round(at), text };
  });
}

/** `HH:MM:SS,mmm`, `HH:MM:SS.mmm` or `MM:SS.mmm` → seconds; undefined when it is not a timestamp. */
export function parseTimestamp(value: string): number | undefined {
  const match = /^(?:(\d+):)?([0-5]?\d):([0-5]\d)[,.](\d{1,3})$/.exec(value.trim());
  if (!match) return undefined;
  const [, hours = '0', minutes = '0', seconds = '0', fraction = '0'] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(fraction.padEnd(3, '0')) / 1000;
}

interface Block {
  /** 1-based line number of the block's first line, for error messages. */
  readonly startLine: number;
  readonly lines: readonly string[];
}

function normalise(content: string): string {
  return content.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

function blocks(text: string): Block[] {
  const result: Block[] = [];
  let current: string[] = [];
  let startLine = 1;
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') {
      if (current.length > 0) result.push({ startLine, lines: current });
      current = [];
      return;
    }
    if (current.length === 0) startLine = i + 1;
    current.push(line);
  });
  if (current.length > 0) result.push({ startLine, lines: current });
  return result;
}

function parseTimeRange(line: string, lineNumber: number, param: string): { start: number; end: number } {
  const [left, right] = line.split('-->');
  if (left === undefined || right === undefined) {
    throw malformed(param, lineNumber, `expected a time range like "00:00:01,000 --> 00:00:04,000", got "${clip(line)}"`);
  }
  // WebVTT puts cue settings ("align:start") after the end time.
  const start = parseTimestamp(left);
  const end = parseTimestamp(right.trim().split(/\s+/)[0] ?? '');
  if (start === undefined || end === undefined) {
    throw malformed(param, lineNumber, `"${clip(line)}" is not a valid time range`);
  }
  if (end < start) throw malformed(param, lineNumber, `the cue ends (${end}s) before it starts (${start}s)`);
  return { start, end };
}

function cue(range: { start: number; end: number }, textLines: readonly string[]): TranscriptCue[] {
  const text = textLines
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .join(' ');
  return text.length > 0 ? [{ ...range, text }] : [];
}

/** Drops voice/class/timestamp tags and decodes the entities WebVTT allows. */
function stripVttMarkup(line: string): string {
  return line
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lrm;|&rlm;/g, '')
    .replace(/&amp;/g, '&');
}

function sortByStart(cues: TranscriptCue[]): TranscriptCue[] {
  return cues.sort((a, b) => a.start - b.start || a.end - b.end);
}

function malformed(param: string, line: number, why: string): ApiError {
  return new ApiError('parameter_invalid', `The ${param} parameter is invalid. Line ${line}: ${why}.`, { param, line: String(line) });
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
