/** Prompts are capped at the gateway's edge, before anything else is read (issue 28 item 9). */
import { PROMPT_LIMITS } from '@vus/core';
import { codeOf } from '@vus/testing';
import { parseOpenPrompt, parseSummarize } from '../src/routes/generate.schema';
import { ADAPTERS } from '../src/versions';

const VIDEO = '6528dde58f9cd95a98cbd075';
const v13 = ADAPTERS['v1.3'];

describe('prompt limits', () => {
  it.each<[string, Record<string, unknown>, string | false]>([
    ['a short prompt', { video_id: VIDEO, prompt: 'What is shown?' }, false],
    ['2000 words', { video_id: VIDEO, prompt: 'word '.repeat(PROMPT_LIMITS.tokens) }, false],
    ['the 900,000-character one-word prompt', { video_id: VIDEO, prompt: 'a'.repeat(900_000) }, 'token_limit_exceeded'],
    ['one word of 2001 tokens', { video_id: VIDEO, prompt: 'a'.repeat(PROMPT_LIMITS.tokens * 4 + 1) }, 'token_limit_exceeded'],
    ['spaces over the character limit', { video_id: VIDEO, prompt: `a${' '.repeat(PROMPT_LIMITS.characters)}b` }, 'token_limit_exceeded'],
    ['a huge prompt is refused before the rest is read', { prompt: 'a'.repeat(900_000), response_format: 7 }, 'token_limit_exceeded'],
    ['a huge prompt as a form field', { video_id: VIDEO, prompt: ['a'.repeat(900_000)] }, 'token_limit_exceeded'],
  ])('/analyze: %s', (_name, body, code) => {
    expect(codeOf(() => parseOpenPrompt(v13, body, true))).toBe(code);
  });

  it('/summarize: its optional prompt has the same limits', () => {
    expect(codeOf(() => parseSummarize(v13, { video_id: VIDEO, type: 'summary', prompt: 'a'.repeat(900_000) }))).toBe(
      'token_limit_exceeded',
    );
    expect(codeOf(() => parseSummarize(v13, { video_id: VIDEO, type: 'summary' }))).toBe(false);
  });
});
