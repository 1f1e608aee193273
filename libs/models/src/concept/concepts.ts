/**
 * What an input is about, as weighted concepts: the words (placed by word vectors) and WordNet
 * synsets (hashed, exact meanings) that the bundled extractors see in it. Pure functions; the
 * extractors' outputs come in as plain values.
 */
import {
  BROAD_CATEGORIES,
  display,
  isAbstract,
  labelMeaning,
  resolveTerms,
  termSenses,
  type Synset,
  type WordNetReader,
} from '@vus/wordnet';

/**
 * - `word`: a lower-case word, placed by its word vector.
 * - `synset`: a WordNet meaning (`noun:2834778`), hashed into its own dimensions.
 * - `token`: a word neither knows (a name, a code): hashed, so it still matches itself exactly.
 */
export type ConceptKind = 'word' | 'synset' | 'token';

/** Concept key (`word:cat`, `synset:noun:2124272`, `token:zx81`) → weight. */
export type ConceptBag = Map<string, number>;

export function conceptKey(kind: ConceptKind, value: string): string {
  return `${kind}:${value}`;
}

export function kindOf(key: string): ConceptKind {
  return key.slice(0, key.indexOf(':')) as ConceptKind;
}

/** Adds `weight` to a concept (several mentions count more). */
export function addConcept(bag: ConceptBag, key: string, weight: number): void {
  if (weight > 0) bag.set(key, (bag.get(key) ?? 0) + weight);
}

/** Adds every concept of `from`, scaled. */
export function mergeConcepts(into: ConceptBag, from: ConceptBag, scale = 1): ConceptBag {
  for (const [key, weight] of from) addConcept(into, key, weight * scale);
  return into;
}

/**
 * How much a meaning's neighbours count: a hypernym one level up half as much as the meaning, two
 * levels a quarter …; synonyms' other senses less than the first (the order WordNet observed).
 */
export const CONCEPT_WEIGHTS = {
  firstSense: 1,
  otherSense: 0.5,
  hypernymDecay: 0.5,
  hypernymLevels: 4,
  /** Above those levels only everyday categories (mammal, animal, vehicle) are kept, at this share of the meaning's weight. */
  broadCategory: 0.25,
  /** A label's everyday names (person: people, man, woman …) share this much of its weight as words. */
  aliases: 0.5,
  /** A detector label: its score scaled so that a confident detection (≥ 0.5) counts fully. */
  confidentScore: 0.5,
  /** Words read on screen count a little less than what the objects are. */
  onScreenText: 0.7,
  /** The dominant colour is a weak cue. */
  colour: 0.15,
} as const;

/** Adds a meaning and its hypernyms (decaying, never past an abstract one such as "entity"). */
export function addSynset(bag: ConceptBag, synset: Synset, weight: number, wordnet: WordNetReader): void {
  addConcept(bag, conceptKey('synset', `${synset.pos}:${synset.offset}`), weight);
  const seen = new Set<number>([synset.offset]);
  let level = [synset];
  let levelWeight = weight;
  for (let depth = 1; level.length > 0; depth += 1) {
    levelWeight *= CONCEPT_WEIGHTS.hypernymDecay;
    const next: Synset[] = [];
    for (const offset of level.flatMap((s) => s.hypernyms)) {
      if (seen.has(offset)) continue;
      seen.add(offset);
      const hypernym = wordnet.synset(synset.pos, offset);
      if (isAbstract(hypernym)) continue;
      next.push(hypernym);
      const key = conceptKey('synset', `${hypernym.pos}:${hypernym.offset}`);
      if (depth <= CONCEPT_WEIGHTS.hypernymLevels) addConcept(bag, key, levelWeight);
      else if (hypernym.words.some((word) => BROAD_CATEGORIES.has(display(word))))
        addConcept(bag, key, weight * CONCEPT_WEIGHTS.broadCategory);
    }
    level = next;
  }
}

/** A text's concepts: each content word or collocation (its lemma and its senses with their hypernyms), or a token WordNet does not know. */
export function textConcepts(text: string, wordnet: WordNetReader, isWord: (word: string) => boolean, weight = 1): ConceptBag {
  const bag: ConceptBag = new Map();
  for (const { surface, resolved } of resolveTerms(text, wordnet)) {
    const lemma = resolved?.lemma.toLowerCase().replace(/_/g, ' ');
    const words = [...new Set([lemma, surface].filter((w): w is string => w !== undefined).flatMap((w) => w.split(/[ -]/)))];
    const known = words.filter(isWord);
    for (const word of known) addConcept(bag, conceptKey('word', word), weight / known.length);
    if (known.length === 0 && resolved === undefined) addConcept(bag, conceptKey('token', surface), weight);
    if (resolved === undefined) continue;
    const { senses, ordered } = termSenses(resolved, wordnet);
    senses.forEach((sense, rank) =>
      addSynset(bag, sense, weight * (ordered && rank === 0 ? CONCEPT_WEIGHTS.firstSense : CONCEPT_WEIGHTS.otherSense), wordnet),
    );
  }
  return bag;
}

/** A detector label (`motorcycle`, `cell phone`) with its score: the label's words and its WordNet meaning. */
export function labelConcepts(label: string, score: number, wordnet: WordNetReader, isWord: (word: string) => boolean): ConceptBag {
  const bag: ConceptBag = new Map();
  const weight = Math.min(1, score / CONCEPT_WEIGHTS.confidentScore);
  const words = label.toLowerCase().split(/\s+/).filter(isWord);
  for (const word of words) addConcept(bag, conceptKey('word', word), weight / words.length);
  const meaning = labelMeaning(label, wordnet);
  const aliases = (meaning?.aliases ?? []).filter(isWord);
  for (const alias of aliases) addConcept(bag, conceptKey('word', alias), (weight * CONCEPT_WEIGHTS.aliases) / aliases.length);
  if (meaning) addSynset(bag, meaning.sense, weight, wordnet);
  else if (words.length === 0) addConcept(bag, conceptKey('token', label.toLowerCase()), weight);
  return bag;
}

/** Basic colour terms and their sRGB anchors; the nearest names an image's dominant colour. */
export const COLOUR_NAMES: readonly (readonly [name: string, r: number, g: number, b: number])[] = [
  ['black', 0, 0, 0],
  ['white', 255, 255, 255],
  ['gray', 128, 128, 128],
  ['red', 200, 30, 30],
  ['orange', 240, 140, 20],
  ['yellow', 240, 220, 40],
  ['green', 40, 160, 50],
  ['blue', 30, 70, 200],
  ['purple', 130, 50, 160],
  ['pink', 240, 150, 190],
  ['brown', 120, 75, 35],
];

/** The colour term nearest an RGB colour (Euclidean in sRGB: coarse, and enough for a weak cue). */
export function colourName(r: number, g: number, b: number): string {
  let best = COLOUR_NAMES[0]!;
  let bestDistance = Infinity;
  for (const entry of COLOUR_NAMES) {
    const distance = (entry[1] - r) ** 2 + (entry[2] - g) ** 2 + (entry[3] - b) ** 2;
    if (distance < bestDistance) [best, bestDistance] = [entry, distance];
  }
  return best[0];
}

/**
 * A clip's concepts from its frames: a concept seen in every frame keeps its strongest weight, one
 * seen in a single frame of many half of it — a passing object is part of the clip, but less so.
 */
export function unionOfFrames(frames: readonly ConceptBag[]): ConceptBag {
  const strongest = new Map<string, number>();
  const seenIn = new Map<string, number>();
  for (const frame of frames) {
    for (const [key, weight] of frame) {
      strongest.set(key, Math.max(strongest.get(key) ?? 0, weight));
      seenIn.set(key, (seenIn.get(key) ?? 0) + 1);
    }
  }
  const bag: ConceptBag = new Map();
  for (const [key, weight] of strongest) bag.set(key, weight * (0.5 + (0.5 * (seenIn.get(key) ?? 0)) / Math.max(1, frames.length)));
  return bag;
}
