/**
 * response_format at the gateway's edge (issue 28 item 11): a schema nested past
 * RESPONSE_SCHEMA_LIMITS.depth is a 400 on response_format, measured before anything walks it
 * recursively (JSON.stringify of a 20,000-level schema threw a RangeError: a 500).
 */
import { ApiError, RESPONSE_SCHEMA_LIMITS } from '@vus/core';
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
