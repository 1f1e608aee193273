/** Embedding text is cut or refused at the model's token limit as @vus/core counts tokens (issue 28 item 9). */
import { countTokens } from '@vus/domain';
import { codeOf } from '@vus/testing';
import { truncateText } from '../src/text';

const ONE_WORD = 'a'.repeat(900_000);

describe('truncateText', () => {
  it.each<[string, string, number, string, string]>([
    ['a short text, whitespace folded', '  a  red\n car ', 77, 'end', 'a red car'],
    ['77 words fit 77 tokens', 'word '.repeat(77), 77, 'none', 'word '.repeat(77).trim()],
    ['end keeps the beginning', 'one two three four', 2, 'end', 'one two'],
    ['start keeps the end', 'one two three four', 2, 'start', 'three four'],
    ['a long word is cut inside, 4 letters a token (end)', 'internationally', 2, 'end', 'internat'],
    ['a long word is cut inside, 4 letters a token (start)', 'internationally', 2, 'start', 'tionally'],
  ])('%s', (_name, text, max, mode, expected) => expect(truncateText(text, max, mode)).toBe(expected));

  it.each(['end', 'start'])('a 900,000-character one-word text is cut to the limit (%s)', (mode) => {
    const cut = truncateText(ONE_WORD, 77, mode);
    expect(countTokens(cut)).toBe(77);
    expect(cut.length).toBe(77 * 4);
  });

  it.each<[string, string, string]>([
    ['a 900,000-character one-word text', ONE_WORD, 'token_limit_exceeded'],
    ['100 words', 'word '.repeat(100), 'token_limit_exceeded'],
    ['an empty text', '   ', 'parameter_invalid'],
  ])('refuses %s with text_truncate none', (_name, text, code) => expect(codeOf(() => truncateText(text, 77, 'none'))).toBe(code));
});
