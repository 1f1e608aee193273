/**
 * The bundled provider: extractive and grounded. Every sentence it writes states one piece of
 * evidence (what was said, shown as text, seen, or given as metadata) with its time; it never
 * describes what indexing did not find. Deterministic: `temperature` does not change it.
 */
import { openWordNet, type WordNet } from '@vus/wordnet';
import { mergeRepeats, within, type Evidence, type EvidenceKind, type Timeline } from './evidence';
import type { Chapter, GenerationProvider, GenerationSettings, Gist, GistType, Highlight, Summary, SummarizeType } from './provider';
import { fillSchema, type SchemaContext } from './schema-fill';
import { capitalize, clock, contentWords, joinList, keyPhrases, quote, REQUEST_WORDS, similarity, titleCase, words } from './text';
import { topicsOf, type WeightedWord } from './topics';

/** Evidence that carries words of its own (labels are handled per shot). */
const TEXTUAL = ['speech', 'text', 'logo'] as const;

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
function seenSentence(timeline: Timeline, limit: number, from = 0, to = Infinity): string | undefined {
  const labels = labelCoverage({ ...timeline, shots: timeline.shots.filter((s) => s.start < to && s.end > from) }).slice(0, limit);
  return labels.length > 0 ? `The video shows ${joinList(labels.map((l) => l.label))}.` : undefined;
}

/** The most salient textual evidence in [from, to), at most `limit`, back in time order. */
function salient(timeline: Timeline, limit: number, focus: ReadonlySet<string>, from = 0, to = Infinity): Evidence[] {
  const merged = mergeRepeats(within(timeline, from, to, TEXTUAL));
  return rankEvidence(merged, focus)
    .filter((r) => r.score > 0)
    .slice(0, limit)
    .map((r) => r.item)
    .sort((a, b) => a.start - b.start);
}

/** Sentences summarising [from, to): what is seen, then the salient text and speech in time order. */
function summarySentences(timeline: Timeline, focus: ReadonlySet<string>, from = 0, to = Infinity, size = 6): string[] {
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

const NOTHING_FOUND = 'Indexing found nothing in this video to describe: no speech, no on-screen text and no recognised objects.';

/** Prompt words that ask for a kind of evidence rather than a word in it ("which logo appears?"). */
const KIND_TERMS: Readonly<Record<string, EvidenceKind>> = {
  logo: 'logo',
  logos: 'logo',
  brand: 'logo',
  brands: 'logo',
  text: 'text',
  caption: 'text',
  captions: 'text',
  written: 'text',
  writing: 'text',
  subtitle: 'text',
  speech: 'speech',
  speaker: 'speech',
  spoken: 'speech',
  narrator: 'speech',
};

/** The words a prompt asks about: its content words that are not part of asking. */
export function promptTerms(prompt: string): string[] {
  return [...new Set(contentWords(prompt).filter((w) => !REQUEST_WORDS.has(w)))];
}

export class ExtractiveProvider implements GenerationProvider {
  readonly name = 'extractive';

  constructor(private readonly wordnet: WordNet) {}

  async gist(timeline: Timeline, types: readonly GistType[]): Promise<Gist> {
    const gist: Gist = {};
    if (types.includes('title')) gist.title = this.title(timeline);
    if (types.includes('topic')) gist.topics = topicsOf(this.wordnet, this.weightedWords(timeline));
    if (types.includes('hashtag')) gist.hashtags = this.hashtags(timeline);
    return gist;
  }

  async summarize(timeline: Timeline, type: SummarizeType, prompt: string): Promise<Summary> {
    const focus = new Set(this.expand(promptTerms(prompt)));
    if (type === 'chapter') return { type, chapters: this.chapters(timeline, focus) };
    if (type === 'highlight') return { type, highlights: this.highlights(timeline, focus) };
    const sentences = summarySentences(timeline, focus);
    return { type, summary: sentences.length > 0 ? sentences.join(' ') : NOTHING_FOUND };
  }

  async *answer(timeline: Timeline, prompt: string, settings?: GenerationSettings): AsyncIterable<string> {
    // Let what was already written (stream_start) go out before the answer is computed.
    await new Promise((resolve) => setImmediate(resolve));
    // Pieces carry their own spacing, as a model's tokens do.
    for (const [i, sentence] of this.answerSentences(timeline, prompt).entries()) {
      if (settings?.signal?.aborted) return;
      yield i === 0 ? sentence : ` ${sentence}`;
    }
  }

  async fillSchema(timeline: Timeline, prompt: string, schema: object): Promise<unknown> {
    return fillSchema(schema, await this.schemaContext(timeline, prompt));
  }

  /** What the schema filler fills from (public for a caller that watches the filler's FillUsage). */
  async schemaContext(timeline: Timeline, prompt: string): Promise<SchemaContext> {
    return {
      timeline,
      gist: await this.gist(timeline, ['title', 'topic', 'hashtag']),
      summary: (await this.summarize(timeline, 'summary', prompt)) as Extract<Summary, { type: 'summary' }>,
      chapters: this.chapters(timeline, new Set()),
      highlights: this.highlights(timeline, new Set()),
      answer: (question) => this.answerSentences(timeline, question).join(' '),
    };
  }

  /** The answer's sentences: the relevant moments, or that the video does not show what was asked. */
  answerSentences(timeline: Timeline, prompt: string): string[] {
    const terms = promptTerms(prompt);
    if (terms.length === 0) {
      const sentences = summarySentences(timeline, new Set(), 0, Infinity, 8);
      return sentences.length > 0 ? sentences : [NOTHING_FOUND];
    }
    const wanted = new Map(terms.map((term) => [term, new Set(this.expand([term]))]));
    const matched = new Set<string>();
    const relevant: { item: Evidence; hits: number }[] = [];
    for (const item of mergeRepeats(timeline.items)) {
      const own = new Set(this.normalize(words(item.text)));
      let hits = 0;
      for (const [term, forms] of wanted) {
        if (KIND_TERMS[term] === item.kind || [...forms].some((f) => own.has(f))) {
          matched.add(term);
          hits += 1;
        }
      }
      if (hits > 0) relevant.push({ item, hits });
    }
    const missing = terms.filter((t) => !matched.has(t));
    const moments = relevant
      .sort((a, b) => b.hits - a.hits || a.item.start - b.item.start)
      .slice(0, 8)
      .map((r) => r.item)
      .sort((a, b) => a.start - b.start)
      .map(sentenceOf);
    if (moments.length === 0) {
      const seen = seenSentence(timeline, 5);
      return [`The video does not show or mention ${joinList(missing.map(quote))}.`, ...(seen ? [seen] : [])];
    }
    return [...moments, ...(missing.length > 0 ? [`The video does not show or mention ${joinList(missing.map(quote))}.`] : [])];
  }

  /** On-screen text that stays longest (a title card), else the leading key phrases, else the video's own title. */
  private title(timeline: Timeline): string {
    const texts = mergeRepeats(timeline.items.filter((e) => e.kind === 'text')).sort(
      (a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start,
    );
    const card = texts.find((t) => contentWords(t.text).length > 0);
    if (card) return titleCase(card.text.split(/\s+/).slice(0, 10).join(' ').toLowerCase());
    const phrases = keyPhrases(
      timeline.items.filter((e) => e.kind === 'speech').map((e) => e.text),
      2,
    );
    if (phrases.length > 0) return titleCase(joinList(phrases));
    const seen = labelCoverage(timeline)
      .slice(0, 2)
      .map((l) => l.label);
    if (seen.length > 0) return titleCase(joinList(seen));
    return timeline.title;
  }

  private hashtags(timeline: Timeline): string[] {
    const texts = timeline.items.filter((e) => e.kind === 'text' || e.kind === 'speech' || e.kind === 'logo').map((e) => e.text);
    const phrases = [...keyPhrases(texts, 8), ...labelCoverage(timeline).map((l) => l.label)];
    const tags = phrases.map((p) => p.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')).filter((t) => t.length > 1);
    return [...new Set(tags)].slice(0, 5);
  }

  private weightedWords(timeline: Timeline): WeightedWord[] {
    const seen: WeightedWord[] = labelCoverage(timeline).map((l) => ({
      word: l.label,
      weight: 1 + l.seconds / Math.max(1, timeline.duration),
      parts: ['noun'],
    }));
    const said: WeightedWord[] = timeline.items
      .filter((e) => e.kind === 'speech' || e.kind === 'text')
      .flatMap((e) => contentWords(e.text).map((word) => ({ word, weight: 0.5, parts: ['noun', 'verb'] as const })));
    return [...seen, ...said];
  }

  /**
   * Chapters: shots merged by what they show and say. Adjacent shots whose evidence is alike
   * (Jaccard over labels and content words) merge first; merging goes on while there are more
   * chapters than the video's length warrants (one per 20 s, at most 10) or a chapter is shorter
   * than a twentieth of the video.
   */
  private chapters(timeline: Timeline, focus: ReadonlySet<string>): Chapter[] {
    type Unit = { start: number; end: number; words: Set<string> };
    const wordsIn = (start: number, end: number) =>
      new Set([...within(timeline, start, end).flatMap((e) => (e.kind === 'label' ? [e.text] : contentWords(e.text)))]);
    let units: Unit[] = timeline.shots.map((s) => ({ start: s.start, end: s.end, words: wordsIn(s.start, s.end) }));
    const maxChapters = Math.max(1, Math.min(10, Math.ceil(timeline.duration / 20)));
    const minLength = timeline.duration / 20;
    for (;;) {
      if (units.length <= 1) break;
      let best = -1;
      let bestScore = -Infinity;
      for (let i = 0; i + 1 < units.length; i += 1) {
        const a = units[i]!;
        const b = units[i + 1]!;
        const short = Math.min(a.end - a.start, b.end - b.start) < minLength ? 1 : 0;
        const score = similarity(a.words, b.words) + short;
        if (score > bestScore) [best, bestScore] = [i, score];
      }
      if (units.length <= maxChapters && bestScore < 0.6) break;
      const [a, b] = [units[best]!, units[best + 1]!];
      units = [...units.slice(0, best), { start: a.start, end: b.end, words: new Set([...a.words, ...b.words]) }, ...units.slice(best + 2)];
    }
    return units.map((unit, i) => {
      const sentences = summarySentences(timeline, focus, unit.start, unit.end, 3);
      return {
        chapterNumber: i,
        start: unit.start,
        end: unit.end,
        title: this.chapterTitle(timeline, unit.start, unit.end, i),
        summary: sentences.length > 0 ? sentences.join(' ') : `Nothing was detected from ${clock(unit.start)} to ${clock(unit.end)}.`,
      };
    });
  }

  private chapterTitle(timeline: Timeline, start: number, end: number, index: number): string {
    const texts = mergeRepeats(within(timeline, start, end, ['text'])).filter((t) => contentWords(t.text).length > 0);
    const longest = texts.sort((a, b) => b.end - b.start - (a.end - a.start))[0];
    if (longest) return titleCase(longest.text.split(/\s+/).slice(0, 8).join(' ').toLowerCase());
    const phrase = keyPhrases(
      within(timeline, start, end, ['speech']).map((e) => e.text),
      1,
    )[0];
    if (phrase) return titleCase(phrase);
    const seen = labelCoverage({ ...timeline, shots: timeline.shots.filter((s) => s.start < end && s.end > start) })
      .slice(0, 2)
      .map((l) => l.label);
    return seen.length > 0 ? titleCase(joinList(seen)) : `Part ${index + 1}`;
  }

  /** The most salient moments (at most one per 30 s, 1 to 5), whole seconds, in time order. */
  private highlights(timeline: Timeline, focus: ReadonlySet<string>): Highlight[] {
    const count = Math.max(1, Math.min(5, Math.round(timeline.duration / 30) || 1));
    const picked: Evidence[] = [];
    for (const { item } of rankEvidence(mergeRepeats(within(timeline, 0, Infinity, TEXTUAL)), focus)) {
      if (picked.length >= count) break;
      if (picked.some((p) => item.start < p.end && item.end > p.start)) continue;
      picked.push(item);
    }
    if (picked.length === 0) {
      const [label] = labelCoverage(timeline);
      if (label) picked.push({ kind: 'label', start: label.start, end: label.end, text: label.label });
    }
    return picked
      .sort((a, b) => a.start - b.start)
      .map((item) => {
        const start = Math.floor(item.start);
        return {
          start,
          end: Math.max(start + 1, Math.ceil(item.end)),
          highlight: capitalize(item.text.split(/\s+/).slice(0, 12).join(' ')),
          summary: sentenceOf(item),
        };
      });
  }

  /** A word's base forms (nouns and verbs) and, for a prompt term, its first sense's synonyms. */
  private expand(terms: readonly string[]): string[] {
    const forms = new Set<string>();
    for (const term of terms) {
      forms.add(term);
      for (const pos of ['noun', 'verb'] as const) {
        for (const base of this.wordnet.baseForms(term, pos)) forms.add(base);
        const [entry] = this.wordnet.lookup(term, { pos, maxSenses: 1 });
        for (const synonym of entry?.synsets[0]?.words ?? []) if (!synonym.includes('_')) forms.add(synonym.toLowerCase());
      }
    }
    return [...forms];
  }

  /** Words of the evidence with their base forms, so `dogs` meets `dog`. */
  private normalize(list: readonly string[]): string[] {
    return list.flatMap((w) => [w, ...this.wordnet.baseForms(w, 'noun'), ...this.wordnet.baseForms(w, 'verb')]);
  }
}

/** The bundled provider over a WordNet reader of its own, closed by `close` (for a caller outside the service: the benchmarks). */
export function createBundledProvider(): ExtractiveProvider & { close(): void } {
  const wordnet = openWordNet();
  return Object.assign(new ExtractiveProvider(wordnet), { close: () => wordnet.close() });
}
