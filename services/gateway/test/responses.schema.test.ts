import { errorOf } from '@vus/testing';
import { parseResponsesRequest, RESPONSE_LIMITS, selectionTokens, unknownSelectionToken } from '../src/routes/responses.schema';

const STORE = '6528dde58f9cd95a98cbd075';
const ITEM = '6528dde58f9cd95a98cbd076';
const COLLECTION = '6528dde58f9cd95a98cbd077';
const ask = (extra: Record<string, unknown> = {}) => ({ knowledge_store_id: STORE, input: 'What happens?', ...extra });

describe('parseResponsesRequest', () => {
  it('reads the smallest request: a string is one user message, nothing else asked', () => {
    expect(parseResponsesRequest(ask())).toEqual({
      knowledgeStoreId: STORE,
      input: [{ role: 'user', content: 'What happens?' }],
      sessionId: '',
      instructions: '',
      selections: [],
      textFormat: null,
      includeIntermediate: false,
      stream: false,
      maxOutputTokens: 0,
    });
  });

  it('reads every field the reference and Open Responses give', () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } } };
    const request = parseResponsesRequest({
      knowledge_store_id: STORE,
      input: [
        { type: 'message', role: 'user', content: 'Describe {{sel:0}} and {{sel:1}}.' },
        {
          role: 'assistant',
          content: [
            { type: 'input_text', text: 'It shows' },
            { type: 'input_text', text: 'a garden.' },
          ],
        },
      ],
      session_id: 'sess_0199aa2e-5b3c-7d4e-8f90-123456789abc',
      instructions: 'Be brief.',
      include: ['intermediate_outputs'],
      selections: [
        { kind: 'item', id: ITEM },
        { kind: 'collection', id: COLLECTION },
      ],
      text: { format: { type: 'json_schema', name: 'summary', description: 'A summary.', schema, strict: true } },
      stream: true,
      max_output_tokens: 200,
      temperature: 0.2,
      conversation_option: 'ignored: unknown fields are ignored, as on the other v1.3 routes',
    });
    expect(request).toEqual({
      knowledgeStoreId: STORE,
      input: [
        { role: 'user', content: 'Describe {{sel:0}} and {{sel:1}}.' },
        { role: 'assistant', content: 'It shows\na garden.' },
      ],
      sessionId: 'sess_0199aa2e-5b3c-7d4e-8f90-123456789abc',
      instructions: 'Be brief.',
      selections: [
        { kind: 'item', id: ITEM },
        { kind: 'collection', id: COLLECTION },
      ],
      textFormat: { type: 'json_schema', json_schema: JSON.stringify(schema) },
      includeIntermediate: true,
      stream: true,
      maxOutputTokens: 200,
      temperature: 0.2,
    });
  });

  it('takes null as absent (twelvelabs-js sends a field left undefined as null)', () => {
    const nulls = {
      session_id: null,
      instructions: null,
      include: null,
      selections: null,
      text: null,
      stream: null,
      max_output_tokens: null,
      temperature: null,
    };
    expect(parseResponsesRequest(ask(nulls))).toEqual(parseResponsesRequest(ask()));
    expect(
      parseResponsesRequest(ask({ input: [{ type: null, role: 'user', content: 'q' }], text: { format: null } })).textFormat,
    ).toBeNull();
  });

  it('takes text.format type text as no format', () => {
    expect(parseResponsesRequest(ask({ text: { format: { type: 'text' } } })).textFormat).toBeNull();
  });

  const deep = (levels: number): unknown => (levels === 0 ? { type: 'string' } : { type: 'array', items: deep(levels - 1) });
  const many = <T>(n: number, value: T) => Array.from({ length: n }, () => value);
  const long = (n: number) => 'a'.repeat(n);

  it.each([
    ['no knowledge_store_id', { input: 'q' }, 'parameter_not_provided', 'knowledge_store_id'],
    ['no input', { knowledge_store_id: STORE }, 'parameter_not_provided', 'input'],
    ['a malformed store id (as unknown)', ask({ knowledge_store_id: 'ks_1' }), 'resource_not_exist', 'ks_1'],
    ['input of the wrong type', ask({ input: 42 }), 'parameter_invalid', 'input'],
    ['an empty input list', ask({ input: [] }), 'parameter_invalid', 'input'],
    ['a blank message', ask({ input: '   ' }), 'parameter_invalid', 'input'],
    ['an unknown role', ask({ input: [{ role: 'tool', content: 'x' }] }), 'parameter_invalid', 'input.0.role'],
    [
      'an input item of another type',
      ask({ input: [{ type: 'function_call', role: 'user', content: 'x' }] }),
      'parameter_invalid',
      'input.0.type',
    ],
    [
      'a content part of another type',
      ask({ input: [{ role: 'user', content: [{ type: 'input_image', text: 'x' }] }] }),
      'parameter_invalid',
      'input',
    ],
    ['no user message', ask({ input: [{ role: 'assistant', content: 'x' }] }), 'parameter_invalid', 'input'],
    ['a message over its length', ask({ input: long(RESPONSE_LIMITS.messageCharacters + 1) }), 'parameter_invalid', 'input'],
    [
      'parts adding up past a message’s length',
      ask({ input: [{ role: 'user', content: many(2, { type: 'input_text', text: long(RESPONSE_LIMITS.messageCharacters) }) }] }),
      'parameter_invalid',
      'input.0.content',
    ],
    [
      'too many input items',
      ask({ input: many(RESPONSE_LIMITS.inputItems + 1, { role: 'user', content: 'x' }) }),
      'parameter_invalid',
      'input',
    ],
    [
      'input past its total length',
      ask({ input: many(5, { role: 'user', content: long(RESPONSE_LIMITS.messageCharacters) }) }),
      'parameter_invalid',
      'input',
    ],
    ['instructions past the prompt limit', ask({ instructions: long(20_001) }), 'token_limit_exceeded', 'instructions'],
    ['a {{sel:N}} with no selections', ask({ input: 'Describe {{sel:0}}' }), 'parameter_invalid', 'input'],
    [
      'a {{sel:N}} past the selections',
      ask({ input: [{ role: 'user', content: 'Compare {{sel:0}} with {{sel:1}}' }], selections: [{ kind: 'item', id: ITEM }] }),
      'parameter_invalid',
      'input.0.content',
    ],
    [
      'a huge {{sel:N}}',
      ask({ input: `Describe {{sel:${'9'.repeat(400)}}}`, selections: [{ kind: 'item', id: ITEM }] }),
      'parameter_invalid',
      'input',
    ],
    ['a selection of an unknown kind', ask({ selections: [{ kind: 'index', id: ITEM }] }), 'parameter_invalid', 'selections.0.kind'],
    ['a malformed selection id (as unknown)', ask({ selections: [{ kind: 'collection', id: 'x' }] }), 'resource_not_exist', 'x'],
    [
      'too many selections',
      ask({ selections: many(RESPONSE_LIMITS.selections + 1, { kind: 'item', id: ITEM }) }),
      'parameter_invalid',
      'selections',
    ],
    ['an unknown include', ask({ include: ['reasoning'] }), 'parameter_invalid', 'include.0'],
    ['stream as text', ask({ stream: 'yes' }), 'parameter_invalid', 'stream'],
    ['max_output_tokens 0', ask({ max_output_tokens: 0 }), 'parameter_invalid', 'max_output_tokens'],
    ['max_output_tokens fractional', ask({ max_output_tokens: 1.5 }), 'parameter_invalid', 'max_output_tokens'],
    ['max_output_tokens past int32', ask({ max_output_tokens: 2 ** 31 }), 'parameter_invalid', 'max_output_tokens'],
    ['temperature past 2', ask({ temperature: 3 }), 'parameter_invalid', 'temperature'],
    ['an unknown format type', ask({ text: { format: { type: 'xml' } } }), 'parameter_invalid', 'text.format'],
    [
      'a json_schema without a name',
      ask({ text: { format: { type: 'json_schema', schema: {} } } }),
      'parameter_not_provided',
      'text.format.name',
    ],
    [
      'a json_schema whose schema is a list',
      ask({ text: { format: { type: 'json_schema', name: 'n', schema: [] } } }),
      'parameter_invalid',
      'text.format.schema',
    ],
    [
      'a schema nested past the limit',
      ask({ text: { format: { type: 'json_schema', name: 'n', schema: deep(100) } } }),
      'parameter_invalid',
      'text.format',
    ],
  ])('refuses %s', (_case, body, code, names) => {
    const error = errorOf(() => parseResponsesRequest(body));
    expect(error && error.code).toBe(code);
    expect(error && error.message).toContain(names);
  });
});

describe('{{sel:N}} tokens', () => {
  it.each([
    ['none', 'What happens?', []],
    ['one', 'Describe {{sel:0}}.', ['0']],
    ['several, in order', '{{sel:2}} then {{sel:10}}', ['2', '10']],
    ['spaces inside the braces', '{{ sel:1 }}', ['1']],
    ['not a token', '{{sel:}} {sel:1} {{sel:-1}} {{sel:1a}}', []],
  ])('%s', (_case, text, expected) => {
    expect(selectionTokens(text)).toEqual(expected);
  });

  it.each([
    ['all named', ['{{sel:0}}', '{{sel:1}}'], 2, undefined],
    ['the first past the count', ['fine', 'a {{sel:0}} b {{sel:3}}'], 2, { index: 1, n: '3' }],
    ['none with no selections', ['{{sel:0}}'], 0, { index: 0, n: '0' }],
  ])('%s', (_case, contents, count, expected) => {
    expect(
      unknownSelectionToken(
        contents.map((content) => ({ content })),
        count,
      ),
    ).toEqual(expected);
  });
});
