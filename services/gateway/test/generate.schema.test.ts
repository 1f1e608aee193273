/**
 * response_format at the gateway's edge (issue 28 item 11): a schema nested past
 * RESPONSE_SCHEMA_LIMITS.depth is a 400 on response_format, measured before anything walks it
 * recursively (JSON.stringify of a 20,000-level schema threw a RangeError: a 500).
 * Prompts are capped there too, before anything else is read (issue 28 item 9).
 */
import { ApiError, RESPONSE_SCHEMA_LIMITS } from '@vus/core';
import { PROMPT_LIMITS } from '@vus/domain';
import { codeOf } from '@vus/testing';
import { adapterFor } from '../src/versions';
import { parseOpenPrompt, parseSummarize } from '../src/routes/generate.schema';

/** A schema `levels` objects deep, parsed from text (building it as a value and stringifying would overflow). */
const nested = (levels: number): unknown =>
  JSON.parse(`${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`);

const v13 = adapterFor('v1.3');

describe('response_format json_schema at the gateway', () => {
  it.each<[string, (jsonSchema: unknown) => unknown]>([
    [
      '/analyze',
      (json_schema) => parseOpenPrompt(v13, { video_id: 'v', prompt: 'p', response_format: { type: 'json_schema', json_schema } }, true),
    ],
    [
      '/summarize',
      (json_schema) => parseSummarize(v13, { video_id: 'v', type: 'summary', response_format: { type: 'json_schema', json_schema } }),
    ],
  ])('%s: a 20,000-level schema, as an object or as JSON text, is a 400 on response_format', (_route, parse) => {
    for (const schema of [nested(20_000), `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`]) {
      let error: unknown;
      try {
        parse(schema);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'parameter_invalid', details: { param: 'response_format' } });
      expect((error as Error).message).toMatch(/deeper than/);
    }
  });

  it('passes a schema within the depth limit on as JSON text', () => {
    const levels = Math.floor((RESPONSE_SCHEMA_LIMITS.depth - 1) / 2);
    const { request } = parseOpenPrompt(
      v13,
      { video_id: 'v', prompt: 'p', response_format: { type: 'json_schema', json_schema: nested(levels) } },
      true,
    );
    expect(JSON.parse(request.response_format!.json_schema!)).toEqual(nested(levels));
  });
});

describe('prompt limits at the gateway', () => {
  const VIDEO = '6528dde58f9cd95a98cbd075';
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
