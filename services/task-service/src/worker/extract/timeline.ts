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
  return spansOf(
    observations.map((o) => ({ timeSec: o.timeSec, values: o.lines.map((l) => ({ value: l.text, confidence: l.confidence })) })),
    step,
    duration,
  );
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
  /** Time of the frame that represents the scene (its first). */
  keyframeSec: number;
}

/**
 * Scenes from the frames the change detector let through: each changed frame starts a scene that
 * lasts until the next one; the labels are those seen in the scene's frames.
 */
export function scenesOf(
  observations: readonly (FrameObservation & { changed: boolean })[],
  step: number,
  duration: number,
): VisualScene[] {
  const scenes: VisualScene[] = [];
  for (const o of observations) {
    const current = scenes[scenes.length - 1];
    if (o.changed || !current) {
      if (current) current.end = round2(o.timeSec);
      scenes.push({
        start: round2(o.timeSec),
        end: round2(Math.min(duration, o.timeSec + step)),
        labels: [...new Set(o.labels)],
        keyframeSec: o.timeSec,
      });
    } else {
      current.end = round2(Math.min(duration, o.timeSec + step));
      for (const label of o.labels) if (!current.labels.includes(label)) current.labels.push(label);
    }
  }
  return scenes;
}

/** Percent of the indexing done, from the position reached in the video (0–100, two decimals). */
export function progressPercent(positionSec: number, duration: number, from = 0, to = 100): number {
  if (!(duration > 0)) return from;
  const fraction = Math.min(1, Math.max(0, positionSec / duration));
  return round2(from + (to - from) * fraction);
}
