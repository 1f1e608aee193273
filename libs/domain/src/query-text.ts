import { ApiError } from '@vus/core';

/**
 * How long a search query's text may be. The models' limits are 77 tokens (Marengo 2.x,
 * API-CONTRACT §5.8 citing the search docs) and 500 (Marengo 3.0); a model truncates what is over
 * its own, so only what no model served here could take whole is refused. Beyond that, long text
 * costs the search (the lexical tiers plan every word: 1,000 words wedged embedded PGlite) and buys
 * nothing. The gateway checks it at the edge, search-service again.
 */
export const QUERY_TEXT_LIMITS = {
  tokens: 500,
  /** Bounds text the token count cannot see: one huge "word", runs of spaces. A token is rarely 10 characters. */
  characters: 5_000,
};

// Every run of letters or digits and every other visible character is at least one token of a
// CLIP-style tokenizer (byte-level BPE splits words, never joins them), so this count never
// exceeds the model's.
const TOKEN_FLOOR = /[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

/** A lower bound on the tokens a query's text makes. */
export function tokensAtLeast(text: string): number {
  return text.match(TOKEN_FLOOR)?.length ?? 0;
}

/** Refuses query text over QUERY_TEXT_LIMITS with 400 token_limit_exceeded, naming the parameter. */
export function checkQueryText(param: string, text: string): void {
  const { tokens, characters } = QUERY_TEXT_LIMITS;
  if (text.length > characters || tokensAtLeast(text) > tokens) {
    throw new ApiError(
      'token_limit_exceeded',
      `The ${param} parameter is too long: a search query may have at most ${tokens} tokens and ${characters} characters.`,
      { param },
    );
  }
}
