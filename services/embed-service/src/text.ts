import { ApiError, errors } from '@vus/core';
import { countTokens, truncateToTokens } from '@vus/domain';

export type TextTruncate = 'none' | 'start' | 'end';

/**
 * The text, whitespace folded, cut to `maxTokens` tokens as @vus/core counts them (one long "word"
 * costs by its bytes, as a BPE tokenizer splits it): `end` keeps the beginning, `start` keeps the
 * end, `none` refuses a longer text with token_limit_exceeded.
 */
export function truncateText(text: string, maxTokens: number, truncate: string): string {
  const mode = truncate === '' ? 'end' : truncate;
  if (mode !== 'none' && mode !== 'start' && mode !== 'end') throw errors.invalid('text_truncate', 'Use none, start or end.');
  const words = text
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0);
  if (words.length === 0) throw errors.invalid('text', 'The text is empty.');
  const folded = words.join(' ');
  const tokens = countTokens(folded);
  if (tokens <= maxTokens) return folded;
  if (mode === 'none')
    throw new ApiError(
      'token_limit_exceeded',
      `The text has ${tokens} tokens; this model takes at most ${maxTokens}. Set text_truncate to start or end to cut it.`,
      { param: 'text' },
    );
  return mode === 'end' ? truncateToTokens(folded, maxTokens).text : lastTokens(folded, maxTokens);
}

/**
 * The longest suffix of `text` (whitespace folded) of at most `maxTokens` tokens, never starting
 * inside a character. With single spaces no run is cheaper than a token per 7 characters, so the
 * suffix lies in the last 8 × (maxTokens + 1): a binary search there (the count only falls as the
 * start moves right) costs a few counts of a few kilobytes, whatever the text's length.
 */
function lastTokens(text: string, maxTokens: number): string {
  let low = Math.max(0, text.length - 8 * (maxTokens + 1));
  let high = text.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (countTokens(text.slice(middle)) <= maxTokens) high = middle;
    else low = middle + 1;
  }
  const insidePair = low > 0 && /[\udc00-\udfff]/.test(text.charAt(low)) && /[\ud800-\udbff]/.test(text.charAt(low - 1));
  return text.slice(insidePair ? low + 1 : low).trimStart();
}
