/**
 * The bundled provider: extractive and grounded. Every sentence it writes states one piece of
 * evidence (what was said, shown as text, seen, or given as metadata) with its time; it never
 * describes what indexing did not find. Deterministic: `temperature` does not change it.
 */
import { centredWordVectors, openWordVectors } from '@vus/models';
import { openWordNet, type WordNet } from '@vus/wordnet';
import { Answerer, type WordSimilarity } from './answers';
import { mergeRepeats, within, type Evidence, type Timeline } from './evidence';
import type { Chapter, GenerationProvider, GenerationSettings, Gist, GistType, Highlight, Summary, SummarizeType } from './provider';
import { groundedPieces } from './responses/extractive-answer';
import type { Grounding } from './responses/grounding';
import { fillSchema, type SchemaContext } from './schema-fill';
import { labelCoverage, NOTHING_FOUND, rankEvidence, sentenceOf, summarySentences, TEXTUAL } from './sentences';
import { capitalize, clock, contentWords, joinList, keyPhrases, similarity, titleCase } from './text';
import { topicsOf, type WeightedWord } from './topics';

export { labelCoverage, rankEvidence, sentenceOf } from './sentences';
export { promptTerms } from './answers';

export class ExtractiveProvider implements GenerationProvider {
  readonly name = 'extractive';

  private readonly answerer: Answerer;

  constructor(
    private readonly wordnet: WordNet,
    similarity?: WordSimilarity,
  ) {
    this.answerer = new Answerer(wordnet, similarity);
  }

  async gist(timeline: Timeline, types: readonly GistType[]): Promise<Gist> {
    const gist: Gist = {};
    if (types.includes('title')) gist.title = this.title(timeline);
    if (types.includes('topic')) gist.topics = topicsOf(this.wordnet, this.weightedWords(timeline));
    if (types.includes('hashtag')) gist.hashtags = this.hashtags(timeline);
    return gist;
  }

  async summarize(timeline: Timeline, type: SummarizeType, prompt: string): Promise<Summary> {
    const focus = new Set(this.answerer.expand(this.answerer.terms(prompt)));
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

  async *respond(grounding: Grounding, settings?: GenerationSettings): AsyncIterable<string> {
    await new Promise((resolve) => setImmediate(resolve));
    for (const piece of groundedPieces(this.answerer, grounding)) {
      if (settings?.signal?.aborted) return;
      yield piece;
    }
  }

  /** The schema filled as for one video, from the moments' evidence together (times are each in its own video). */
  async fillSchemaOver(grounding: Grounding, schema: object): Promise<unknown> {
    const { passages } = grounding;
    const timeline: Timeline = {
      videoId: '',
      indexId: '',
      title: [...new Set(passages.map((p) => p.title))].join(', '),
      duration: Math.max(0, ...passages.map((p) => p.end)),
      items: passages.flatMap((p) => p.evidence).sort((a, b) => a.start - b.start),
      shots: [],
    };
    return this.fillSchema(timeline, grounding.question, schema);
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

  /** The answer's sentences: the relevant moments, the events asked for, or that the video does not show what was asked. */
  answerSentences(timeline: Timeline, prompt: string): string[] {
    return this.answerer.answer(timeline, prompt);
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
}

/**
 * How alike two words are by the bundled word vectors, centred as search-service compares them.
 * Finding the words in the vector file takes seconds (7 s on 2 busy cores): it is done in
 * event-loop turns from the start (`ready`), and until then no two words are alike (answers go on
 * without related words rather than hold the loop). `close` closes the vector file.
 */
export function bundledWordSimilarity(): { similarity: WordSimilarity; ready: Promise<void>; close(): void } {
  const vectors = openWordVectors();
  const vectorOf = centredWordVectors(vectors);
  let prepared = false;
  // A provider closed while preparing: the file is gone, and there is nothing left to compare.
  const ready = vectors.prepare().then(
    () => void (prepared = true),
    () => undefined,
  );
  const similarity: WordSimilarity = (a, b) => {
    if (!prepared) return undefined;
    const [x, y] = [vectorOf(a), vectorOf(b)];
    if (!x || !y) return undefined;
    let dot = 0;
    for (let d = 0; d < x.length; d += 1) dot += (x[d] as number) * (y[d] as number);
    return dot;
  };
  return { similarity, ready, close: () => vectors.close() };
}

/**
 * The bundled provider with the bundled word vectors, over `wordnet` (a reader of its own when not
 * given); `ready` when the vectors are; `close` closes the vectors, and the reader when it is its own.
 */
export function createBundledProvider(wordnet?: WordNet): ExtractiveProvider & { ready: Promise<void>; close(): void } {
  const reader = wordnet ?? openWordNet();
  const vectors = bundledWordSimilarity();
  return Object.assign(new ExtractiveProvider(reader, vectors.similarity), {
    ready: vectors.ready,
    close: () => {
      vectors.close();
      if (!wordnet) reader.close();
    },
  });
}
