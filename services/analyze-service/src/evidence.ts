/**
 * The evidence timeline of one video: everything indexing found, with times, in one list that
 * every provider reads. Assembled from index-service (the video, its transcript, on-screen text
 * and logos) and search-service (its visual segments: shots and what was seen in them).
 */
import type { UserMetadata } from '@vus/domain';

export type EvidenceKind = 'speech' | 'text' | 'label' | 'logo' | 'metadata';

/** One thing the video shows or says, over [start, end] seconds. */
export interface Evidence {
  kind: EvidenceKind;
  start: number;
  end: number;
  /** The line spoken, the text read, the label seen, the logo's name, or `key: value`. */
  text: string;
}

/** A stretch between two scene changes, with what was seen in it. */
export interface Shot {
  start: number;
  end: number;
  labels: string[];
}

export interface Timeline {
  videoId: string;
  indexId: string;
  /** The video's title when set, else its file name without extension. */
  title: string;
  duration: number;
  /** Sorted by start, then kind. */
  items: Evidence[];
  /** Contiguous, covering the video; one shot for the whole video when no scene was detected. */
  shots: Shot[];
}

/** What assembling needs, as the other services report it (already mapped to plain values). */
export interface EvidenceSources {
  video: { id: string; indexId: string; title: string; filename: string; duration: number; userMetadata: UserMetadata };
  transcription: readonly TimedText[];
  textInVideo: readonly TimedText[];
  logos: readonly TimedText[];
  /** search-service's visual segments (the worker writes one per scene). */
  visualSegments: readonly Shot[];
}

export interface TimedText {
  start: number;
  end: number;
  value: string;
}

const KIND_ORDER: Record<EvidenceKind, number> = { metadata: 0, text: 1, speech: 2, label: 3, logo: 4 };

/** Seconds rounded to centiseconds: sources report floats with noise. */
const round = (seconds: number) => Math.round(seconds * 100) / 100;

function timed(kind: EvidenceKind, values: readonly TimedText[], duration: number): Evidence[] {
  return values
    .map((v) => ({
      kind,
      start: round(Math.max(0, v.start)),
      end: round(Math.min(Math.max(v.end, v.start), duration || v.end)),
      text: v.value.trim().replace(/\s+/g, ' '),
    }))
    .filter((e) => e.text.length > 0);
}

/**
 * Shots from the visual segments: sorted, clipped to the video, gaps closed (a shot runs until
 * the next begins). Without any, the whole video is one shot with no labels.
 */
export function shotsOf(segments: readonly Shot[], duration: number): Shot[] {
  const sorted = [...segments].filter((s) => s.end > s.start || duration === 0).sort((a, b) => a.start - b.start);
  if (sorted.length === 0) return [{ start: 0, end: round(duration), labels: [] }];
  return sorted.map((s, i) => ({
    start: i === 0 ? 0 : round(s.start),
    end: round(i === sorted.length - 1 ? Math.max(s.end, duration) : (sorted[i + 1]?.start ?? s.end)),
    labels: [...new Set(s.labels.map((l) => l.trim().toLowerCase()).filter(Boolean))],
  }));
}

/** Strips a file name's extension and turns separators into spaces (`my_trip.mp4` → `my trip`). */
export function titleOfFile(filename: string): string {
  return filename
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[_-]+/g, ' ')
    .trim();
}

/** The timeline of one video. Pure. */
export function assembleTimeline(sources: EvidenceSources): Timeline {
  const { video } = sources;
  const duration = video.duration;
  const shots = shotsOf(sources.visualSegments, duration);
  const labels: Evidence[] = shots.flatMap((shot) =>
    shot.labels.map((label) => ({ kind: 'label' as const, start: shot.start, end: shot.end, text: label })),
  );
  const metadata: Evidence[] = Object.entries(video.userMetadata).map(([key, value]) => ({
    kind: 'metadata',
    start: 0,
    end: round(duration),
    text: `${key}: ${String(value)}`,
  }));
  const items = [
    ...metadata,
    ...timed('speech', sources.transcription, duration),
    ...timed('text', sources.textInVideo, duration),
    ...timed('logo', sources.logos, duration),
    ...labels,
  ].sort((a, b) => a.start - b.start || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.end - b.end);
  return {
    videoId: video.id,
    indexId: video.indexId,
    title: video.title.trim() || titleOfFile(video.filename),
    duration: round(duration),
    items,
    shots,
  };
}

/** Evidence of the given kinds overlapping [start, end). */
export function within(timeline: Timeline, start: number, end: number, kinds?: readonly EvidenceKind[]): Evidence[] {
  return timeline.items.filter(
    (e) => (!kinds || kinds.includes(e.kind)) && e.start < end && (e.end > start || (e.end === e.start && e.start >= start)),
  );
}

/**
 * Merges repeats of the same text that follow each other (OCR reads the same caption on every
 * sampled frame; labels repeat shot after shot) into one stretch.
 */
export function mergeRepeats(items: readonly Evidence[]): Evidence[] {
  const merged: Evidence[] = [];
  const open = new Map<string, Evidence>();
  for (const item of [...items].sort((a, b) => a.start - b.start)) {
    const key = `${item.kind}\u0000${item.text.toLowerCase()}`;
    const last = open.get(key);
    if (last && item.start <= last.end + 1) {
      last.end = Math.max(last.end, item.end);
      continue;
    }
    const copy = { ...item };
    open.set(key, copy);
    merged.push(copy);
  }
  return merged;
}
