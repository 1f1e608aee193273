/**
 * @vus/wordnet: the WordNet 3.1 reader (reader.ts) and the query and label expansion built on it
 * (expansion.ts). Expansion imports the reader's types from reader.ts, never from here, so the two
 * modules do not import each other.
 */
export * from './reader';
export * from './expansion';
