/** The token counter (issue 28 item 9): one estimate for every text metered or capped by tokens. */
import { checkPromptText, countTokens, PROMPT_LIMITS, TokenTally, truncateToTokens } from '@vus/domain';
import { codeOf } from '@vus/testing';

const PROSE =
  'The chef slices fresh tomatoes and garlic, then stirs them into a pan of olive oil while the pasta boils. ' +
  'Afterwards, she tastes the sauce, adds a pinch of salt, and explains why patience matters when cooking at home.';

describe('countTokens', () => {
  it.each<[string, string, number]>([
    ['nothing', '', 0],
    ['short words and punctuation', 'Hello, world!', 4],
    ['a contraction, digits and a colon', "It's 10:30 now.", 8],
    ['a lone space is free, other whitespace one per 16', '  spaced   words  ', 5],
    ['a blank line', 'one\n\ntwo', 3],
    ['64 spaces', ' '.repeat(64), 4],
    ['a 6-letter word', 'PASTAS', 1],
    ['a long word by its bytes (quarter each)', 'internationally', 4],
    ['the 900,000-letter one-word answer', 'a'.repeat(900_000), 225_000],
    ['digits by three', '1234567', 3],
    ['a long punctuation run by its bytes', '-'.repeat(40), 10],
    ['accented letters by their bytes', 'café', 2],
    ['Cyrillic by bytes (12 bytes)', 'привет', 6],
    ['CJK by bytes (12 bytes)', '你好世界', 6],
    ['an emoji by bytes (4 bytes)', '😀', 2],
    ['a ZWJ family by bytes (18 bytes)', '👨‍👩‍👧', 9],
  ])('%s', (_name, text, tokens) => expect(countTokens(text)).toBe(tokens));

  it('English prose is about 1.3 tokens a word (cl100k_base: 1.18 on this text)', () => {
    const perWord = countTokens(PROSE) / PROSE.split(/\s+/).length;
    expect(perWord).toBeGreaterThan(1.1);
    expect(perWord).toBeLessThan(1.5);
  });

  it('is linear: a megabyte of one word or of prose is counted without a quadratic merge loop', () => {
    expect(countTokens('x'.repeat(1 << 20))).toBe(1 << 18);
    expect(countTokens(PROSE.repeat(5000))).toBe(countTokens(PROSE) * 5000);
  });
});

describe('TokenTally', () => {
  it.each(['Hello, world!', 'internationally speaking', '  a\n\n b  ', 'café 😀👍🏽 1234567', 'ab'.repeat(20)])(
    'text added in pieces counts as it does whole, wherever it is split: %j',
    (text) => {
      for (let split = 0; split <= text.length; split += 1) {
        const tally = new TokenTally().add(text.slice(0, split)).add(text.slice(split));
        expect([split, tally.total]).toEqual([split, countTokens(text)]);
      }
    },
  );

  it('a word streamed a few letters at a time costs what it costs whole', () => {
    const tally = new TokenTally();
    for (let i = 0; i < 1000; i += 1) tally.add('abcdef');
    expect(tally.total).toBe(countTokens('abcdef'.repeat(1000)));
    expect(tally.total).toBe(1500);
  });

  it('take() cuts a later piece at the budget, counting what came before', () => {
    const tally = new TokenTally().add('abc');
    expect(tally.take('defghij and more', 2)).toEqual({ text: 'defgh', truncated: true });
    expect(tally.total).toBe(2);
  });
});

describe('truncateToTokens', () => {
  it.each<[string, number, string, boolean]>([
    ['one two three', 2, 'one two', true],
    ['one two three', 3, 'one two three', false],
    ['a, b.', 2, 'a,', true],
    ['anything', 0, '', true],
    ['internationally', 2, 'internat', true],
    ['word\n\nnext', 1, 'word', true],
    ['😀😀', 3, '😀', true],
  ])('truncateToTokens(%j, %d)', (text, max, cut, truncated) => expect(truncateToTokens(text, max)).toEqual({ text: cut, truncated }));

  it('cuts a 900,000-letter word at 4 letters a token', () => {
    const cut = truncateToTokens('a'.repeat(900_000), 4096);
    expect(cut.text.length).toBe(4096 * 4);
    expect(countTokens(cut.text)).toBe(4096);
  });
});

describe('checkPromptText', () => {
  const words = (n: number) => 'word '.repeat(n).trim();
  it.each<[string, string, string | false]>([
    ['2000 words', words(PROMPT_LIMITS.tokens), false],
    ['English prose at the token limit (~9,000 characters)', PROSE.repeat(38), false],
    ['2001 words', words(PROMPT_LIMITS.tokens + 1), 'token_limit_exceeded'],
    ['the 900,000-character one-word prompt', 'a'.repeat(900_000), 'token_limit_exceeded'],
    ['one word over the token limit', 'a'.repeat(PROMPT_LIMITS.tokens * 4 + 1), 'token_limit_exceeded'],
    ['spaces over the character limit', `a${' '.repeat(PROMPT_LIMITS.characters)}b`, 'token_limit_exceeded'],
  ])('%s', (_name, prompt, code) => {
    expect(codeOf(() => checkPromptText('prompt', prompt))).toBe(code);
  });
});
