/**
 * What a question asks, before any evidence is read: the stretch of the video it names ("at the
 * start", "in the middle", "at the end", "at 1:20", "after the countdown") and the words left to
 * ask about. Pure functions.
 */

/** A stretch of the video, seconds. `after`: only what starts once it began (not what was already under way). */
export interface Window {
  from: number;
  to: number;
  after?: boolean;
}

/** A time the question names: a part of the video, a moment, or what follows or precedes something named. */
export type TimeRef =
  { kind: 'part'; part: 'start' | 'middle' | 'end' } | { kind: 'moment'; seconds: number } | { kind: 'after' | 'before'; anchor: string };

export interface ParsedQuestion {
  time?: TimeRef;
  /** The question without the time phrase. */
  rest: string;
}

/** Seconds either side of a moment the question names ("at 1:20"). */
export const MOMENT_SPAN = 2;

const OF_THE_VIDEO = String.raw`(?:\s+of\s+(?:the|this)\s+(?:video|clip|film|recording|footage))?`;

const PARTS: readonly (readonly [RegExp, 'start' | 'middle' | 'end'])[] = [
  [
    new RegExp(
      String.raw`\b(?:at|in|near|during|towards?)\s+the\s+(?:very\s+)?(?:start|beginning|opening|outset)${OF_THE_VIDEO}|\bat\s+first\b|\binitially\b`,
      'i',
    ),
    'start',
  ],
  [new RegExp(String.raw`\b(?:in|around|near|towards?)\s+the\s+middle${OF_THE_VIDEO}|\bhalfway\s+through\b|\bmidway\b`, 'i'), 'middle'],
  [
    new RegExp(
      String.raw`\b(?:at|in|near|towards?|by)\s+the\s+(?:very\s+)?(?:end|close|finish)${OF_THE_VIDEO}|\bat\s+last\b|\bfinally\b`,
      'i',
    ),
    'end',
  ],
];

const MOMENT =
  /\b(?:at|around|near|about)\s+(?:(\d{1,2}):)?(\d{1,2}):(\d{2})\b|\b(?:at|around|near|about)\s+(\d{1,4})\s*(?:s|sec|secs|seconds?)\b/i;

/** "after the countdown", "before the cat appears": the anchor is the words up to punctuation or a verb of appearing. */
const ANCHORED =
  /\b(after|before)\s+(?:the\s+|a\s+|an\s+)?([\p{L}\p{N}' -]+?)\s*(?:\b(?:is|was|appears?|appeared|shows?|showed|shown|happens?|happened|ends?|ended)\b|[?.!,;]|$)/iu;

/** The time a question names, if any, and the question without it. */
export function parseQuestion(prompt: string): ParsedQuestion {
  for (const [pattern, part] of PARTS) {
    const match = pattern.exec(prompt);
    if (match) return { time: { kind: 'part', part }, rest: cut(prompt, match) };
  }
  const moment = MOMENT.exec(prompt);
  if (moment) {
    const [, hours, minutes, seconds, plain] = moment;
    const at = plain !== undefined ? Number(plain) : Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds);
    return { time: { kind: 'moment', seconds: at }, rest: cut(prompt, moment) };
  }
  const anchored = ANCHORED.exec(prompt);
  if (anchored && anchored[2]!.trim().length > 0) {
    return { time: { kind: anchored[1]!.toLowerCase() as 'after' | 'before', anchor: anchored[2]!.trim() }, rest: cut(prompt, anchored) };
  }
  return { rest: prompt };
}

function cut(prompt: string, match: RegExpExecArray): string {
  return `${prompt.slice(0, match.index)} ${prompt.slice(match.index + match[0].length)}`.replace(/\s+/g, ' ').trim();
}

/**
 * The stretch a part or moment names in a video of `duration` seconds: the first or last quarter,
 * the middle third, MOMENT_SPAN around a moment. Anchored times need the evidence (the provider
 * finds the anchor), so they have none here.
 */
export function windowOf(time: TimeRef, duration: number): Window | undefined {
  switch (time.kind) {
    case 'part':
      if (time.part === 'start') return { from: 0, to: duration / 4 };
      if (time.part === 'middle') return { from: duration / 3, to: (2 * duration) / 3 };
      return { from: duration - duration / 4, to: duration };
    case 'moment':
      return { from: Math.max(0, time.seconds - MOMENT_SPAN), to: time.seconds + MOMENT_SPAN };
    default:
      return undefined;
  }
}

/** Whether a piece of evidence over [start, end] falls in the window. */
export function inWindow(window: Window, start: number, end: number): boolean {
  if (window.after) return start >= window.from - 0.25 && start < window.to;
  return start < window.to && (end > window.from || (end === start && start >= window.from));
}
