import type { CombinedQuery__Input } from '@vus/grpc/types/search/v1/CombinedQuery';
import { MAX_QUERY_DEPTH, MAX_QUERY_LEAVES, parseCombinedQuery, parseConversationOption } from '../src/routes/combined-query.schema';
import { errorOf } from '@vus/testing';

const leaf = (text: string, search_options: string[] = [], conversation_option = ''): CombinedQuery__Input => ({
  leaf: { text, search_options, conversation_option },
});

describe('parseCombinedQuery', () => {
  it.each<[string, unknown, CombinedQuery__Input]>([
    ['a leaf', { text: 'a dog' }, leaf('a dog')],
    [
      'a leaf, trimmed, with its options',
      { text: ' a dog ', search_options: ['visual', 'logo'], conversation_option: 'semantic' },
      leaf('a dog', ['visual', 'logo'], 'semantic'),
    ],
    ['options as one string', { text: 'a', search_options: 'conversation' }, leaf('a', ['conversation'])],
    ['options comma-joined', { text: 'a', search_options: 'visual,text_in_video' }, leaf('a', ['visual', 'text_in_video'])],
    ['v1 transcription is exact_match', { text: 'a', conversation_option: 'transcription' }, leaf('a', [], 'exact_match')],
    ['nulls are absent', { text: 'a', search_options: null, conversation_option: null, proximity: null }, leaf('a')],
    ['unknown plain keys are ignored', { text: 'a', colour: 'red' }, leaf('a')],
    [
      '$and with proximity',
      { $and: [{ text: 'a' }, { text: 'b' }], proximity: 5 },
      { group: { operator: 'and', operands: [leaf('a'), leaf('b')], proximity: 5 } },
    ],
    ['$or without proximity', { $or: [{ text: 'a' }, { text: 'b' }] }, { group: { operator: 'or', operands: [leaf('a'), leaf('b')] } }],
    [
      'proximity 0 is kept',
      { $then: [{ text: 'a' }, { text: 'b' }], proximity: 0 },
      { group: { operator: 'then', operands: [leaf('a'), leaf('b')], proximity: 0 } },
    ],
    [
      'proximity as a string',
      { $then: [{ text: 'a' }, { text: 'b' }], proximity: '2.5' },
      { group: { operator: 'then', operands: [leaf('a'), leaf('b')], proximity: 2.5 } },
    ],
    ['one operand without proximity', { $or: [{ text: 'a' }] }, { group: { operator: 'or', operands: [leaf('a')] } }],
    ['$not', { $not: { origin: { text: 'a' }, sub: { text: 'b' } } }, { not: { origin: leaf('a'), sub: leaf('b') } }],
    [
      'nested (the v1.2 guide’s shape)',
      {
        $and: [
          { text: 'man', search_options: ['visual'] },
          { $not: { origin: { $or: [{ text: 'car' }, { text: 'bike' }] }, sub: { text: 'red', search_options: 'visual' } } },
        ],
      },
      {
        group: {
          operator: 'and',
          operands: [
            leaf('man', ['visual']),
            { not: { origin: { group: { operator: 'or', operands: [leaf('car'), leaf('bike')] } }, sub: leaf('red', ['visual']) } },
          ],
        },
      },
    ],
  ])('%s', (_name, input, expected) => {
    expect(parseCombinedQuery(input)).toEqual(expected);
  });

  it('leaves out proximity when none is given (proto3 presence)', () => {
    expect('proximity' in parseCombinedQuery({ $and: [{ text: 'a' }, { text: 'b' }] }).group!).toBe(false);
  });

  const deep = (levels: number): unknown => (levels <= 1 ? { text: 'x' } : { $or: [deep(levels - 1)] });
  const many = (count: number) => ({ $or: Array.from({ length: count }, (_, i) => ({ text: `t${i}` })) });

  it('takes trees at the limits', () => {
    expect(() => parseCombinedQuery(deep(MAX_QUERY_DEPTH))).not.toThrow();
    expect(() => parseCombinedQuery(many(MAX_QUERY_LEAVES))).not.toThrow();
  });

  it.each<[string, unknown, string, string]>([
    ['no query', undefined, 'parameter_not_provided', 'The query parameter is required'],
    ['a list', [{ text: 'a' }], 'parameter_invalid', 'The query parameter is invalid. Expected a query object'],
    ['a number', 42, 'parameter_invalid', 'The query parameter is invalid.'],
    ['no text', { search_options: ['visual'] }, 'parameter_not_provided', 'The query.text parameter is required'],
    ['an empty object', {}, 'parameter_not_provided', 'The query.text parameter'],
    [
      'empty text',
      { $and: [{ text: 'a' }, { text: '  ' }] },
      'parameter_invalid',
      'The query.$and[1].text parameter is invalid. It must not be empty.',
    ],
    [
      'text not a string',
      { $or: [{ text: 'a' }, { text: 5 }] },
      'parameter_invalid',
      'The query.$or[1].text parameter is invalid. expected a string',
    ],
    [
      'an unknown option',
      { text: 'a', search_options: ['visual', 'smell'] },
      'parameter_invalid',
      'The query.search_options[1] parameter is invalid.',
    ],
    ['a v1.3 option', { text: 'a', search_options: 'audio' }, 'parameter_invalid', 'query.search_options[0]'],
    [
      'an unknown conversation option',
      { text: 'a', conversation_option: 'fuzzy' },
      'parameter_invalid',
      'The query.conversation_option parameter is invalid.',
    ],
    ['an unknown operator', { $xor: [{ text: 'a' }, { text: 'b' }] }, 'parameter_invalid', 'The query.$xor parameter is invalid.'],
    ['two operators', { $and: [{ text: 'a' }], $or: [{ text: 'b' }] }, 'parameter_invalid', 'one operator per object'],
    ['an operator and a text', { text: 'a', $and: [{ text: 'b' }, { text: 'c' }] }, 'parameter_invalid', 'not both'],
    ['operands not a list', { $and: { text: 'a' } }, 'parameter_invalid', 'The query.$and parameter is invalid. Expected a list'],
    ['no operands', { $then: [] }, 'parameter_invalid', 'The query.$then parameter is invalid.'],
    ['an operand that is a string', { $and: [{ text: 'a' }, 'b'] }, 'parameter_invalid', 'The query.$and[1] parameter is invalid.'],
    ['a null operand', { $and: [{ text: 'a' }, null] }, 'parameter_not_provided', 'The query.$and[1] parameter'],
    [
      'proximity with one operand',
      { $and: [{ text: 'a' }], proximity: 5 },
      'parameter_invalid',
      'Proximity needs at least two subqueries.',
    ],
    [
      'negative proximity',
      { $and: [{ text: 'a' }, { text: 'b' }], proximity: -1 },
      'parameter_invalid',
      'The query.proximity parameter is invalid.',
    ],
    ['proximity not a number', { $or: [{ text: 'a' }, { text: 'b' }], proximity: 'soon' }, 'parameter_invalid', 'query.proximity'],
    ['proximity an empty string', { $or: [{ text: 'a' }, { text: 'b' }], proximity: '' }, 'parameter_invalid', 'query.proximity'],
    ['proximity on a leaf', { text: 'a', proximity: 5 }, 'parameter_invalid', 'Proximity applies to $and, $or and $then.'],
    ['proximity on $not', { $not: { origin: { text: 'a' }, sub: { text: 'b' } }, proximity: 5 }, 'parameter_invalid', 'query.proximity'],
    ['$not without a body', { $not: null }, 'parameter_not_provided', 'The query.$not parameter'],
    ['$not as a list', { $not: [{ text: 'a' }, { text: 'b' }] }, 'parameter_invalid', 'The query.$not parameter is invalid.'],
    ['$not without origin', { $not: { sub: { text: 'b' } } }, 'parameter_not_provided', 'The query.$not.origin parameter'],
    ['$not without sub', { $not: { origin: { text: 'a' } } }, 'parameter_not_provided', 'The query.$not.sub parameter'],
    [
      'an error deep inside',
      { $and: [{ text: 'a' }, { $not: { origin: { text: 'b' }, sub: { $then: [{ text: 'c' }, { text: 'd', search_options: 7 }] } } }] },
      'parameter_invalid',
      'The query.$and[1].$not.sub.$then[1].search_options[0] parameter is invalid.',
    ],
    ['too deep', deep(MAX_QUERY_DEPTH + 1), 'parameter_invalid', `at most ${MAX_QUERY_DEPTH} levels`],
    ['too many leaves', many(MAX_QUERY_LEAVES + 1), 'parameter_invalid', `at most ${MAX_QUERY_LEAVES} subqueries`],
  ])('%s → %s', (_name, input, code, message) => {
    const error = errorOf(() => parseCombinedQuery(input));
    expect(error).toMatchObject({ code });
    expect(error && error.message).toContain(message);
  });

  it('names errors under the path it is given', () => {
    expect(errorOf(() => parseCombinedQuery({ text: '' }, 'body.query'))).toMatchObject({
      message: expect.stringContaining('body.query.text'),
    });
  });
});

describe('parseConversationOption', () => {
  it.each([
    [undefined, ''],
    [null, ''],
    ['semantic', 'semantic'],
    ['exact_match', 'exact_match'],
    ['transcription', 'exact_match'],
  ])('%p → %p', (input, expected) => {
    expect(parseConversationOption(input)).toBe(expected);
  });

  it('rejects others, naming the parameter', () => {
    expect(errorOf(() => parseConversationOption('lexical'))).toMatchObject({
      code: 'parameter_invalid',
      message: expect.stringContaining('conversation_option'),
    });
  });
});
