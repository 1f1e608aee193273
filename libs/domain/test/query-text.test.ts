/** Query text limits (issue 15, defect 2): one rule for the gateway's edge and search-service. */
import { checkQueryText, QUERY_TEXT_LIMITS, tokensAtLeast } from '@vus/domain';
import { codeOf } from '@vus/testing';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('tokensAtLeast', () => {
  it.each([
    ['', 0],
    ['a dog', 2],
    ['a dog, running!', 5],
    ['  spaced   out  ', 2],
    ['café naïve', 2],
    ['東京タワー', 1],
    ['e\u0301te\u0301', 1], // combining accents stay in their word
    ['12:30', 3],
  ])('%j: %d', (text, expected) => {
    expect(tokensAtLeast(text)).toBe(expected);
  });
});

describe('checkQueryText', () => {
  it.each([
    ['500 words', words(QUERY_TEXT_LIMITS.tokens), false],
    ['501 words', words(QUERY_TEXT_LIMITS.tokens + 1), 'token_limit_exceeded'],
    ['one word over the character limit', 'a'.repeat(QUERY_TEXT_LIMITS.characters + 1), 'token_limit_exceeded'],
    ['spaces over the character limit', `a${' '.repeat(QUERY_TEXT_LIMITS.characters)}b`, 'token_limit_exceeded'],
    ['a million characters', 'word '.repeat(200_000), 'token_limit_exceeded'],
  ])('%s', (_name, text, code) => {
    expect(codeOf(() => checkQueryText('query_text', text))).toBe(code);
  });

  it('names the parameter and the limits', () => {
    expect(() => checkQueryText('query.$and[1].text', words(600))).toThrow(
      /query\.\$and\[1\]\.text parameter is too long.*500 tokens and 5000 characters/,
    );
  });
});
