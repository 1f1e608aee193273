/**
 * @vus/wordnet: the WordNet 3.1 reader (reader.ts: the dictionary's files, its entries, synsets and
 * definitions), the project's words (lexicon.ts: tokenizer and stopwords, used by search,
 * classification and analysis) and the search policy built on both (expansion.ts: query and label
 * expansion, its weights and curated label senses). Modules import each other directly, never
 * through this index, so none of them imports another in a circle.
 */
export * from './reader';
export * from './lexicon';
export * from './expansion';
