/** 75.4 → "1:15", 3723 → "1:02:03": times in results, chapters and the video list. */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const total = Math.floor(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A span as a share of the timeline, clamped to it: where the matched moment is drawn. */
export function spanOnTimeline(start: number, end: number, duration: number): { left: number; width: number } | undefined {
  if (!(duration > 0) || !Number.isFinite(start) || !Number.isFinite(end) || end < start) return undefined;
  const from = Math.min(Math.max(start / duration, 0), 1);
  const to = Math.min(Math.max(end / duration, 0), 1);
  return { left: from * 100, width: Math.max((to - from) * 100, 0.5) };
}
