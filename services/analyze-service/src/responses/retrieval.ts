/**
 * From what search found to the passages an answer stands on: the items in scope, the moments
 * merged and bounded, the evidence around each, and an item's overview (its most salient
 * stretch) for a broad question that search alone answers poorly. Pure functions.
 */
import { mergeRepeats, within, type Timeline } from '../evidence';
import { salient } from '../sentences';
import type { Selection } from './conversation';
import type { Passage } from './grounding';

/** A ready item of the store that an answer may cite. */
export interface ScopeItem {
  itemId: string;
  videoId: string;
  title: string;
}

/** A stretch of a video that search found, score 0..100. */
export interface Moment {
  videoId: string;
  start: number;
  end: number;
  score: number;
}

/** Moments an answer stands on at most (search's top ones). */
export const MAX_MOMENTS = 8;
/** Seconds of evidence read either side of a moment: a line said just before it is often its context. */
export const CONTEXT_SECONDS = 3;
/** Below this many moments, a broad question also reads each item's overview. */
export const FEW_MOMENTS = 3;

/** The items retrieval reads: the selections' items when there are selections, else all; only those with a video. */
export function itemsInScope(items: readonly ScopeItem[], selections: readonly Selection[]): ScopeItem[] {
  const ready = items.filter((item) => item.videoId);
  if (selections.length === 0) return ready;
  const chosen = new Set(selections.flatMap((s) => (s.kind === 'item' ? [s.id, ...s.itemIds] : s.itemIds)));
  return ready.filter((item) => chosen.has(item.itemId));
}

/**
 * The moments in score order, overlapping ones of a video joined (the higher score kept), at most
 * `limit`; those of videos outside the scope are dropped.
 */
export function mergeMoments(moments: readonly Moment[], videoIds: ReadonlySet<string>, limit = MAX_MOMENTS): Moment[] {
  const kept: Moment[] = [];
  for (const moment of [...moments].sort((a, b) => b.score - a.score)) {
    if (!videoIds.has(moment.videoId) || !(moment.end >= moment.start)) continue;
    const overlapping = kept.find((k) => k.videoId === moment.videoId && moment.start <= k.end && moment.end >= k.start);
    if (overlapping) {
      overlapping.start = Math.min(overlapping.start, moment.start);
      overlapping.end = Math.max(overlapping.end, moment.end);
      continue;
    }
    if (kept.length >= limit) continue;
    kept.push({ ...moment });
  }
  return kept;
}

/** A moment as a passage: the evidence within it and CONTEXT_SECONDS around it. */
export function passageOf(n: number, item: ScopeItem, moment: Pick<Moment, 'start' | 'end'>, timeline: Timeline): Passage {
  const start = Math.max(0, moment.start);
  const end = Math.min(Math.max(moment.end, start), timeline.duration || moment.end);
  const evidence = mergeRepeats(within(timeline, Math.max(0, start - CONTEXT_SECONDS), end + CONTEXT_SECONDS)).filter(
    (e) => e.kind !== 'metadata',
  );
  return { n, itemId: item.itemId, videoId: item.videoId, title: item.title || timeline.title, start, end, evidence };
}

/**
 * An item's overview: the stretch of its three most salient pieces of text and speech, or its first
 * shot that shows something, or its first shot.
 */
export function overviewOf(n: number, item: ScopeItem, timeline: Timeline): Passage {
  const top = salient(timeline, 3, new Set());
  if (top.length > 0) {
    const start = Math.min(...top.map((e) => e.start));
    const end = Math.max(...top.map((e) => e.end));
    return passageOf(n, item, { start, end }, timeline);
  }
  const shot = timeline.shots.find((s) => s.labels.length > 0) ?? timeline.shots[0];
  return passageOf(n, item, { start: shot?.start ?? 0, end: shot?.end ?? timeline.duration }, timeline);
}
