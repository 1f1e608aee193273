/**
 * Semantic matching by WordNet definitions (gloss relatedness, as in the extended Lesk measure),
 * beside the word vectors of semantic.ts: a word of the index is related to a query word when the
 * query word is used in the definition of the index word's first noun sense ("space" → countdown:
 * "counting backward … before some event (such as launching a space vehicle)"), or the index word
 * in the definition of the query word's ("kitchen" → meal). Word vectors put countdown far from
 * space (0.24); a dictionary does not.
 *
 * Precision, measured over the 10,000 commonest words of the word-vector file as a vocabulary:
 * - definitions only, not the examples after them (the examples of "space" name tests, teeth and
 *   a jungle), and only first noun senses (room's second sense is "space for movement"; man's
 *   first verb sense is "take charge of a certain job");
 * - words compared by base form and part of speech, each word taken in the part of speech WordNet
 *   saw it most in (a query word too: "train" is the verb, and reaches astronaut, "a person
 *   trained to travel in a spacecraft");
 * - a word used by very many definitions ("man", "person", "time", "fish") relates to too much to
 *   be evidence, nor do WordNet's abstract top words ("thing", "object") however rare; but a kind
 *   of the word still relates (sardine, "small fatty fish", filed under saltwater fish).
 *
 * Cost: one pass over the noun files (20 MB) indexes which nouns each word defines
 * (indexDefinitions: 1.5–2 s of CPU alone, a 1 MB piece per event-loop turn; tens of seconds on two
 * cores shared with other work). The build makes it once for the bundled WordNet and writes it to
 * dist/ (2.7 MB of JSON), which search-service reads in about 0.1 s when its first query or ingest
 * comes (5.6 MB kept: 4.5 MB of heap and 1.2 MB of typed arrays). A query word is then a few map
 * lookups and one definition read (15 µs for "space" over a 10,000-word vocabulary); an index's
 * vocabulary is only looked up in.
 */
import {
  ABSTRACT_HYPERNYMS,
  bundledWordNetSource,
  definitionOf,
  glossOfLine,
  parseDataLine,
  parseIndexLine,
  QUERY_STOPWORDS,
  tokenize,
  type PartOfSpeech,
  type WordNetReader,
} from '@vus/wordnet';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFINITION_NEIGHBOURS_PER_WORD, VOCABULARY_WORD, type Neighbour } from './semantic';

/**
 * A word used by at least this many first-noun-sense definitions is too common to relate words by
 * mention: the 99th percentile of the 24,593 defining words (157), 256 words cut. Counts: person
 * 1,301, fish 399, time 315, man 177 — cut; vehicle 100, space 94, rocket 20 — kept.
 */
export const COMMON_DEFINING_WORD = 150;
/**
 * A definition neighbour's weight: below a WordNet hypernym (0.6) and a word-vector neighbour (at
 * least 0.48), so a moment found only through a definition is `low` (search-quality bench: "space"
 * → the council's parking rule scores 47, low).
 */
export const DEFINITION_WEIGHT = 0.45;

/** Parts of speech a word is read as, in the order that breaks ties. */
const LEMMA_POS: readonly PartOfSpeech[] = ['noun', 'verb', 'adj'];

/** What relatedness needs from WordNet. Base forms are keys with their part of speech (`noun:sardine`, `verb:lift`). */
export interface Definitions {
  /** The word's base form in the part of speech WordNet tagged most senses of (noun on a tie); `?:word` when WordNet has none. */
  lemma(word: string): string;
  /** Base forms of the content words of the definition of the word's first noun sense (empty when the word is not mainly a noun). */
  definitionWords(word: string): ReadonlySet<string>;
  /** The nouns the word's first noun sense is filed under (its hypernyms, and their head words: saltwater fish → fish). */
  kindOf(word: string): ReadonlySet<string>;
  /** Every word of those hypernyms (garden: plot, land, ground, patch). */
  broader(word: string): ReadonlySet<string>;
  /** Whether COMMON_DEFINING_WORD or more first-sense definitions use this base form. */
  isCommon(lemma: string): boolean;
  /** The nouns (lemmas, mainly nouns) whose first-sense definition uses `lemma` and that are filed under it: its kinds. */
  kindsOf(lemma: string): readonly string[];
  /** The nouns whose first-sense definition uses `lemma`; none for a common one. */
  definedWith(lemma: string): readonly string[];
}

/** A stopword or one of WordNet's abstract top words. */
function abstract(lemma: string): boolean {
  const form = lemma.slice(lemma.indexOf(':') + 1);
  return ABSTRACT_HYPERNYMS.has(form) || QUERY_STOPWORDS.has(form);
}

/** Too general to relate words by mention: used by very many definitions, or abstract. */
function tooGeneral(lemma: string, definitions: Definitions): boolean {
  return definitions.isCommon(lemma) || abstract(lemma);
}

const isNoun = (lemma: string) => lemma.startsWith('noun:');

/** Whether the query word's definition uses `lemma`, a noun neither too general nor of its hypernyms. */
function restates(query: string, lemma: string, definitions: Definitions): boolean {
  return (
    isNoun(lemma) &&
    lemma !== definitions.lemma(query) &&
    !tooGeneral(lemma, definitions) &&
    definitions.definitionWords(query).has(lemma) &&
    !definitions.broader(query).has(lemma)
  );
}

/**
 * How `candidate` relates to `query` by definitions: `kindOf` when WordNet files the candidate's
 * first sense directly under the query word and its definition says so (sardine: a saltwater fish,
 * "small fatty fish usually canned"; even a common word like "fish" relates this way, while man
 * does not reach officer, filed under "military man" but defined as "any person in the armed
 * services …"), `defines` when the query word is used in the candidate's definition, `definedBy`
 * when the candidate (a noun) is used in the query word's, and is not a word of its hypernyms (a
 * definition restates its genus — garden: "a plot of ground …"; expandQuery weighs hypernyms
 * itself); undefined when neither, when they are one word, or when the linking word is too
 * general. Pure over `definitions`.
 */
export function definitionRelation(
  query: string,
  candidate: string,
  definitions: Definitions,
): 'kindOf' | 'defines' | 'definedBy' | undefined {
  const [own, other] = [definitions.lemma(query), definitions.lemma(candidate)];
  if (own === other) return undefined;
  const candidateDefinition = definitions.definitionWords(candidate);
  if (!abstract(own) && definitions.kindOf(candidate).has(own) && candidateDefinition.has(own)) return 'kindOf';
  if (!tooGeneral(own, definitions) && candidateDefinition.has(own)) return 'defines';
  if (restates(query, other, definitions)) return 'definedBy';
  return undefined;
}

/** Spellings a noun may have in speech: itself and its regular plurals (sardine → sardines, story → stories). */
function nounSpellings(noun: string): string[] {
  return [noun, `${noun}s`, `${noun}es`, ...(noun.endsWith('y') ? [`${noun.slice(0, -1)}ies`] : [])];
}

/**
 * The words of `vocabulary` related to `word` by definitions (definitionRelation, found through
 * the start-up index rather than word by word): its kinds first, then the nouns whose definition
 * uses it, then the nouns its definition uses, each in WordNet's order; at most
 * DEFINITION_NEIGHBOURS_PER_WORD, each with DEFINITION_WEIGHT as its similarity. A noun is found
 * in the vocabulary as spoken (itself or a regular plural). Pure over `definitions`.
 */
export function definitionNeighbours(
  word: string,
  vocabulary: ReadonlySet<string>,
  definitions: Definitions,
  exclude: ReadonlySet<string> = new Set(),
): Neighbour[] {
  const own = definitions.lemma(word);
  const nouns = [
    ...(abstract(own) ? [] : definitions.kindsOf(own)),
    ...(tooGeneral(own, definitions) ? [] : definitions.definedWith(own)),
    ...[...definitions.definitionWords(word)]
      .filter((lemma) => restates(word, lemma, definitions))
      .map((lemma) => lemma.slice('noun:'.length)),
  ];
  const found: Neighbour[] = [];
  for (const noun of new Set(nouns)) {
    for (const spelling of nounSpellings(noun)) {
      if (found.length >= DEFINITION_NEIGHBOURS_PER_WORD) return found;
      if (spelling === word || exclude.has(spelling) || !vocabulary.has(spelling)) continue;
      if (definitions.lemma(spelling) === `noun:${noun}`) found.push({ word: spelling, similarity: DEFINITION_WEIGHT });
    }
  }
  return found;
}

/** The content words of a definition (the gloss before its first quoted example) as base forms. */
function definitionContent(gloss: string, lemma: (word: string) => string): Set<string> {
  const words = new Set<string>();
  for (const token of tokenize(definitionOf(gloss)))
    if (!QUERY_STOPWORDS.has(token) && VOCABULARY_WORD.test(token)) words.add(lemma(token));
  return words;
}

/** The nouns a synset's words name, and the head word of each collocation: a saltwater fish is a fish, a period of time a period. */
function kindKeys(words: readonly string[]): Set<string> {
  const head = (name: string) => name.split('_of_')[0]?.split('_').at(-1) ?? name;
  return new Set(words.flatMap((word) => [word.toLowerCase(), head(word.toLowerCase())]).map((name) => `noun:${name}`));
}

/** `lemma` of Definitions over a WordNet reader, remembered per word. */
function lemmaReader(wordnet: WordNetReader): (word: string) => string {
  const cache = new Map<string, string>();
  return (word) => {
    let found = cache.get(word);
    if (found === undefined) {
      let best: { key: string; tagged: number } | undefined;
      for (const pos of LEMMA_POS) {
        const form = wordnet.baseForms(word, pos)[0];
        const entry = form === undefined ? undefined : wordnet.indexEntry(form, pos);
        if (entry && (best === undefined || entry.taggedSenseCount > best.tagged))
          best = { key: `${pos}:${entry.lemma}`, tagged: entry.taggedSenseCount };
      }
      found = best?.key ?? `?:${word}`;
      if (cache.size >= 100_000) cache.clear();
      cache.set(word, found);
    }
    return found;
  };
}

/** A copy that holds no reference to the line it was cut from (V8 keeps the parent of a slice or join of 13 characters or more alive). */
const own = (text: string) => (text.length >= 13 ? Buffer.from(text, 'latin1').toString('latin1') : text);

/**
 * Lists of numbers by key, packed: one typed array holds every list, one more where each starts (a
 * typed array per list would cost more in object headers than in numbers).
 */
function packPostings(lists: ReadonlyMap<string, readonly number[]>): (key: string) => number[] {
  const at = new Map<string, number>();
  const starts = new Uint32Array(lists.size + 1);
  const all = new Uint32Array([...lists.values()].reduce((sum, list) => sum + list.length, 0));
  let filled = 0;
  for (const [key, list] of lists) {
    starts[at.size] = filled;
    at.set(key, at.size);
    all.set(list, filled);
    filled += list.length;
  }
  starts[at.size] = filled;
  return (key) => {
    const index = at.get(key);
    return index === undefined ? [] : Array.from(all.subarray(starts[index], starts[index + 1]));
  };
}

/**
 * What the start-up pass finds, in a form JSON keeps: the nouns by number, the defining words too
 * common to relate by, and for each defining word the nouns (numbers) it defines and those of them
 * filed under it. `source` names the data it was found in, so a file from other data is not used.
 */
export interface DefinitionIndex {
  readonly format: typeof DEFINITION_INDEX_FORMAT;
  readonly source: string;
  readonly commonDefiningWord: number;
  readonly nouns: readonly string[];
  readonly common: readonly string[];
  readonly definedWith: readonly (readonly [string, readonly number[]])[];
  readonly kinds: readonly (readonly [string, readonly number[]])[];
}
const DEFINITION_INDEX_FORMAT = 1;

/**
 * The pass over the noun index and data files (the reader's `lines`, a piece per event-loop turn)
 * that finds, for each defining word, the nouns it defines (see the header for the cost).
 */
export async function indexDefinitions(wordnet: WordNetReader, source: string): Promise<DefinitionIndex> {
  // Its cache (every noun of WordNet, 80,000 words) goes with the pass; queries get their own.
  const lemma = lemmaReader(wordnet);
  // The single lower-case words whose first sense each synset is.
  const headwordsAt = new Map<number, string[]>();
  for await (const line of wordnet.lines('index', 'noun')) {
    if (line.length === 0 || line.startsWith(' ')) continue;
    const entry = parseIndexLine(line);
    const offset = entry?.offsets[0];
    if (entry && offset !== undefined && /^[a-z]+$/.test(entry.lemma))
      headwordsAt.set(offset, [...(headwordsAt.get(offset) ?? []), entry.lemma]);
  }
  // A hypernym's words, read once (fish is the hypernym of hundreds of nouns).
  const hypernymWords = new Map<number, readonly string[]>();
  const wordsAt = (offset: number): readonly string[] => {
    let words = hypernymWords.get(offset);
    if (!words) hypernymWords.set(offset, (words = wordnet.synset('noun', offset).words));
    return words;
  };

  const counts = new Map<string, number>();
  const nouns: string[] = [];
  const definedWith = new Map<string, number[]>();
  const kinds = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, noun: number) => {
    const list = map.get(key);
    if (list) list.push(noun);
    else map.set(key, [noun]);
  };
  for await (const line of wordnet.lines('data', 'noun')) {
    const headwords = line.startsWith(' ') ? undefined : headwordsAt.get(Number(line.slice(0, 8)));
    if (!headwords) continue;
    const definition = definitionContent(glossOfLine(line), lemma);
    // Every first-sense definition counts once towards how common its words are, whoever it defines.
    for (const word of definition) counts.set(word, (counts.get(word) ?? 0) + 1);
    const filedUnder = kindKeys(parseDataLine(line).hypernyms.flatMap(wordsAt));
    for (const headword of headwords) {
      if (lemma(headword) !== `noun:${headword}`) continue;
      const noun = nouns.push(headword) - 1;
      for (const word of definition) {
        add(definedWith, word, noun);
        if (filedUnder.has(word)) add(kinds, word, noun);
      }
    }
  }
  const common = [...counts].filter(([, count]) => count >= COMMON_DEFINING_WORD).map(([word]) => word);
  for (const word of common) definedWith.delete(word);
  return {
    format: DEFINITION_INDEX_FORMAT,
    source,
    commonDefiningWord: COMMON_DEFINING_WORD,
    nouns,
    common,
    definedWith: [...definedWith],
    kinds: [...kinds],
  };
}

/** The index if `json` is one found in `source` with today's thresholds; undefined otherwise. */
export function definitionIndexFrom(json: string, source: string): DefinitionIndex | undefined {
  const index = JSON.parse(json) as Partial<DefinitionIndex> | null;
  const usable =
    index?.format === DEFINITION_INDEX_FORMAT &&
    index.source === source &&
    index.commonDefiningWord === COMMON_DEFINING_WORD &&
    Array.isArray(index.nouns) &&
    Array.isArray(index.common) &&
    Array.isArray(index.definedWith) &&
    Array.isArray(index.kinds);
  return usable ? (index as DefinitionIndex) : undefined;
}

/**
 * Definitions over an index and the WordNet reader it was found in. Query words' definitions are
 * read from the reader when asked; `close` forgets them (the reader's files are its owner's to close).
 */
export function definitionsOver(index: DefinitionIndex, wordnet: WordNetReader): Definitions & { close(): void } {
  const lemma = lemmaReader(wordnet);
  const nouns = index.nouns.map(own);
  const common = new Set(index.common.map(own));
  const postings = (lists: DefinitionIndex['definedWith']) => packPostings(new Map(lists.map(([word, list]) => [own(word), list])));
  const [definedWithPacked, kindsPacked] = [postings(index.definedWith), postings(index.kinds)];

  const firstNounSense = (word: string): number | undefined => {
    const key = lemma(word);
    return isNoun(key) ? wordnet.indexEntry(key.slice('noun:'.length), 'noun')?.offsets[0] : undefined;
  };
  // Query words' definitions, read when asked (a few per query) and remembered.
  const read = new Map<string, { definition: ReadonlySet<string>; kindOf: ReadonlySet<string>; broader: ReadonlySet<string> }>();
  const definitionOf = (word: string) => {
    let found = read.get(word);
    if (!found) {
      const offset = firstNounSense(word);
      const hypernyms =
        offset === undefined ? [] : wordnet.synset('noun', offset).hypernyms.flatMap((h) => wordnet.synset('noun', h).words);
      found = {
        definition: offset === undefined ? new Set() : definitionContent(wordnet.gloss('noun', offset), lemma),
        kindOf: kindKeys(hypernyms),
        broader: new Set(hypernyms.flatMap((name) => name.toLowerCase().split('_')).map((part) => `noun:${part}`)),
      };
      if (read.size >= 10_000) read.clear();
      read.set(word, found);
    }
    return found;
  };

  return {
    lemma,
    definitionWords: (word) => definitionOf(word).definition,
    kindOf: (word) => definitionOf(word).kindOf,
    broader: (word) => definitionOf(word).broader,
    isCommon: (key) => common.has(key),
    kindsOf: (key) => kindsPacked(key).map((i) => nouns[i] ?? ''),
    definedWith: (key) => definedWithPacked(key).map((i) => nouns[i] ?? ''),
    close: () => read.clear(),
  };
}

/** An index file and the data it must have been found in. */
export interface PrebuiltDefinitions {
  readonly file: string;
  readonly source: string;
}

/**
 * The bundled WordNet's index as the build writes it (`npm run definitions -w @vus/search-service`),
 * in the package's dist/ (found from src/, as tests run, and from dist/ alike).
 */
export const bundledDefinitions = (): PrebuiltDefinitions => ({
  file: join(__dirname, '..', 'dist', 'wordnet-definitions.json'),
  source: bundledWordNetSource(),
});

/**
 * Definitions of the reader's WordNet: from `prebuilt` when the file is there and was found in the
 * same data (a few ms to read); otherwise from the pass (1.5–2 s of CPU alone, many seconds on two
 * busy cores, which the first query waits for).
 */
export async function loadDefinitions(wordnet: WordNetReader, prebuilt?: PrebuiltDefinitions): Promise<Definitions & { close(): void }> {
  const found =
    prebuilt && existsSync(prebuilt.file) ? definitionIndexFrom(readFileSync(prebuilt.file, 'utf8'), prebuilt.source) : undefined;
  return definitionsOver(found ?? (await indexDefinitions(wordnet, prebuilt?.source ?? 'unnamed')), wordnet);
}
