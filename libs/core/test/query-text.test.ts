import { checkQueryText, MAX_QUERY_TEXT_CHARS, MAX_QUERY_TEXT_WORDS } from '@vus/core';
import { errorOf } from '@vus/testing';

describe('checkQueryText', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
  it.each([
    ['the longest accepted text', words(MAX_QUERY_TEXT_WORDS), undefined],
    ['one word too many', words(MAX_QUERY_TEXT_WORDS + 1), `It has ${MAX_QUERY_TEXT_WORDS + 1} words`],
    ['punctuation does not count as words', '!'.repeat(MAX_QUERY_TEXT_CHARS), undefined],
    ['one character too many', 'a'.repeat(MAX_QUERY_TEXT_CHARS + 1), `${MAX_QUERY_TEXT_CHARS + 1} characters long`],
    ['words of any script', Array.from({ length: MAX_QUERY_TEXT_WORDS + 1 }, () => '猫').join(' '), 'words'],
  ])('%s', (_name, text, refusal) => {
    const error = errorOf(() => checkQueryText(text));
    if (refusal === undefined) expect(error).toBe(false);
    else expect(error).toEqual({ code: 'parameter_invalid', message: expect.stringContaining(refusal) });
  });

  it('names the parameter it checks', () => {
    expect(errorOf(() => checkQueryText(words(100), 'query.$and[0].text'))).toMatchObject({ message: expect.stringMatching(/^The query\.\$and\[0\]\.text parameter is invalid/) });
  });
});
