/**
 * Pure functions that turn per-frame observations into timed values and segments. A sampled frame
 * at `t` stands for the stretch [t, t + 1/fps) of the video.
 */

export interface TimedValue {
  start: number;
  end: number;
  value: string;
  confidence: number;
}

/** What was read or seen on one sampled frame. */
export interface FrameObservation {
  timeSec: number;
  /** Lines of on-screen text with their confidence. */
  lines: readonly { text: string; confidence: number }[];
  /** Object and face labels. */
  labels: readonly string[];
  /** Those of `labels` the detector only guessed at (under its clear score: @vus/models tentativeLabels). */
  tentativeLabels?: readonly string[];
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * Spans of each distinct value over consecutive frames: a value seen on frames t0…tn (without a
 * gap) becomes one span [t0, tn + step], clipped to the video's duration. Confidence is the best
 * one seen in the span. Sorted by start, then value.
 */
export function spansOf(
  frames: readonly { timeSec: number; values: readonly { value: string; confidence: number }[] }[],
  step: number,
  duration: number,
): TimedValue[] {
  const open = new Map<string, TimedValue & { lastFrame: number }>();
  const closed: TimedValue[] = [];
  const close = (key: string) => {
    const span = open.get(key);
    if (!span) return;
    open.delete(key);
    closed.push({ start: span.start, end: span.end, value: span.value, confidence: span.confidence });
  };
  frames.forEach((frame, index) => {
    const seen = new Map<string, number>();
    for (const { value, confidence } of frame.values) {
      const text = value.trim();
      if (text) seen.set(text, Math.max(confidence, seen.get(text) ?? 0));
    }
    for (const key of [...open.keys()]) if (!seen.has(key)) close(key);
    for (const [value, confidence] of seen) {
      const end = round2(Math.min(duration, frame.timeSec + step));
      const span = open.get(value);
      if (span && span.lastFrame === index - 1) {
        span.end = end;
        span.confidence = Math.max(span.confidence, confidence);
        span.lastFrame = index;
      } else {
        close(value);
        open.set(value, { start: round2(frame.timeSec), end, value, confidence, lastFrame: index });
      }
    }
  });
  for (const key of [...open.keys()]) close(key);
  return closed.sort((a, b) => a.start - b.start || a.value.localeCompare(b.value));
}

/** Text in video: one span per line of text for as long as it stays on screen. */
export function textInVideo(observations: readonly FrameObservation[], step: number, duration: number): TimedValue[] {
  return textSpans(
    observations.map((o) => ({ timeSec: o.timeSec, values: o.lines.map((l) => ({ value: l.text, confidence: l.confidence })) })),
    step,
    duration,
  );
}

export interface TextSpanOptions {
  /** Sampled frames on which a text may go unread inside its span (OCR misses a frame now and then). */
  maxGapFrames: number;
  /** Two readings are the same text when their similarity (1 − edit distance / longer length) reaches this. */
  minSimilarity: number;
}

const TEXT_SPAN_DEFAULTS: TextSpanOptions = { maxGapFrames: 1, minSimilarity: 0.8 };

/**
 * Spans of on-screen text, as long as it stays on screen: consecutive frames reading the same text
 * make one span even when OCR reads it a little differently from frame to frame ("THE LAST
 * HARVEST", "THE LAST HARVES") or misses it on a frame (up to `maxGapFrames`). Readings are
 * compared on their letters and digits alone, case-blind. A span's value is its most frequent reading (the
 * most confident among equals); its confidence the best seen. Sorted by start, then value. Pure.
 */
export function textSpans(
  frames: readonly { timeSec: number; values: readonly { value: string; confidence: number }[] }[],
  step: number,
  duration: number,
  options: Partial<TextSpanOptions> = {},
): TimedValue[] {
  const { maxGapFrames, minSimilarity } = { ...TEXT_SPAN_DEFAULTS, ...options };
  interface OpenSpan {
    start: number;
    end: number;
    lastFrame: number;
    key: string;
    readings: Map<string, { count: number; confidence: number }>;
  }
  const open: OpenSpan[] = [];
  const closed: TimedValue[] = [];
  const close = (span: OpenSpan) => {
    const readings = [...span.readings].sort((a, b) => b[1].count - a[1].count || b[1].confidence - a[1].confidence);
    const confidence = Math.max(...readings.map(([, r]) => r.confidence));
    closed.push({ start: span.start, end: span.end, value: readings[0]?.[0] ?? '', confidence });
  };
  frames.forEach((frame, index) => {
    for (const span of open.filter((s) => index - s.lastFrame > maxGapFrames + 1)) {
      open.splice(open.indexOf(span), 1);
      close(span);
    }
    const end = round2(Math.min(duration, frame.timeSec + step));
    // The same text twice on one frame is one reading.
    const seen = new Map<string, { text: string; confidence: number }>();
    for (const { value, confidence } of frame.values) {
      const text = value.trim().replace(/\s+/g, ' ');
      const key = comparable(text);
      if (key && confidence > (seen.get(key)?.confidence ?? -1)) seen.set(key, { text, confidence });
    }
    const taken = new Set<OpenSpan>();
    for (const [key, { text, confidence }] of seen) {
      const span = open
        .filter((s) => !taken.has(s) && s.lastFrame < index)
        .map((s) => ({ s, similarity: similarity(s.key, key) }))
        .filter((c) => c.similarity >= minSimilarity)
        .sort((a, b) => b.similarity - a.similarity)[0]?.s;
      if (span) {
        span.end = end;
        span.lastFrame = index;
      }
      const target: OpenSpan = span ?? { start: round2(frame.timeSec), end, lastFrame: index, key, readings: new Map() };
      if (!span) open.push(target);
      taken.add(target);
      const reading = target.readings.get(text) ?? { count: 0, confidence: 0 };
      target.readings.set(text, { count: reading.count + 1, confidence: Math.max(reading.confidence, confidence) });
    }
  });
  for (const span of open) close(span);
  return closed.sort((a, b) => a.start - b.start || a.value.localeCompare(b.value));
}

/** Its letters and digits in lower case: OCR drops and adds spaces in small text from frame to frame. */
function comparable(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** 1 − Levenshtein distance / the longer length, 0–1. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return 1 - previous[b.length]! / longer;
}

/**
 * Logos as on-screen brand wordmarks: a brand counts when one of its names appears as whole words
 * in a line of text (case-insensitive). The value is the brand's display name.
 */
export function logosOf(observations: readonly FrameObservation[], brands: readonly Brand[], step: number, duration: number): TimedValue[] {
  const matchers = brands.map((brand) => ({ brand, patterns: brand.names.map(wordPattern) }));
  return spansOf(
    observations.map((o) => ({
      timeSec: o.timeSec,
      values: o.lines.flatMap((line) =>
        matchers
          .filter((m) => m.patterns.some((p) => p.test(line.text)))
          .map((m) => ({ value: m.brand.name, confidence: line.confidence })),
      ),
    })),
    step,
    duration,
  );
}

export interface Brand {
  /** Shown as the logo's value. */
  name: string;
  /** Wordmarks that mean this brand, as they are written on screen. */
  names: readonly string[];
}

function wordPattern(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s*');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'iu');
}

/** A stretch of video with one picture content: what the visual extractor stores for search. */
export interface VisualScene {
  start: number;
  end: number;
  labels: string[];
  /** Those of `labels` that no frame of the scene saw clearly. */
  tentativeLabels: string[];
  /** Time of the frame that represents the scene (its first). */
  keyframeSec: number;
}

/**
 * Scenes from the frames the change detector let through: each changed frame starts a scene that
 * lasts until the next one; the labels are those seen in the scene's frames, tentative where no
 * frame saw them clearly.
 */
export function scenesOf(
  observations: readonly (FrameObservation & { changed: boolean })[],
  step: number,
  duration: number,
): VisualScene[] {
  // Labels seen clearly on some frame, per scene: a scene's tentative labels are the rest, at the end.
  const scenes: (Omit<VisualScene, 'tentativeLabels'> & { clear: Set<string> })[] = [];
  for (const o of observations) {
    let current = scenes[scenes.length - 1];
    if (o.changed || !current) {
      if (current) current.end = round2(o.timeSec);
      current = { start: round2(o.timeSec), end: 0, labels: [], keyframeSec: o.timeSec, clear: new Set() };
      scenes.push(current);
    }
    current.end = round2(Math.min(duration, o.timeSec + step));
    const tentative = new Set(o.tentativeLabels);
    for (const label of o.labels) {
      if (!current.labels.includes(label)) current.labels.push(label);
      if (!tentative.has(label)) current.clear.add(label);
    }
  }
  return scenes.map(({ clear, ...scene }) => ({ ...scene, tentativeLabels: scene.labels.filter((label) => !clear.has(label)) }));
}

/** Percent of the indexing done, from the position reached in the video (0–100, two decimals). */
export function progressPercent(positionSec: number, duration: number, from = 0, to = 100): number {
  if (!(duration > 0)) return from;
  const fraction = Math.min(1, Math.max(0, positionSec / duration));
  return round2(from + (to - from) * fraction);
}
