/**
 * Answers of the bundled provider to an open prompt. The prompt is read for a time ("at the
 * end", "at 1:20", "after the countdown": only that stretch of the evidence is used), for words
 * that only ask ("what happened", "describe": the stretch's events in time order) and for what it
 * asks about: each word meets the evidence through its base forms and synonyms, as a category
 * (WordNet hypernyms: "animals" meets dog, "dish" risotto, "places" a city or the metadata's
 * location), or through the word vectors (related words of the evidence: "pet" meets cat).
 */
import { REQUEST_WORDS, tokenize, type WordNet } from '@vus/wordnet';
import { belongs, CATEGORY_LEMMAS, categoryOf, isBroadCategory, KindIndex, type Category } from './categories';
import { mergeRepeats, type Evidence, type EvidenceKind, type Timeline } from './evidence';
import { inWindow, parseQuestion, windowOf, type Window } from './question';
import { labelCoverage, NOTHING_FOUND, rankEvidence, sentenceOf, seenSentence, summarySentences, TEXTUAL } from './sentences';
import { clock, contentWords, joinList, quote } from './text';

/** How alike two words are by the bundled word vectors (cosine), or undefined when either is unknown. */
export type WordSimilarity = (a: string, b: string) => number | undefined;

/** Prompt words that ask for a kind of evidence rather than a word in it ("which logo appears?"). */
export const KIND_TERMS: Readonly<Record<string, EvidenceKind>> = {
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
  screen: 'text',
  onscreen: 'text',
  'on-screen': 'text',
  speech: 'speech',
  speaker: 'speech',
  spoken: 'speech',
  narrator: 'speech',
};

/** Asking words that also say which kind of evidence is wanted ("what is said at the start?"). */
const ASKED_KINDS: Readonly<Record<string, EvidenceKind>> = {
  say: 'speech',
  said: 'speech',
  says: 'speech',
  talk: 'speech',
  talks: 'speech',
  talked: 'speech',
  discussed: 'speech',
};

/** Verbs (base forms) that ask what happens: the answer is the events in order. */
const DESCRIBING = new Set(['happen', 'occur', 'describe', 'unfold', 'transpire', 'narrate', 'recount']);
const GOING_ON = /\bgoing\s+on\b|\bt(?:ake|akes|ook|aking)\s+place\b/i;

/** Question words that name a category although they are function words. */
const CATEGORY_QUESTION_WORDS: Readonly<Record<string, string>> = { who: 'people', where: 'places', anyone: 'people', someone: 'people' };

/** Related words found by vectors: at least this cosine (centred GloVe: fish–sardines 0.60, fish–cat 0.45), at most this many. */
export const RELATED_MIN_SIMILARITY = 0.5;
const RELATED_PER_TERM = 3;
/** Moments an answer states at most; the events of a stretch at most. */
const MOMENTS = 8;
const EVENTS = 12;

/** Whether a prompt word only asks (its own form or a verb base form is a request word). */
export function isAsking(word: string, baseForms: (word: string) => readonly string[] = () => []): boolean {
  return REQUEST_WORDS.has(word) || baseForms(word).some((base) => REQUEST_WORDS.has(base) || DESCRIBING.has(base));
}

/** The words a prompt asks about: its content words that are not part of asking. */
export function promptTerms(prompt: string, baseForms?: (word: string) => readonly string[]): string[] {
  return [...new Set(contentWords(prompt).filter((w) => !isAsking(w, baseForms)))];
}

/** The timeline within a window (metadata is about the whole video: only without one). */
function narrowed(timeline: Timeline, window: Window | undefined): Timeline {
  if (!window) return timeline;
  return {
    ...timeline,
    items: timeline.items.filter((e) => e.kind !== 'metadata' && inWindow(window, e.start, e.end)),
    shots: timeline.shots.filter((s) => inWindow(window, s.start, s.end)),
  };
}

/** Labels as events: the labels first seen together, from then until last seen (the most seen eight labels). */
function labelAppearances(timeline: Timeline): Evidence[] {
  const byStart = new Map<number, { labels: string[]; end: number }>();
  for (const { label, start, end } of labelCoverage(timeline).slice(0, 8)) {
    const group = byStart.get(start) ?? { labels: [], end };
    group.labels.push(label);
    group.end = Math.max(group.end, end);
    byStart.set(start, group);
  }
  return [...byStart].map(([start, { labels, end }]) => ({ kind: 'label', start, end, text: joinList(labels) }));
}

/** What happens in a (narrowed) timeline, in time order: what appears when, and the salient text and speech. */
export function eventsInOrder(timeline: Timeline, kinds: readonly EvidenceKind[] | undefined, withMetadata: boolean): string[] {
  const wanted = (kind: EvidenceKind) => kinds === undefined || kinds.includes(kind);
  const textual = mergeRepeats(timeline.items.filter((e) => (TEXTUAL as readonly string[]).includes(e.kind) && wanted(e.kind)));
  const picked = rankEvidence(textual)
    .filter((r) => r.score > 0)
    .slice(0, EVENTS)
    .map((r) => r.item);
  const seen = wanted('label') ? labelAppearances(timeline) : [];
  const metadata = withMetadata && kinds === undefined ? timeline.items.filter((e) => e.kind === 'metadata').slice(0, 3) : [];
  return [...[...seen, ...picked].sort((a, b) => a.start - b.start).map(sentenceOf), ...metadata.map(sentenceOf)];
}

/** A term of the prompt and what meets it. */
interface Asked {
  term: string;
  forms: Set<string>;
  /** The category the term names (none included: not one). */
  category: Category;
}

export class Answerer {
  private readonly kinds: KindIndex;

  constructor(
    private readonly wordnet: WordNet,
    private readonly similarity?: WordSimilarity,
  ) {
    this.kinds = new KindIndex(wordnet);
  }

  /** A verb's base forms (asking words are recognised by them: happened → happen). */
  private readonly verbBases = (word: string) => this.wordnet.baseForms(word, 'verb');

  /** The prompt's terms; a category word that is also an asking word ("which events?") stays a term. */
  terms(prompt: string): string[] {
    const categories = contentWords(prompt).filter((w) => Object.hasOwn(CATEGORY_LEMMAS, w) && REQUEST_WORDS.has(w));
    return [...new Set([...promptTerms(prompt, this.verbBases), ...categories])];
  }

  /** A word's base forms (nouns and verbs) and, for a prompt term, its first sense's synonyms. */
  expand(terms: readonly string[]): string[] {
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
  normalize(list: readonly string[]): string[] {
    return list.flatMap((w) => [w, ...this.wordnet.baseForms(w, 'noun'), ...this.wordnet.baseForms(w, 'verb')]);
  }

  /** The answer's sentences: the relevant moments, the events asked for, or that the video does not show what was asked. */
  answer(timeline: Timeline, prompt: string): string[] {
    const { time, rest } = parseQuestion(prompt);
    let window = time && windowOf(time, timeline.duration);
    let question = rest;
    if (time && (time.kind === 'after' || time.kind === 'before')) {
      const anchor = this.anchorOf(timeline, time.anchor);
      if (anchor) window = time.kind === 'after' ? { from: anchor.end, to: Infinity, after: true } : { from: 0, to: anchor.start };
      // Nothing to anchor to: what was named is asked about, and the answer says it is not there.
      else question = `${rest} ${time.anchor}`;
    }
    const view = narrowed(timeline, window);
    const raw = tokenize(question);
    const categoryWords = raw.filter((w) => Object.hasOwn(CATEGORY_QUESTION_WORDS, w));
    const terms = [...this.terms(question), ...categoryWords];
    const kinds = [...new Set(raw.flatMap((w) => (Object.hasOwn(ASKED_KINDS, w) ? [ASKED_KINDS[w]!] : [])))];
    const onlyKinds = terms.length > 0 && terms.every((t) => Object.hasOwn(KIND_TERMS, t));
    const describing = GOING_ON.test(question) || raw.some((w) => this.verbBases(w).some((b) => DESCRIBING.has(b)));
    if (terms.length === 0 || onlyKinds) {
      const asked = onlyKinds ? [...new Set(terms.map((t) => KIND_TERMS[t]!))] : kinds.length > 0 ? kinds : undefined;
      if (describing || window || onlyKinds) {
        const events = eventsInOrder(view, asked, window === undefined);
        if (events.length > 0) return events;
        if (!onlyKinds) return [window ? `Nothing was found ${between(window, timeline)}.` : NOTHING_FOUND];
      } else {
        const sentences = summarySentences(view, new Set(), 0, Infinity, 8);
        return sentences.length > 0 ? sentences : [NOTHING_FOUND];
      }
    }
    return this.moments(timeline, view, terms, window);
  }

  /** The moments that meet the terms, a sentence naming a category's members first, then what is missing. */
  private moments(timeline: Timeline, view: Timeline, terms: readonly string[], window: Window | undefined): string[] {
    const { relevant, matched, members } = this.meeting(view, terms);
    // A category found answers the question; its other words ("prepared on the cooking show") only narrow it.
    const missing = terms.filter((t) => !matched.has(t) && members.size === 0);
    const notThere =
      missing.length > 0
        ? `The video does not show or mention ${joinList(missing.map(quote))}${window ? ` ${between(window, timeline)}` : ''}.`
        : undefined;
    const moments = relevant
      .sort((a, b) => b.hits - a.hits || a.item.start - b.item.start)
      .slice(0, MOMENTS)
      .map((r) => r.item)
      .sort((a, b) => a.start - b.start)
      .map(sentenceOf);
    if (moments.length === 0) {
      const seen = seenSentence(view, 5);
      return [notThere ?? NOTHING_FOUND, ...(seen ? [seen] : [])];
    }
    const named = [...members].map(
      ([term, found]) => `${capitalised(CATEGORY_QUESTION_WORDS[term] ?? term)} shown or mentioned: ${joinList([...found])}.`,
    );
    return [...named, ...moments, ...(notThere ? [notThere] : [])];
  }

  /**
   * The evidence of a view that meets the terms (merged repeats, with how many terms each meets), the
   * terms met, and the members found of each category term ("animals": dog). A term met nowhere
   * also meets the words the vectors put near it (not a broad category's: WordNet knows those better).
   */
  meeting(
    view: Timeline,
    terms: readonly string[],
  ): { relevant: { item: Evidence; hits: number }[]; matched: Set<string>; members: Map<string, Set<string>> } {
    const asked: Asked[] = terms.map((term) => ({
      term,
      forms: new Set(this.expand([term])),
      category: categoryOf(CATEGORY_QUESTION_WORDS[term] ?? term, this.wordnet),
    }));
    const items = mergeRepeats(view.items);
    const owns = items.map((item) => new Set(this.normalize(tokenize(item.text))));
    // A term none of whose forms is in the evidence also meets its related words there; not a broad
    // category, whose kinds WordNet knows better than vectors do (animal is near mouse, the computer's too).
    if (this.similarity) {
      const vocabulary = new Set(owns.flatMap((own) => [...own]));
      for (const a of asked) {
        if (isBroadCategory(a.term, this.wordnet) || [...a.forms].some((f) => vocabulary.has(f))) continue;
        for (const w of this.related(a.term, vocabulary)) a.forms.add(w);
      }
    }
    const matched = new Set<string>();
    const members = new Map<string, Set<string>>();
    const relevant: { item: Evidence; hits: number }[] = [];
    items.forEach((item, i) => {
      let hits = 0;
      for (const a of asked) {
        const found = KIND_TERMS[a.term] === item.kind || [...a.forms].some((f) => owns[i]!.has(f));
        // Members are kinds of the term, not the term itself ("oven" has no members; "animals" has dog).
        const kindsOf = a.category.include.size > 0 && !found ? this.membersIn(item, a.category).filter((m) => !a.forms.has(m)) : [];
        if (kindsOf.length > 0) for (const m of kindsOf) (members.get(a.term) ?? members.set(a.term, new Set()).get(a.term)!).add(m);
        if (found || kindsOf.length > 0) {
          matched.add(a.term);
          hits += 1;
        }
      }
      if (hits > 0) relevant.push({ item, hits });
    });
    return { relevant, matched, members };
  }

  /** The words of an item that belong to the category (a label as a whole; metadata by its value). */
  private membersIn(item: Evidence, category: Category): string[] {
    if (item.kind === 'label') return belongs(this.kinds.ofLabel(item.text), category) ? [item.text] : [];
    if (item.kind === 'metadata') {
      const value = item.text.slice(item.text.indexOf(':') + 1).trim();
      return contentWords(value).some((w) => belongs(this.kinds.ofWord(w), category)) ? [value] : [];
    }
    return [...new Set(contentWords(item.text).filter((w) => belongs(this.kinds.ofWord(w), category)))];
  }

  /** Words of the vocabulary the vectors put near the term, most alike first. */
  private related(term: string, vocabulary: ReadonlySet<string>): string[] {
    return [...vocabulary]
      .map((word) => ({ word, similarity: word === term ? undefined : this.similarity!(term, word) }))
      .filter((w): w is { word: string; similarity: number } => w.similarity !== undefined && w.similarity >= RELATED_MIN_SIMILARITY)
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, RELATED_PER_TERM)
      .map((w) => w.word);
  }

  /** The first evidence that meets the words of an anchor ("after the countdown"). */
  private anchorOf(timeline: Timeline, anchor: string): Evidence | undefined {
    const forms = new Set(this.expand(this.terms(anchor)));
    if (forms.size === 0) return undefined;
    return mergeRepeats(timeline.items)
      .filter((item) => item.kind !== 'metadata')
      .find((item) => this.normalize(tokenize(item.text)).some((w) => forms.has(w)));
  }
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** `between 0:09 and 0:12`, `after 0:12`. */
function between(window: Window, timeline: Timeline): string {
  const to = Math.min(window.to, timeline.duration);
  return window.after || to >= timeline.duration ? `after ${clock(window.from)}` : `between ${clock(window.from)} and ${clock(to)}`;
}
