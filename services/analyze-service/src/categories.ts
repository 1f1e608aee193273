/**
 * Questions by category ("which animals?", "what food?", "which places?"): a word of the evidence
 * belongs to a category when WordNet files one of its first senses under one of the category
 * word's senses, however far up (dog → canine → carnivore → … → animal; risotto → dish; city →
 * municipality → … → location). Labels are read in the sense the detector means (labelMeaning).
 */
import { BROAD_CATEGORIES, isAbstract, labelMeaning, type Synset, type WordNet } from '@vus/wordnet';

/**
 * Category words WordNet names by another lemma, or whose own first senses are not the category
 * (place: "topographic point"; people: a group): the lemmas to use instead.
 */
export const CATEGORY_LEMMAS: Readonly<Record<string, readonly string[]>> = {
  place: ['location', 'place'],
  places: ['location', 'place'],
  where: ['location'],
  location: ['location'],
  locations: ['location'],
  who: ['person'],
  people: ['person'],
  someone: ['person'],
  anyone: ['person'],
  event: ['event'],
  events: ['event'],
  // A dish asked about in a video is prepared food of any kind (grilled sardines), not only WordNet's dishes.
  dish: ['dish', 'food'],
  dishes: ['dish', 'food'],
  meal: ['meal', 'food'],
};

/** Senses of a category word used (nouns, most frequent first): dish is crockery first, food second. */
const CATEGORY_SENSES = 3;
/** Senses of an evidence word tried (sardine: food first, the fish second). */
const MEMBER_SENSES = 2;
/** Levels climbed from a member's sense (WordNet's animal chain is about 12 deep). */
const MAX_DEPTH = 16;

/** The synsets a word asks for as a category, by offset; empty when it is not one (too abstract, or not a noun). */
export function categorySynsets(word: string, wordnet: WordNet): Set<number> {
  const curated = Object.hasOwn(CATEGORY_LEMMAS, word) ? CATEGORY_LEMMAS[word] : undefined;
  const offsets = new Set<number>();
  for (const lemma of curated ?? [word]) {
    for (const entry of wordnet.lookup(lemma, { pos: 'noun', maxSenses: CATEGORY_SENSES })) {
      // A curated lemma may be abstract on purpose (event, location); any other abstract word would take in everything.
      for (const synset of entry.synsets) if (curated !== undefined || !isAbstract(synset)) offsets.add(synset.offset);
      if (curated === undefined) break;
    }
  }
  return offsets;
}

/** A synset and everything above it (offsets), up to MAX_DEPTH levels. */
export function withHypernyms(synset: Synset, wordnet: WordNet): Set<number> {
  const seen = new Set<number>([synset.offset]);
  let level = [synset];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth += 1) {
    level = level
      .flatMap((s) => s.hypernyms)
      .filter((offset) => !seen.has(offset) && seen.add(offset))
      .map((offset) => wordnet.synset('noun', offset));
  }
  return seen;
}

/** A category: the synsets its members are kinds of, and those that rule a sense out (an event that is an act). */
export interface Category {
  include: ReadonlySet<number>;
  exclude: ReadonlySet<number>;
}

/**
 * Senses under a category that do not answer it: WordNet files every act under event (cooking,
 * parking, a vote), while "which events?" asks for happenings (a marathon as a race, a crash).
 */
const EXCLUDED_UNDER: Readonly<Record<string, readonly string[]>> = { event: ['act'] };

/** The category a word asks for (see categorySynsets), with the senses ruled out under it. */
export function categoryOf(word: string, wordnet: WordNet): Category {
  const include = categorySynsets(word, wordnet);
  const curated = Object.hasOwn(CATEGORY_LEMMAS, word) ? CATEGORY_LEMMAS[word]! : [];
  const excluded = curated.flatMap((lemma) => EXCLUDED_UNDER[lemma] ?? []);
  const exclude = new Set(
    excluded.flatMap((lemma) => wordnet.lookup(lemma, { pos: 'noun', maxSenses: 2 }).flatMap((e) => e.synsets.map((s) => s.offset))),
  );
  return { include, exclude };
}

/** Remembers, per evidence word or label, what each of its senses is a kind of. */
export class KindIndex {
  private readonly words = new Map<string, Set<number>[]>();
  private readonly labels = new Map<string, Set<number>[]>();

  constructor(private readonly wordnet: WordNet) {}

  /** What a word of speech or text is a kind of, per sense: its first noun senses and their hypernyms. */
  ofWord(word: string): Set<number>[] {
    let kinds = this.words.get(word);
    if (!kinds) {
      const [entry] = this.wordnet.lookup(word, { pos: 'noun', maxSenses: MEMBER_SENSES });
      kinds = (entry?.synsets ?? []).map((synset) => withHypernyms(synset, this.wordnet));
      if (this.words.size >= 20_000) this.words.clear();
      this.words.set(word, kinds);
    }
    return kinds;
  }

  /** What a detector label is a kind of, in the sense the detector means. */
  ofLabel(label: string): Set<number>[] {
    let kinds = this.labels.get(label);
    if (!kinds) {
      const meaning = labelMeaning(label, this.wordnet);
      kinds = meaning ? [withHypernyms(meaning.sense, this.wordnet)] : [];
      this.labels.set(label, kinds);
    }
    return kinds;
  }
}

/** Whether one of the senses is in the category and not ruled out. */
export const belongs = (senses: readonly ReadonlySet<number>[], category: Category): boolean =>
  senses.some((kinds) => [...category.include].some((c) => kinds.has(c)) && ![...category.exclude].some((x) => kinds.has(x)));

/** A category named by a broad word (animal, vehicle, food, person …, or one of CATEGORY_LEMMAS), in any inflection. */
export function isBroadCategory(word: string, wordnet: WordNet): boolean {
  if (Object.hasOwn(CATEGORY_LEMMAS, word)) return true;
  return [word, ...wordnet.baseForms(word, 'noun')].some((form) => BROAD_CATEGORIES.has(form) || Object.hasOwn(CATEGORY_LEMMAS, form));
}
