/**
 * WordNet query and label expansion for lexical search.
 *
 * Query side (`expandQuery`): each content word or WordNet collocation of the query becomes a group
 * of weighted alternatives: its forms (exact), words of its first senses (synonyms) and the words one
 * level up from its first senses (hypernyms). Label side (`expandLabel`): a visual label is indexed
 * with its names and its hypernyms several levels up, so a query for a broader word ("vehicle",
 * "animal") finds a segment labelled with a narrower one ("car", "dog") without the query having to
 * be expanded downwards.
 *
 * Ranking note: a query hypernym can meet a label hypernym (query "car" → motor vehicle; label
 * "truck" → motor vehicle), which matches siblings. Index `LabelTerms.names` and `LabelTerms.broader`
 * at different tsvector weights and let query hypernyms match only the names.
 *
 * Length (about 450 lines): the query side and the label side are one search policy (WEIGHTS,
 * LIMITS, LABEL_SENSES): changing one side without the other changes what matches.
 */
import { QUERY_STOPWORDS, tokenize } from './lexicon';
import type { PartOfSpeech, Synset, WordNetReader } from './reader';

export type AlternativeKind = 'exact' | 'synonym' | 'hypernym';

export interface Alternative {
  /** Lower case; the words of a collocation are separated by spaces. */
  text: string;
  weight: number;
  kind: AlternativeKind;
}

export interface TermGroup {
  /** The base form the group is built from (the query's word when WordNet does not know it). */
  term: string;
  /** Distinct texts, highest weight first; the first is `term` itself. */
  alternatives: Alternative[];
}

/**
 * Weights: a form of the query word counts fully; a synonym of its most frequent sense nearly so;
 * synonyms of other senses and hypernyms less, since they may be another meaning or a broader one.
 */
export const WEIGHTS = {
  exact: 1,
  synonym: 0.85,
  otherSenseSynonym: 0.75,
  hypernym: 0.6,
  otherSenseHypernym: 0.5,
  /** A detector class the meaning is a kind of, however far up (soccer player → person): broad, so below a hypernym. */
  detectorClass: 0.5,
} as const;

/**
 * Limits. Senses are ordered by how often they were seen in the tagged corpora, but only the first
 * `taggedSenseCount` were seen at all. So: when some senses were seen, use at most those (puppy: the
 * young dog, not the young person); when none were, the order is a guess and the first senses are
 * used at the other-sense weights (hot dog: show-off, frankfurter, sandwich). Nouns get more senses
 * than verbs and adjectives because video queries are mostly about things, and the first noun senses
 * of everyday objects tend to be close (car: automobile, railcar) while verb senses spread widely
 * (run: 41 senses). Caps keep a group's OR-list short enough for ranking to mean something.
 */
export const LIMITS = {
  nounSenses: 3,
  otherSenses: 2,
  hypernymSenses: 2,
  synonymsPerGroup: 7,
  hypernymsPerGroup: 4,
  alternativesPerGroup: 12,
  /** Longest collocation tried, in words ("chest of drawers"). */
  collocationWords: 4,
  /** Levels of hypernyms a label is indexed with; above them only `BROAD_CATEGORIES` are kept. */
  labelHypernymLevels: 4,
  /** Levels climbed from a query term's first sense looking for a detector class (chef → … → person is 4). */
  detectorClassLevels: 10,
} as const;

/**
 * Hypernyms too abstract to help search; expansion neither emits them nor climbs past them: the top of
 * the noun hierarchy, its "unique beginners", and the broad nodes right below them.
 */
export const ABSTRACT_HYPERNYMS: ReadonlySet<string> = new Set([
  'entity',
  'physical entity',
  'abstraction',
  'abstract entity',
  'thing',
  'object',
  'physical object',
  'whole',
  'unit',
  'artifact',
  'artefact',
  'living thing',
  'animate thing',
  'organism',
  'being',
  'causal agent',
  'cause',
  'causal agency',
  'matter',
  'substance',
  'part',
  'portion',
  'piece',
  'relation',
  'attribute',
  'group',
  'grouping',
  'measure',
  'quantity',
  'amount',
  'psychological feature',
  'event',
  'act',
  'deed',
  'human action',
  'human activity',
  'communication',
  'instrumentality',
  'instrumentation',
  'state',
  'location',
  'process',
  'physical process',
]);

/**
 * Everyday categories people search by, kept for labels even above `labelHypernymLevels`: the animal
 * taxonomy is deep (cow → cattle → bovine → bovid → ruminant → … → mammal → … → animal).
 */
export const BROAD_CATEGORIES: ReadonlySet<string> = new Set([
  'animal',
  'mammal',
  'bird',
  'fish',
  'reptile',
  'amphibian',
  'insect',
  'vehicle',
  'craft',
  'food',
  'fruit',
  'vegetable',
  'plant',
  'flower',
  'tree',
  'furniture',
  'appliance',
  'device',
  'tool',
  'implement',
  'toy',
  'clothing',
  'container',
  'equipment',
  'sports equipment',
  'electronic equipment',
  'machine',
  'structure',
  'building',
  'person',
]);

const NUMBER = /^\d+(?:[.,]\d+)*$/;

/** `traffic_light` → `traffic light`. */
export function display(lemma: string): string {
  return lemma.toLowerCase().replace(/_/g, ' ');
}

/**
 * A synset's words for search. Capitalised words are names (Canis familiaris, Red River) and are
 * dropped, unless the word being expanded is itself a name (its first sense is all capitalised).
 */
function searchWords(synset: Synset, keepNames: boolean): string[] {
  return synset.words.filter((word) => keepNames || word === word.toLowerCase()).map(display);
}

function isName(synset: Synset): boolean {
  return synset.words.every((word) => word !== word.toLowerCase());
}

export function isAbstract(synset: Synset): boolean {
  return synset.words.some((word) => ABSTRACT_HYPERNYMS.has(display(word)));
}

export interface Resolved {
  lemma: string;
  pos: PartOfSpeech;
  offsets: number[];
  taggedSenseCount: number;
  /** Other base forms of the word: the first detached form in each part of speech (riding → ride, not rid). */
  forms: string[];
}

/**
 * The entry a word is expanded from. Within a part of speech the word itself wins when it is a lemma
 * (glasses, people), as in morphy; across parts of speech `preferred` wins when the word has it, else
 * the entry with more tagged senses (riding → verb ride, not the noun riding), the earlier part of
 * speech on a tie.
 */
function resolveWord(word: string, wordnet: WordNetReader, parts: readonly PartOfSpeech[], preferred?: PartOfSpeech): Resolved | undefined {
  let best: Resolved | undefined;
  const forms: string[] = [];
  for (const pos of parts) {
    const found = wordnet.baseForms(word, pos);
    const detached = found.find((form) => form !== word);
    if (detached !== undefined) forms.push(detached);
    const entry = found[0] === undefined ? undefined : wordnet.indexEntry(found[0], pos);
    if (entry === undefined || (best !== undefined && best.pos === preferred)) continue;
    if (best === undefined || pos === preferred || entry.taggedSenseCount > best.taggedSenseCount) {
      best = { lemma: entry.lemma, pos, offsets: entry.offsets, taggedSenseCount: entry.taggedSenseCount, forms };
    }
  }
  return best;
}

const ALL_PARTS: readonly PartOfSpeech[] = ['noun', 'verb', 'adj', 'adv'];

/**
 * The WordNet lemma the words form together, nouns first: `traffic lights` → traffic_light; also
 * hyphenated (`x ray` → x-ray) and, for two words, closed up as a noun (`cell phone` → cellphone:
 * WordNet 3.1 has no noun cell_phone, only a verb).
 */
function resolveCollocation(words: string[], wordnet: WordNetReader, parts = ALL_PARTS): Resolved | undefined {
  const spellings = [words.join('_'), words.join('-')];
  // Not after an adjective: "green house" is more often a house than a greenhouse.
  const closeable = words.length === 2 && !words.some((word) => NUMBER.test(word)) && wordnet.baseForms(words[0] ?? '', 'adj').length === 0;
  const closed = closeable ? words.join('') : undefined;
  for (const pos of parts) {
    for (const spelling of pos === 'noun' && closed !== undefined ? [...spellings, closed] : spellings) {
      const resolved = resolveWord(spelling, wordnet, [pos]);
      if (resolved !== undefined) return resolved;
    }
  }
  return undefined;
}

/** The senses to expand and whether their order was observed (see LIMITS). */
function sensesToUse(resolved: Resolved): { offsets: number[]; ordered: boolean } {
  const wanted = resolved.pos === 'noun' ? LIMITS.nounSenses : LIMITS.otherSenses;
  const ordered = resolved.taggedSenseCount > 0 || resolved.offsets.length === 1;
  return { offsets: resolved.offsets.slice(0, ordered ? Math.min(wanted, Math.max(1, resolved.taggedSenseCount)) : wanted), ordered };
}

/** The first word of every list, then the second of every list, …: each hypernym gets its head word in. */
function interleave(lists: string[][]): string[] {
  const longest = Math.max(0, ...lists.map((list) => list.length));
  const out: string[] = [];
  for (let at = 0; at < longest; at += 1) for (const list of lists) if (list[at] !== undefined) out.push(list[at] ?? '');
  return out;
}

function distinctCapped(alternatives: Alternative[], cap: number, seen: Set<string>): Alternative[] {
  const kept: Alternative[] = [];
  for (const alternative of alternatives) {
    if (kept.length >= cap || seen.has(alternative.text)) continue;
    seen.add(alternative.text);
    kept.push(alternative);
  }
  return kept;
}

function buildGroup(surface: string, resolved: Resolved | undefined, wordnet: WordNetReader): TermGroup {
  if (resolved === undefined) return { term: surface, alternatives: [{ text: surface, weight: WEIGHTS.exact, kind: 'exact' }] };
  const term = display(resolved.lemma);
  const exact = [term, surface, ...resolved.forms.map(display)].map((text) => ({ text, weight: WEIGHTS.exact, kind: 'exact' as const }));
  const { offsets, ordered } = sensesToUse(resolved);
  const senses = offsets.map((offset) => wordnet.synset(resolved.pos, offset));
  const keepNames = senses[0] !== undefined && isName(senses[0]);
  const isFirst = (rank: number) => ordered && rank === 0;
  const synonyms = senses.flatMap((sense, rank) =>
    searchWords(sense, keepNames).map((text) => ({
      text,
      weight: isFirst(rank) ? WEIGHTS.synonym : WEIGHTS.otherSenseSynonym,
      kind: 'synonym' as const,
    })),
  );
  const hypernyms = senses.slice(0, LIMITS.hypernymSenses).flatMap((sense, rank) => {
    const above = sense.hypernyms.map((offset) => wordnet.synset(resolved.pos, offset)).filter((synset) => !isAbstract(synset));
    const weight = isFirst(rank) ? WEIGHTS.hypernym : WEIGHTS.otherSenseHypernym;
    return interleave(above.map((synset) => searchWords(synset, keepNames))).map((text) => ({ text, weight, kind: 'hypernym' as const }));
  });
  const seen = new Set<string>();
  const alternatives = [
    ...distinctCapped(exact, LIMITS.alternativesPerGroup, seen),
    ...distinctCapped(synonyms, LIMITS.synonymsPerGroup, seen),
    ...distinctCapped(hypernyms, LIMITS.hypernymsPerGroup, seen),
  ];
  return { term, alternatives: alternatives.slice(0, LIMITS.alternativesPerGroup) };
}

/** A word right before a noun is read as an adjective when it can be one (white t-shirt, not white person). */
function modifiesNoun(next: string | undefined, wordnet: WordNetReader): boolean {
  return next !== undefined && !QUERY_STOPWORDS.has(next) && !NUMBER.test(next) && wordnet.baseForms(next, 'noun').length > 0;
}

/** A content word or collocation of a text and the WordNet entry it was resolved to, if any. */
export interface ResolvedTerm {
  /** The words as written (lower case), a collocation's separated by spaces. */
  surface: string;
  resolved?: Resolved;
}

/**
 * The content words and collocations of a text, in order, each resolved to its WordNet entry.
 * Collocations are matched longest first and may contain stopwords inside ("bird of prey") but not
 * at either end.
 */
export function resolveTerms(text: string, wordnet: WordNetReader): ResolvedTerm[] {
  const words = tokenize(text);
  const terms: ResolvedTerm[] = [];
  for (let at = 0; at < words.length;) {
    const word = words[at] ?? '';
    if (QUERY_STOPWORDS.has(word)) {
      at += 1;
      continue;
    }
    let length = Math.min(LIMITS.collocationWords, words.length - at);
    let resolved: Resolved | undefined;
    for (; length >= 2; length -= 1) {
      if (QUERY_STOPWORDS.has(words[at + length - 1] ?? '')) continue;
      resolved = resolveCollocation(words.slice(at, at + length), wordnet);
      if (resolved !== undefined) break;
    }
    if (resolved === undefined) {
      length = 1;
      if (!NUMBER.test(word)) resolved = resolveWord(word, wordnet, ALL_PARTS, modifiesNoun(words[at + 1], wordnet) ? 'adj' : undefined);
    }
    terms.push({ surface: words.slice(at, at + length).join(' '), ...(resolved === undefined ? {} : { resolved }) });
    at += length;
  }
  return terms;
}

/** The senses of a resolved term worth using, most frequent first, and whether that order was observed. */
export function termSenses(resolved: Resolved, wordnet: WordNetReader): { senses: Synset[]; ordered: boolean } {
  const { offsets, ordered } = sensesToUse(resolved);
  return { senses: offsets.map((offset) => wordnet.synset(resolved.pos, offset)), ordered };
}

export interface ExpandOptions {
  /**
   * The classes a detector labels frames with (COCO's 80). A noun whose first sense is a kind of one,
   * however far up WordNet files it, gets that class as an alternative: a video never shows "soccer
   * player" or "chef" as a label, but its detector says "person" (issue 35 §2). Kinds the other way
   * (vehicle → car) need nothing here: labels are indexed with their hypernyms (`labelTerms`).
   */
  readonly classes?: readonly string[];
  /**
   * Each term's group as built before (per term, never per query: a term's group depends on its
   * words and the entry they resolve to only), so that a word searched again costs no WordNet
   * walk. The caller bounds it (expandQuery adds to it).
   */
  readonly termGroups?: Map<string, TermGroup>;
}

/** Per reader and class list: each class's WordNet meaning (offset) → the class. */
const classMeanings = new WeakMap<WordNetReader, WeakMap<readonly string[], Map<number, string>>>();

function meaningsOfClasses(classes: readonly string[], wordnet: WordNetReader): Map<number, string> {
  let perReader = classMeanings.get(wordnet);
  if (!perReader) classMeanings.set(wordnet, (perReader = new WeakMap()));
  let meanings = perReader.get(classes);
  if (!meanings) {
    meanings = new Map();
    for (const label of classes) {
      const found = labelMeaning(label, wordnet);
      if (found !== undefined && !meanings.has(found.sense.offset)) meanings.set(found.sense.offset, label);
    }
    perReader.set(classes, meanings);
  }
  return meanings;
}

/**
 * The nearest detector class a noun's first sense is a kind of (breadth first up its hypernyms, never
 * past an abstract one), or undefined. Only the first sense: the others are often another thing
 * altogether (a star the performer is a person; the one in the sky is not). Pure given WordNet.
 */
export function detectorClassOf(resolved: Resolved, classes: readonly string[], wordnet: WordNetReader): string | undefined {
  if (resolved.pos !== 'noun' || resolved.offsets[0] === undefined) return undefined;
  const meanings = meaningsOfClasses(classes, wordnet);
  const visited = new Set<number>([resolved.offsets[0]]);
  let level = [wordnet.synset('noun', resolved.offsets[0])];
  for (let depth = 0; depth <= LIMITS.detectorClassLevels && level.length > 0; depth += 1) {
    const found = level.map((synset) => meanings.get(synset.offset)).find((label) => label !== undefined);
    if (found !== undefined) return found;
    level = level
      .flatMap((synset) => synset.hypernyms)
      .filter((offset) => !visited.has(offset) && visited.add(offset))
      .map((offset) => wordnet.synset('noun', offset))
      .filter((synset) => !isAbstract(synset));
  }
  return undefined;
}

/** One group per content word or collocation of the query (`resolveTerms`), in query order; a term that appears twice gives one group. */
export function expandQuery(text: string, wordnet: WordNetReader, options: ExpandOptions = {}): TermGroup[] {
  const groups: TermGroup[] = [];
  for (const { surface, resolved } of resolveTerms(text, wordnet)) {
    const key = resolved ? `${surface}\n${resolved.pos}\n${resolved.lemma}` : surface;
    let built = options.termGroups?.get(key);
    if (!built) {
      built = buildGroup(surface, resolved, wordnet);
      const detectorClass = resolved && options.classes ? detectorClassOf(resolved, options.classes, wordnet) : undefined;
      if (detectorClass !== undefined && !built.alternatives.some((alternative) => alternative.text === detectorClass)) {
        built.alternatives.push({ text: detectorClass, weight: WEIGHTS.detectorClass, kind: 'hypernym' });
      }
      options.termGroups?.set(key, built);
    }
    // A group of its own: callers may change what they are given, never the one kept.
    const group: TermGroup = { term: built.term, alternatives: built.alternatives.map((alternative) => ({ ...alternative })) };
    if (!groups.some((existing) => existing.term === group.term)) groups.push(group);
  }
  return groups;
}

/**
 * Labels of the detector whose everyday meaning is not what WordNet gives first, or that WordNet
 * spells differently: `lemma` to expand instead, `sense` a word of the wanted sense or of one of its
 * hypernyms, `aliases` everyday names WordNet only has as hyponyms (person: man, woman, child …).
 */
interface LabelSense {
  lemma?: string;
  sense?: string;
  aliases?: readonly string[];
}

export const LABEL_SENSES: Readonly<Record<string, LabelSense>> = {
  person: { aliases: ['people', 'human', 'man', 'woman', 'boy', 'girl', 'child', 'kid', 'baby', 'adult', 'pedestrian'] },
  'hot dog': { sense: 'sandwich' },
  kite: { sense: 'toy' },
  toaster: { sense: 'appliance' },
  cake: { sense: 'baked goods' },
  banana: { sense: 'edible fruit' },
  broccoli: { sense: 'vegetable' },
  carrot: { sense: 'vegetable' },
  toilet: { sense: 'plumbing fixture' },
  tv: { lemma: 'television_receiver', aliases: ['television'] },
  mouse: { lemma: 'computer_mouse' },
  microwave: { lemma: 'microwave_oven' },
  'potted plant': { lemma: 'houseplant', aliases: ['plant', 'pot plant'] },
  'stop sign': { lemma: 'street_sign', aliases: ['sign', 'traffic sign'] },
  'sports ball': { lemma: 'ball' },
};

/** What a label is indexed with, besides the label itself. */
export interface LabelTerms {
  /** Other names of the label's sense: the lemma WordNet files it under, its synonyms, curated aliases. */
  names: string[];
  /** Hypernyms, nearest first. */
  broader: string[];
}

function labelSense(resolved: Resolved, hint: string | undefined, wordnet: WordNetReader): Synset | undefined {
  const senses = resolved.offsets.map((offset) => wordnet.synset('noun', offset));
  if (hint === undefined) return senses[0];
  const mentions = (synset: Synset): boolean => {
    const seen = new Set<number>();
    for (let level = [synset]; level.length > 0;) {
      if (level.some((s) => s.words.some((word) => display(word) === hint))) return true;
      level = level
        .flatMap((s) => s.hypernyms)
        .filter((offset) => !seen.has(offset) && seen.add(offset))
        .map((offset) => wordnet.synset('noun', offset));
    }
    return false;
  };
  return senses.find(mentions) ?? senses[0];
}

/** The WordNet noun a detector label means (curated senses first), or undefined when WordNet has none. */
export function labelMeaning(
  label: string,
  wordnet: WordNetReader,
): { lemma: string; sense: Synset; aliases: readonly string[] } | undefined {
  const own = tokenize(label).join(' ');
  const curated = LABEL_SENSES[own] ?? {};
  const words = curated.lemma === undefined ? own.split(' ') : [curated.lemma];
  const resolved = words.length > 1 ? resolveCollocation(words, wordnet, ['noun']) : resolveWord(words[0] ?? '', wordnet, ['noun']);
  const sense = resolved === undefined ? undefined : labelSense(resolved, curated.sense, wordnet);
  return resolved === undefined || sense === undefined ? undefined : { lemma: resolved.lemma, sense, aliases: curated.aliases ?? [] };
}

/**
 * A label's names and hypernyms: all of a level's hypernyms for `LIMITS.labelHypernymLevels` levels,
 * and above that only `BROAD_CATEGORIES`, never past an abstract one. Lower case, distinct, without
 * the label itself; empty when WordNet has no noun for it.
 */
export function labelTerms(label: string, wordnet: WordNetReader): LabelTerms {
  const own = tokenize(label).join(' ');
  const found = labelMeaning(label, wordnet);
  if (found === undefined) return { names: [], broader: [] };
  const { lemma, sense, aliases } = found;
  const names = [display(lemma), ...searchWords(sense, false), ...aliases];
  const broader: string[] = [];
  const visited = new Set<number>([sense.offset]);
  let level = [sense];
  for (let depth = 1; level.length > 0; depth += 1) {
    const next: Synset[] = [];
    for (const offset of level.flatMap((synset) => synset.hypernyms)) {
      if (visited.has(offset)) continue;
      visited.add(offset);
      const hypernym = wordnet.synset('noun', offset);
      if (isAbstract(hypernym)) continue;
      const words = searchWords(hypernym, false);
      broader.push(...(depth <= LIMITS.labelHypernymLevels ? words : words.filter((word) => BROAD_CATEGORIES.has(word))));
      next.push(hypernym);
    }
    level = next;
  }
  const distinctNames = [...new Set(names)].filter((name) => name !== own);
  return { names: distinctNames, broader: [...new Set(broader)].filter((term) => term !== own && !distinctNames.includes(term)) };
}

/** `labelTerms` as one list, names first. */
export function expandLabel(label: string, wordnet: WordNetReader): string[] {
  const { names, broader } = labelTerms(label, wordnet);
  return [...names, ...broader];
}
