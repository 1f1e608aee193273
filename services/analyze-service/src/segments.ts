/**
 * The segmentation mode (analysis_mode time_based_metadata): the video cut into segments and, for
 * each segment definition, its segments with the custom fields filled from that segment's evidence.
 *
 * Segments are the video's shots (scene changes found at indexing) within the analysis window or
 * the definition's time ranges, joined until at least min_segment_duration long and split at
 * max_segment_duration. Each definition gets every such segment: the evidence of indexing says what
 * is in a stretch of video, not whether it is "a scene with a product held up", so a definition's
 * description steers what its fields are filled with (it is the fill's prompt) rather than which
 * segments are kept. Fields are filled by the same schema filler as response_format json_schema.
 */
import { within, type Timeline } from './evidence';
import type { SegmentDefinition, SegmentField, TaskSpec, TimeFormat } from './async-spec';

export interface Span {
  start: number;
  end: number;
}

/** At most this many segments per definition: a 2-hour video at 2-second segments is 3,600. */
export const MAX_SEGMENTS = 1_000;

const round = (s: number) => Math.round(s * 1000) / 1000;

/**
 * Shot boundaries within each window, joined while shorter than `min` (a short last piece joins the
 * one before), split into equal parts no longer than `max`. Pure.
 */
export function segmentSpans(shots: readonly Span[], windows: readonly Span[], min?: number, max?: number): Span[] {
  const out: Span[] = [];
  for (const window of windows) {
    const pieces = shots
      .map((s) => ({ start: Math.max(s.start, window.start), end: Math.min(s.end, window.end) }))
      .filter((s) => s.end > s.start);
    if (pieces.length === 0 && window.end > window.start) pieces.push({ ...window });
    const joined: Span[] = [];
    for (const piece of pieces) {
      const last = joined[joined.length - 1];
      if (last && min !== undefined && last.end - last.start < min) last.end = piece.end;
      else joined.push({ ...piece });
    }
    const tail = joined[joined.length - 1];
    if (joined.length > 1 && tail && min !== undefined && tail.end - tail.start < min) {
      joined.pop();
      joined[joined.length - 1]!.end = tail.end;
    }
    for (const span of joined) {
      const length = span.end - span.start;
      const parts = max !== undefined && length > max ? Math.ceil(length / max) : 1;
      for (let i = 0; i < parts; i++)
        out.push({ start: round(span.start + (length * i) / parts), end: round(span.start + (length * (i + 1)) / parts) });
    }
  }
  return out.slice(0, MAX_SEGMENTS);
}

/** Seconds in a timestamp format (the reference: hh:mm:ss rounds, negatives become 0). */
export function formatTime(seconds: number, format: TimeFormat): number | string {
  if (format === 'seconds') return round(seconds);
  const s = Math.max(0, seconds);
  const whole = format === 'hh:mm:ss' ? Math.round(s) : Math.floor(s);
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = `${pad(Math.floor(whole / 3600))}:${pad(Math.floor((whole % 3600) / 60))}:${pad(whole % 60)}`;
  if (format === 'hh:mm:ss') return clock;
  return `${clock}.${String(Math.round((s - whole) * 1000) % 1000).padStart(3, '0')}`;
}

/** A JSON schema for a definition's non-timestamp fields, for the schema filler. */
export function fieldsSchema(fields: readonly SegmentField[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.type === 'timestamp') continue;
    const base = f.type === 'array' ? { type: 'array', items: { type: f.itemsType } } : { type: f.type };
    properties[f.name] = { ...base, description: f.description, ...(f.enum ? { enum: f.enum } : {}) };
  }
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** The part of a timeline within a span: its evidence and shots, times as in the whole video. */
export function timelineWithin(timeline: Timeline, span: Span): Timeline {
  return {
    ...timeline,
    items: within(timeline, span.start, span.end),
    shots: timeline.shots.filter((s) => s.end > span.start && s.start < span.end),
  };
}

/** Where the analysis looks: the definition's time ranges, else the window [start_time, end_time) of the video. */
export function windowsOf(spec: Pick<TaskSpec, 'startTime' | 'endTime'>, definition: SegmentDefinition, duration: number): Span[] {
  if (definition.timeRanges.length > 0) return definition.timeRanges.map((r) => ({ start: r.start, end: Math.min(r.end, duration) }));
  return [{ start: spec.startTime ?? 0, end: Math.min(spec.endTime ?? duration, duration) }];
}

export type FillFields = (timeline: Timeline, prompt: string, schema: Record<string, unknown>) => Promise<unknown>;

/**
 * The result's data: `{definition id: [{start_time, end_time, metadata}]}`, a timestamp field being
 * the moment its segment's evidence begins (its start when it has none).
 */
export async function segmentVideo(timeline: Timeline, spec: TaskSpec, fill: FillFields): Promise<Record<string, unknown[]>> {
  const format = spec.segmentTimeFormat ?? 'seconds';
  const result: Record<string, unknown[]> = {};
  for (const definition of spec.segmentDefinitions ?? []) {
    const spans = segmentSpans(
      timeline.shots,
      windowsOf(spec, definition, timeline.duration),
      spec.minSegmentDuration,
      spec.maxSegmentDuration,
    );
    const schema = fieldsSchema(definition.fields);
    const prompt = [definition.description, ...definition.fields.map((f) => `${f.name}: ${f.description}`)].join('\n');
    const segments: unknown[] = [];
    for (const span of spans) {
      const part = timelineWithin(timeline, span);
      const filled =
        Object.keys(schema.properties as object).length > 0 ? ((await fill(part, prompt, schema)) as Record<string, unknown>) : {};
      const metadata: Record<string, unknown> = {};
      for (const f of definition.fields) {
        const moment = part.items.find((e) => e.start >= span.start)?.start ?? span.start;
        metadata[f.name] = f.type === 'timestamp' ? formatTime(moment, f.format!) : filled[f.name];
      }
      segments.push({ start_time: formatTime(span.start, format), end_time: formatTime(span.end, format), metadata });
    }
    result[definition.id] = segments;
  }
  return result;
}
