/** Issue 15, defect 2 (the gateway's part): search query text is capped at the edge. */
import { codeOf } from '@vus/testing';
import { paramWithNul } from '../src/http/text-limits';
import { parseCombinedQuery } from '../src/routes/combined-query.schema';
import { parseSearch } from '../src/routes/search.schema';
import { ADAPTERS } from '../src/versions';

const INDEX = '6528dde58f9cd95a98cbd075';
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('search requests', () => {
  const long = 'word '.repeat(2_000);
  it.each([
    ['v1.3 multipart query_text', 'v1.3', { index_id: INDEX, search_options: ['visual'], query_text: long }],
    ['v1.2 JSON query', 'v1.2', { index_id: INDEX, search_options: ['visual'], query: long }],
  ] as const)('%s over the limit is refused', (_name, version, body) => {
    expect(codeOf(() => parseSearch(ADAPTERS[version], body as Record<string, unknown>))).toBe('token_limit_exceeded');
  });

  it('a query within the limit passes', () => {
    expect(parseSearch(ADAPTERS['v1.3'], { index_id: INDEX, search_options: ['visual'], query_text: words(100) }).query_text).toBe(
      words(100),
    );
  });

  it('every leaf of a combined query is held to the limit', () => {
    expect(codeOf(() => parseCombinedQuery({ $and: [{ text: 'a dog' }, { text: long }] }))).toBe('token_limit_exceeded');
    expect(() => parseCombinedQuery({ $and: [{ text: 'a dog' }, { text: words(100) }] })).not.toThrow();
  });
});

describe('paramWithNul', () => {
  const deep = JSON.parse(`${'{"a":'.repeat(50_000)}"\\u0000"${'}'.repeat(50_000)}`) as unknown;
  it.each([
    ['no NUL', { a: 'text', b: [1, 'x', { c: true }] }, undefined],
    ['a value', { name: 'a\u0000b' }, 'name'],
    ['the JSON escape in a value (JSON text in a field)', { filter: '{"a":"\\u0000"}' }, 'filter'],
    ['the escape in capitals', { filter: '\\U0000' }, 'filter'],
    ['nested', { models: [{ options: ['ok', 'x\u0000'] }] }, 'models'],
    ['a nested key', { metadata: { 'k\u0000': 1 } }, 'metadata'],
    ['a top-level key', { 'k\u0000': 1 }, 'k\u0000'],
    ['file bytes are not text', { query_media_file: Buffer.from([0, 0, 0]) }, undefined],
    ['deeper than the call stack', { deep }, 'deep'],
    ['a bare string', 'a\u0000', 'body'],
  ])('%s', (_name, body, expected) => {
    expect(paramWithNul(body)).toBe(expected);
  });
});
