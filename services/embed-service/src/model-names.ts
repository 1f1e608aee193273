import { errors } from '@vus/core';

/**
 * The embedding model names the API accepts and the size of their vectors. The contract gives the
 * names (API-CONTRACT §4); the sizes are the published ones of the real models: Marengo 2.6 and
 * 2.7 return 1024 values, Marengo 3.0 returns 512. All are served by the bundled concept embedding.
 */
export interface EmbeddingModel {
  readonly name: string;
  readonly dimensions: number;
  /** Longest text in words (the real models count word pieces: 77 for Marengo 2.x). */
  readonly maxTextTokens: number;
}

export const EMBEDDING_MODELS: readonly EmbeddingModel[] = [
  { name: 'Marengo-retrieval-2.6', dimensions: 1024, maxTextTokens: 77 },
  { name: 'Marengo-retrieval-2.7', dimensions: 1024, maxTextTokens: 77 },
  { name: 'marengo3.0', dimensions: 512, maxTextTokens: 500 },
];

export const DEFAULT_EMBEDDING_MODEL = 'Marengo-retrieval-2.7';

/** The model of a request's name (empty: the default); an unknown name is `parameter_invalid` on `param`. */
export function embeddingModel(name: string, param = 'model_name'): EmbeddingModel {
  const wanted = name === '' ? DEFAULT_EMBEDDING_MODEL : name;
  const model = EMBEDDING_MODELS.find((m) => m.name.toLowerCase() === wanted.toLowerCase());
  if (!model)
    throw errors.invalid(
      param,
      `Unknown model ${JSON.stringify(wanted.slice(0, 64))}; use one of ${EMBEDDING_MODELS.map((m) => m.name).join(', ')}.`,
    );
  return model;
}

/**
 * The embedding model that stands for an index's video model (`marengo2.7` → Marengo-retrieval-2.7,
 * `marengo3.0` → marengo3.0); a version with no embedding model of its own gets the default.
 */
export function embeddingModelOfIndex(indexModel: string): EmbeddingModel {
  const version = /^marengo[-\s]?(?:retrieval-)?(\d+\.\d+)$/i.exec(indexModel.trim())?.[1];
  const names = [indexModel, ...(version ? [`marengo${version}`, `Marengo-retrieval-${version}`] : [])].map((n) => n.toLowerCase());
  return EMBEDDING_MODELS.find((m) => names.includes(m.name.toLowerCase())) ?? embeddingModel('');
}
