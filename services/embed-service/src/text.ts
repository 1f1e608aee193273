import { ApiError, errors } from '@vus/core';

export type TextTruncate = 'none' | 'start' | 'end';

/**
 * The text cut to `maxTokens` words (a whitespace-separated word counts as one token): `end` keeps
 * the beginning, `start` keeps the end, `none` refuses a longer text with token_limit_exceeded.
 */
export function truncateText(text: string, maxTokens: number, truncate: string): string {
  const mode = truncate === '' ? 'end' : truncate;
  if (mode !== 'none' && mode !== 'start' && mode !== 'end') throw errors.invalid('text_truncate', 'Use none, start or end.');
  const words = text
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0);
  if (words.length === 0) throw errors.invalid('text', 'The text is empty.');
  if (words.length <= maxTokens) return words.join(' ');
  if (mode === 'none')
    throw new ApiError(
      'token_limit_exceeded',
      `The text has ${words.length} tokens; this model takes at most ${maxTokens}. Set text_truncate to start or end to cut it.`,
      { param: 'text' },
    );
  return (mode === 'end' ? words.slice(0, maxTokens) : words.slice(-maxTokens)).join(' ');
}
