/**
 * Query and label expansion live in @vus/wordnet (embed-service's concept embedding resolves words
 * the same way); queryExpansion adds the word-vector neighbours search uses beside it.
 */
import type { Logger } from '@vus/core';
import { COCO_LABELS } from '@vus/models';
import { expandQuery, labelTerms, type TermGroup as WordNetTermGroup, type WordNetReader } from '@vus/wordnet';
import { bundledDefinitions, definitionNeighbours, loadDefinitions, type Definitions, type PrebuiltDefinitions } from './definitions';
import { wordVectorNeighbours, type Neighbour } from './semantic';

/**
 * Whether WordNet calls two words different kinds of one thing (car and truck: both motor
 * vehicles; neither is a kind of the other). Word vectors put such siblings close (car–truck 0.82,
 * automobile–bicycle 0.64), but a query for one is not answered by the other; a kind of the word
 * (sardines for fish) or an unrelated neighbour (astronaut for space) is.
 */
export function siblingKinds(a: string, b: string, wordnet: WordNetReader): boolean {
  const [ta, tb] = [labelTerms(a, wordnet), labelTerms(b, wordnet)];
  const kindOf = (broader: readonly string[], word: string) => broader.some((t) => t === word || t.split(' ').includes(word));
  if (kindOf(tb.broader, a) || kindOf(ta.broader, b) || ta.names.includes(b) || tb.names.includes(a)) return false;
  const shared = new Set(ta.broader);
  return tb.broader.some((t) => shared.has(t));
}

/**
 * definitionNeighbours on WordNet. The noun definitions are loaded when the first query or the
 * first ingest asks for them, as the word vectors are read (definitions.ts: about 0.1 s from the
 * build's index of the bundled WordNet, 1.5–2 s of CPU for the pass otherwise; 5.6 MB kept): a
 * service that is started and never used, as in most test suites, does not pay for them. `ready`
 * starts that and settles when it is done or has failed (then queries go on without definition
 * neighbours and the log says why, once).
 */
function wordNetDefinitionNeighbours(
  wordnet: WordNetReader,
  prebuilt: PrebuiltDefinitions | undefined,
  logger: Logger,
  onStop: (close: () => void) => void,
): { defined(word: string, vocabulary: readonly string[], exclude: ReadonlySet<string>): Neighbour[]; ready(): Promise<void> } {
  let definitions: (Definitions & { close(): void }) | undefined;
  let loaded: Promise<void> | undefined;
  const ready = (): Promise<void> =>
    (loaded ??= loadDefinitions(wordnet, prebuilt).then(
      (found) => void (definitions = found),
      (error: unknown) => logger.warn({ err: error }, 'WordNet definitions unavailable: queries are expanded without them'),
    ));
  // A vocabulary (search keeps each index's for a while, the same array) becomes a set once.
  const vocabularies = new WeakMap<readonly string[], ReadonlySet<string>>();
  onStop(() => definitions?.close());
  return {
    ready,
    defined(word, vocabulary, exclude) {
      void ready();
      if (!definitions) return [];
      let packed = vocabularies.get(vocabulary);
      if (!packed) vocabularies.set(vocabulary, (packed = new Set(vocabulary)));
      return definitionNeighbours(word, packed, definitions, exclude).map((n) => ({ ...n, byDefinition: true }));
    },
  };
}

/**
 * A query's expansion as search uses it: WordNet's (expandQuery), and among the index's words, the
 * word-vector neighbours and the definition neighbours that are not sibling kinds.
 */
/** Term groups kept (1–2 KB each): the distinct words and collocations of recent queries. */
const MAX_TERM_GROUPS = 10_000;

export function queryExpansion(
  wordnet: WordNetReader,
  logger: Logger,
  onStop: (close: () => void) => void,
  prebuilt: PrebuiltDefinitions | undefined = bundledDefinitions(),
) {
  const vectors = wordVectorNeighbours(logger, onStop);
  const definitions = wordNetDefinitionNeighbours(wordnet, prebuilt, logger, onStop);
  // WordNet's answer for a pair never changes: a query word asked again costs no lookups.
  const siblings = new Map<string, boolean>();
  const isSibling = (a: string, b: string): boolean => {
    const key = `${a}\n${b}`;
    let answer = siblings.get(key);
    if (answer === undefined) {
      if (siblings.size >= 50_000) siblings.clear();
      siblings.set(key, (answer = siblingKinds(a, b, wordnet)));
    }
    return answer;
  };
  const neighboursOf = (word: string, vocabulary: readonly string[], exclude: ReadonlySet<string>): Neighbour[] => {
    const byVectors = vectors.nearest(word, vocabulary, exclude).filter((n) => !isSibling(word, n.word));
    const taken = new Set([...exclude, ...byVectors.map((n) => n.word)]);
    return [...byVectors, ...definitions.defined(word, vocabulary, taken).filter((n) => !isSibling(word, n.word))];
  };
  // Once both are loaded, a word's neighbours in a vocabulary (search keeps each index's for a
  // while, the same array) never change: a query word asked again costs one lookup, not a walk
  // of the definitions (issue 31: per term, not per query).
  let loaded = false;
  // Each term's WordNet group, once (issue 31: the walk was ~6 % of a text search's CPU).
  const termGroups = new Map<string, WordNetTermGroup>();
  const answers = new WeakMap<readonly string[], Map<string, Neighbour[]>>();
  return {
    // A kind of a detector class is searched as the class too (soccer player → person): no frame is labelled "soccer player".
    expand: (text: string) => {
      if (termGroups.size >= MAX_TERM_GROUPS) termGroups.clear();
      return expandQuery(text, wordnet, { classes: COCO_LABELS, termGroups });
    },
    neighbours: (word: string, vocabulary: readonly string[], exclude: ReadonlySet<string>): Neighbour[] => {
      if (!loaded) return neighboursOf(word, vocabulary, exclude);
      let known = answers.get(vocabulary);
      if (!known) answers.set(vocabulary, (known = new Map<string, Neighbour[]>()));
      const key = `${word}\n${[...exclude].join('\n')}`;
      let answer = known.get(key);
      if (!answer) {
        if (known.size >= 10_000) known.clear();
        known.set(key, (answer = neighboursOf(word, vocabulary, exclude)));
      }
      return answer;
    },
    neighboursReady: async (): Promise<void> => {
      await Promise.all([vectors.ready(), definitions.ready()]);
      loaded = true;
    },
  };
}
