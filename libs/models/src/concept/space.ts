/**
 * Concepts → one fixed-size, L2-normalised vector. The first `WORD_VECTOR_DIMENSIONS` dimensions hold
 * the weighted mean of the concepts' word vectors (a real semantic space: "motorbike" near
 * "motorcycle", "sardines" near "fish"), the others the concepts' WordNet synsets and unknown tokens,
 * feature-hashed (exact meanings: cat and dog are close as words, apart as synsets). Each part is
 * normalised and given its share of the length, so cosine = share·(word similarity) + share·(meaning overlap).
 */
import { kindOf, type ConceptBag } from './concepts';

export interface ConceptSpace {
  /** Length of the output vectors (more than the word vectors' dimensions). */
  readonly dimensions: number;
  /** The unit word vector of a lower-case word with the common direction removed, or undefined. */
  wordVector(word: string): Float32Array | undefined;
  /** Share of the word part in the squared length (the hashed part has the rest). */
  readonly wordShare: number;
}

/** FNV-1a, 32 bits: a stable hash of a concept key (the same in every process and version). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function normaliseInPlace(vector: Float32Array, from: number, to: number, length: number): boolean {
  let norm = 0;
  for (let i = from; i < to; i += 1) norm += (vector[i] as number) ** 2;
  if (norm === 0) return false;
  const scale = length / Math.sqrt(norm);
  for (let i = from; i < to; i += 1) vector[i] = (vector[i] as number) * scale;
  return true;
}

/**
 * The vector of a bag of concepts. An empty bag (nothing recognisable) is the vector of the single
 * token `nothing`, so that every input has a unit vector and empty inputs match each other only.
 */
export function embedConcepts(bag: ConceptBag, space: ConceptSpace, wordDimensions: number): Float32Array {
  const out = new Float32Array(space.dimensions);
  const hashed = space.dimensions - wordDimensions;
  for (const [key, weight] of bag.size === 0 ? new Map([['token:nothing', 1]]) : bag) {
    if (kindOf(key) === 'word') {
      const vector = space.wordVector(key.slice('word:'.length));
      if (vector) for (let d = 0; d < wordDimensions; d += 1) out[d] = (out[d] as number) + weight * (vector[d] as number);
      continue;
    }
    const hash = fnv1a(key);
    const at = wordDimensions + (hash % hashed);
    out[at] = (out[at] as number) + (hash & 0x80000000 ? -weight : weight);
  }
  const hasWords = normaliseInPlace(out, 0, wordDimensions, Math.sqrt(space.wordShare));
  const hasMeanings = normaliseInPlace(out, wordDimensions, space.dimensions, Math.sqrt(1 - space.wordShare));
  if (hasWords !== hasMeanings) normaliseInPlace(out, 0, space.dimensions, 1);
  return out;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
