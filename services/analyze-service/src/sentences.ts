/**
 * Sentences of the bundled provider: each states one piece of evidence with its time, and the
 * summaries built from the most salient of them. Pure functions over a timeline.
 */
import { mergeRepeats, within, type Evidence, type Timeline } from './evidence';
import { clock, contentWords, joinList, quote } from './text';

/** Evidence that carries words of its own (labels are handled per shot). */
export const TEXTUAL = ['speech', 'text', 'logo'] as const;

/** How long each label is seen, longest first. */
export function labelCoverage(timeline: Timeline): { label: string; seconds: number; start: number; end: number }[] {
  const byLabel = new Map<string, { label: string; seconds: number; start: number; end: number }>();
  for (const shot of timeline.shots) {
    for (const label of shot.labels) {
      const entry = byLabel.get(label) ?? { label, seconds: 0, start: shot.start, end: shot.end };
      entry.seconds += shot.end - shot.start;
      entry.end = Math.max(entry.end, shot.end);
      byLabel.set(label, entry);
    }
  }
  return [...byLabel.values()].sort((a, b) => b.seconds - a.seconds || a.start - b.start || a.label.localeCompare(b.label));
}

/**
 * Salience of speech, on-screen text and logos: how much of the video's recurring vocabulary an
 * item carries (a word said or shown often weighs more), with on-screen text and logos ahead of
 * speech (they are put there on purpose), plus a boost for the words of a steering prompt.
 */
export function rankEvidence(items: readonly Evidence[], focus: ReadonlySet<string> = new Set()): { item: Evidence; score: number }[] {
  const frequency = new Map<string, number>();
  for (const item of items) for (const w of new Set(contentWords(item.text))) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  return items
    .map((item) => {
      const own = [...new Set(contentWords(item.text))];
      const vocabulary = own.reduce((sum, w) => sum + Math.log(1 + (frequency.get(w) ?? 0)), 0) / Math.sqrt(Math.max(1, own.length));
      const kindBonus = item.kind === 'speech' ? 0 : 1 + Math.min(1, (item.end - item.start) / 10);
      const focused = own.filter((w) => focus.has(w)).length * 3;
      return { item, score: vocabulary + kindBonus + focused + (own.length === 0 ? -10 : 0) };
    })
    .sort((a, b) => b.score - a.score || a.item.start - b.item.start);
}

/** One plain sentence stating one piece of evidence. */
export function sentenceOf(item: Evidence): string {
  const span = item.end - item.start >= 1 ? `From ${clock(item.start)} to ${clock(item.end)}` : `At ${clock(item.start)}`;
  switch (item.kind) {
    case 'speech':
      return `At ${clock(item.start)}, the speaker says ${quote(item.text)}.`;
    case 'text':
      return `${span}, the on-screen text reads ${quote(item.text)}.`;
    case 'logo':
      return `${span}, the ${item.text} logo is visible.`;
    case 'label':
      return `${span}, the video shows ${item.text}.`;
    case 'metadata':
      return `The video's metadata gives ${item.text}.`;
  }
}

/** The sentence naming what is seen most, or none when nothing was detected. */
export function seenSentence(timeline: Timeline, limit: number, from = 0, to = Infinity): string | undefined {
  const labels = labelCoverage({ ...timeline, shots: timeline.shots.filter((s) => s.start < to && s.end > from) }).slice(0, limit);
  return labels.length > 0 ? `The video shows ${joinList(labels.map((l) => l.label))}.` : undefined;
}

/** The most salient textual evidence in [from, to), at most `limit`, back in time order. */
export function salient(timeline: Timeline, limit: number, focus: ReadonlySet<string>, from = 0, to = Infinity): Evidence[] {
  const merged = mergeRepeats(within(timeline, from, to, TEXTUAL));
  return rankEvidence(merged, focus)
    .filter((r) => r.score > 0)
    .slice(0, limit)
    .map((r) => r.item)
    .sort((a, b) => a.start - b.start);
}

/** Sentences summarising [from, to): what is seen, then the salient text and speech in time order. */
export function summarySentences(timeline: Timeline, focus: ReadonlySet<string>, from = 0, to = Infinity, size = 6): string[] {
  const seen = seenSentence(timeline, 5, from, to);
  const picked = salient(timeline, size, focus, from, to).map(sentenceOf);
  const metadata =
    from === 0
      ? timeline.items
          .filter((e) => e.kind === 'metadata')
          .slice(0, 3)
          .map(sentenceOf)
      : [];
  return [...(seen ? [seen] : []), ...picked, ...metadata];
}

export const NOTHING_FOUND = 'Indexing found nothing in this video to describe: no speech, no on-screen text and no recognised objects.';
