/**
 * Words and phrases: the small text tools of the extractive provider. Pure functions. Words are
 * @vus/wordnet's lexicon (its tokenizer and stopwords, shared with search); tokens are counted by
 * @vus/core's countTokens.
 */
import { TEXT_STOPWORDS, tokenize } from '@vus/wordnet';

/** The words of a text that carry content: no stopwords, no lone digits or single letters. */
export function contentWords(text: string): string[] {
  return tokenize(text).filter((w) => !TEXT_STOPWORDS.has(w) && w.length > 1 && !/^\d+$/.test(w));
}

/** `75.4` → `1:15`; hours when the video has them (`1:02:03`). */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** `a`, `a and b`, `a, b and c`. */
export function joinList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** First letter upper-case. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Title Case for a short phrase (`red car` → `Red Car`). */
export function titleCase(text: string): string {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => (TEXT_STOPWORDS.has(w.toLowerCase()) ? w.toLowerCase() : capitalize(w)))
    .join(' ')
    .replace(/^./, (c) => c.toUpperCase());
}

/** A quoted piece of the video's own text, trimmed and without trailing punctuation. */
export function quote(text: string): string {
  return `"${text
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[.,;:!?]+$/, '')}"`;
}

/**
 * Key phrases of a set of texts: runs of content words between stopwords and punctuation (at
 * most three words), scored by how often their words occur overall (so a phrase repeated on
 * screen or in speech ranks first), longest first on ties. Lower case.
 */
export function keyPhrases(texts: readonly string[], limit: number): string[] {
  const frequency = new Map<string, number>();
  for (const text of texts) for (const w of contentWords(text)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const phrases = new Map<string, number>();
  for (const text of texts) {
    for (const chunk of text.toLowerCase().split(/[.,;:!?"()[\]{}\n]+/)) {
      let run: string[] = [];
      const flush = () => {
        for (let i = 0; i < run.length; i += 3) {
          const phrase = run.slice(i, i + 3).join(' ');
          const score = run.slice(i, i + 3).reduce((sum, w) => sum + (frequency.get(w) ?? 0), 0);
          phrases.set(phrase, Math.max(phrases.get(phrase) ?? 0, score));
        }
        run = [];
      };
      for (const w of tokenize(chunk)) {
        if (TEXT_STOPWORDS.has(w) || w.length < 2 || /^\d+$/.test(w)) flush();
        else run.push(w);
      }
      flush();
    }
  }
  return [...phrases.entries()]
    .sort((a, b) => b[1] - a[1] || b[0].split(' ').length - a[0].split(' ').length || a[0].localeCompare(b[0]))
    .map(([phrase]) => phrase)
    .slice(0, limit);
}

/** Jaccard similarity of two word sets (0 when both are empty). */
export function similarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared += 1;
  return shared / (a.size + b.size - shared);
}
