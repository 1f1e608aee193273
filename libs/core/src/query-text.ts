import { errors } from './errors';

/**
 * The longest search query text accepted: the docs give 77 tokens as Marengo's limit for search
 * queries (API-CONTRACT §5.5), counted here as words (letters and digits), with a character cap for
 * text that is mostly punctuation or one endless word. A query is planned per word (each with its
 * synonyms), so an unbounded text became an unbounded SQL statement: 1,000 words broke embedded
 * PGlite and hit PostgreSQL's stack depth. The gateway checks it at the edge; search-service again.
 */
export const MAX_QUERY_TEXT_WORDS = 77;
export const MAX_QUERY_TEXT_CHARS = 1_000;

/** Throws `parameter_invalid` (on `param`) when `text` is longer than the limits above. */
export function checkQueryText(text: string, param = 'query_text'): void {
  if (text.length > MAX_QUERY_TEXT_CHARS) {
    throw errors.invalid(param, `It is ${text.length} characters long; at most ${MAX_QUERY_TEXT_CHARS} are accepted.`);
  }
  const words = text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  if (words > MAX_QUERY_TEXT_WORDS) {
    throw errors.invalid(param, `It has ${words} words; at most ${MAX_QUERY_TEXT_WORDS} are accepted.`);
  }
}
