import { ApiError, errors } from '@vus/core';

/**
 * How long a search query's text may be. The models' limits are 77 tokens (Marengo 2.x,
 * API-CONTRACT §5.8 citing the search docs) and 500 (Marengo 3.0); a model truncates what is over
 * its own, so the edge refuses only what no model served here could take whole. Beyond that, long
 * text costs the search (the lexical tiers parse every word) and buys nothing.
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

// U+0000, raw or as the JSON escape a field of JSON text carries (multipart user_metadata, filter):
// PostgreSQL stores no NUL in text or jsonb, so such text fails in the database, not here.
// eslint-disable-next-line no-control-regex -- finding the control character is the point
const NUL = /\u0000|\\u0000/i;

/**
 * The parameter whose text holds NUL (a top-level field of a parsed body, for a value or a key
 * anywhere under it), or undefined. Buffers are file bytes, not text. Iterative: a body may nest
 * deeper than the call stack.
 */
export function paramWithNul(body: unknown): string | undefined {
  if (typeof body === 'string') return NUL.test(body) ? 'body' : undefined;
  if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return undefined;
  for (const [param, top] of Object.entries(body)) {
    if (NUL.test(param)) return param;
    const pending: unknown[] = [top];
    while (pending.length > 0) {
      const value = pending.pop();
      if (typeof value === 'string') {
        if (NUL.test(value)) return param;
      } else if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
        for (const [key, child] of Object.entries(value)) {
          if (NUL.test(key)) return param;
          pending.push(child);
        }
      }
    }
  }
  return undefined;
}

/** 400 parameter_invalid naming the parameter whose text holds NUL (paramWithNul), or undefined. */
export function nulError(body: unknown): ApiError | undefined {
  const param = paramWithNul(body);
  return param === undefined ? undefined : errors.invalid(param, 'Text may not contain the NUL character (U+0000).');
}
