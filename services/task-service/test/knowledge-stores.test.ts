import { ApiError } from '@vus/core';
import { enrichmentConfig, enrichmentSchemaProblem, itemAssetType, type SourceAsset } from '../src/knowledge/knowledge-stores';
import { fromProtoEnrichment } from '../src/knowledge/rpc';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.code : 'not an ApiError';
  }
};

describe('enrichmentSchemaProblem', () => {
  it.each([
    ['a described property', { type: 'object', properties: { subject: { type: 'string', description: 'who' } } }, undefined],
    [
      'nested described properties',
      {
        type: 'object',
        properties: {
          shots: {
            type: 'array',
            description: 'shots',
            items: { type: 'object', properties: { a: { type: 'string', description: 'a' } } },
          },
        },
      },
      undefined,
    ],
    [
      'a property without description',
      { type: 'object', properties: { subject: { type: 'string' } } },
      'json_schema.properties.subject needs a description.',
    ],
    ['an unsupported keyword', { type: 'object', properties: {}, anyOf: [] }, 'json_schema: the keyword anyOf is not supported.'],
    [
      'a type array',
      { type: 'object', properties: { a: { type: ['string', 'null'], description: 'a' } } },
      'json_schema.properties.a.type must be one type name (no type arrays, no nullable fields).',
    ],
    [
      'a schema-valued additionalProperties',
      { type: 'object', properties: {}, additionalProperties: {} },
      'json_schema.additionalProperties must be true or false.',
    ],
    [
      'a nested unsupported keyword',
      { type: 'object', properties: { a: { type: 'string', description: 'a', pattern: 'x' } } },
      'json_schema.properties.a: the keyword pattern is not supported.',
    ],
  ])('%s', (_name, schema, problem) => {
    expect(enrichmentSchemaProblem(schema)).toBe(problem);
  });
});

describe('enrichmentConfig', () => {
  const schema = { type: 'object', properties: { s: { type: 'string', description: 's' } } };
  it.each([
    ['none', null, undefined],
    ['a description', { type: 'description', description: 'the mood', jsonSchema: undefined }, undefined],
    ['an empty description', { type: 'description', description: ' ', jsonSchema: undefined }, 'parameter_not_provided'],
    ['a schema', { type: 'json_schema', description: '', jsonSchema: schema }, undefined],
    ['no schema', { type: 'json_schema', description: '', jsonSchema: undefined }, 'parameter_not_provided'],
    ['a string root', { type: 'json_schema', description: '', jsonSchema: { type: 'string', properties: {} } }, 'parameter_invalid'],
    ['another type', { type: 'summary', description: '', jsonSchema: undefined }, 'parameter_invalid'],
  ])('%s', (_name, raw, code) => {
    expect(codeOf(() => enrichmentConfig(raw))).toBe(code);
  });

  it('reads the schema out of its JSON text, refusing what is not JSON', () => {
    expect(fromProtoEnrichment({ type: 'json_schema', description: '', json_schema: JSON.stringify(schema) })?.jsonSchema).toEqual(schema);
    expect(codeOf(() => fromProtoEnrichment({ type: 'json_schema', description: '', json_schema: '{no' }))).toBe('parameter_invalid');
    expect(fromProtoEnrichment(null)).toBeNull();
  });
});

describe('itemAssetType', () => {
  const asset = (status: SourceAsset['status'], fileType: SourceAsset['fileType']): SourceAsset => ({
    id: 'a',
    status,
    fileType,
    filename: 'a.mp4',
    blobKey: null,
  });
  it.each([
    ['a ready video', asset('ready', 'video'), '', 'video'],
    ['a ready image asked as an image', asset('ready', 'image'), 'image', 'image'],
    ['a missing asset', undefined, '', 'resource_not_exist'],
    ['a processing asset', asset('processing', null), '', 'parameter_invalid'],
    ['a failed asset', asset('failed', 'video'), '', 'parameter_invalid'],
    ['an audio asset', asset('ready', 'audio'), '', 'parameter_invalid'],
    ['a video asked as an image', asset('ready', 'video'), 'image', 'parameter_invalid'],
  ])('%s', (_name, source, asked, expected) => {
    let answer: string | undefined;
    const code = codeOf(() => (answer = itemAssetType('a', source, asked)));
    expect(code ?? answer).toBe(expected);
  });
});
