import { loadProto } from '@vus/grpc';
import type { CombinedQuery } from '@vus/grpc/types/search/v1/CombinedQuery';
import type { CombinedSearchRequest, CombinedSearchRequest__Input } from '@vus/grpc/types/search/v1/CombinedSearchRequest';
import type { MethodDefinition, ServiceDefinition } from '@grpc/proto-loader';
import {
  MAX_QUERY_DEPTH,
  MAX_QUERY_LEAVES,
  evaluate,
  fromProtoQuery,
  leafKey,
  leavesOf,
  type Leaf,
  type QueryNode,
  type VideoMoments,
} from '../src/combined';
import type { Moment } from '@vus/domain';
import { errorOf } from '@vus/testing';

// Decoded proto objects, as the gRPC handler receives them.
const leaf = (text: string, search_options: string[] = [], conversation_option = ''): CombinedQuery => ({
  node: 'leaf',
  leaf: { text, search_options, conversation_option },
});
const group = (operator: string, operands: CombinedQuery[], proximity?: number): CombinedQuery => ({
  node: 'group',
  group: { operator, operands, ...(proximity === undefined ? {} : { proximity }) },
});
const not = (origin: CombinedQuery | null, sub: CombinedQuery | null): CombinedQuery => ({ node: 'not', not: { origin, sub } });

const GLOBALS = { searchOptions: ['visual'], conversationOption: '' };
const NO_GLOBALS = { searchOptions: [], conversationOption: '' };

// Resolved nodes, for evaluate.
const L = (text: string): Leaf => ({ kind: 'leaf', text, searchOptions: ['visual'], conversationOption: 'semantic' });
const m = (start: number, end: number, score = 1): Moment => ({ start, end, score });

describe('fromProtoQuery', () => {
  it('resolves leaves against the global options; a leaf’s own options win', () => {
    const query = group('and', [leaf(' a man '), leaf('logo', ['logo', 'logo']), leaf('hello', ['conversation'], 'exact_match')], 5);
    expect(fromProtoQuery(query, { searchOptions: ['visual', 'conversation'], conversationOption: 'semantic' })).toEqual({
      kind: 'and',
      proximity: 5,
      operands: [
        { kind: 'leaf', text: 'a man', searchOptions: ['visual', 'conversation'], conversationOption: 'semantic' },
        { kind: 'leaf', text: 'logo', searchOptions: ['logo'], conversationOption: 'semantic' },
        { kind: 'leaf', text: 'hello', searchOptions: ['conversation'], conversationOption: 'exact_match' },
      ],
    });
  });

  it('defaults the conversation option to semantic and reads not', () => {
    expect(fromProtoQuery(not(leaf('a', ['conversation']), leaf('b')), GLOBALS)).toEqual({
      kind: 'not',
      origin: { kind: 'leaf', text: 'a', searchOptions: ['conversation'], conversationOption: 'semantic' },
      sub: { kind: 'leaf', text: 'b', searchOptions: ['visual'], conversationOption: 'semantic' },
    });
  });

  it('accepts a one-operand group without proximity, and proximity 0', () => {
    expect(fromProtoQuery(group('or', [leaf('a')]), GLOBALS)).toEqual({ kind: 'or', operands: [L('a')] });
    expect(fromProtoQuery(group('then', [leaf('a'), leaf('b')], 0), GLOBALS)).toMatchObject({ kind: 'then', proximity: 0 });
  });

  it('reads a node by the field that is set when `node` is missing', () => {
    expect(fromProtoQuery({ leaf: { text: 'a', search_options: [], conversation_option: '' } }, GLOBALS)).toEqual(L('a'));
  });

  const deep = (levels: number): CombinedQuery => (levels <= 1 ? leaf('x') : group('or', [deep(levels - 1)]));
  const many = (count: number) =>
    group(
      'or',
      Array.from({ length: count }, (_, i) => leaf(`t${i}`)),
    );

  it('takes trees at the limits', () => {
    expect(() => fromProtoQuery(deep(MAX_QUERY_DEPTH), GLOBALS)).not.toThrow();
    expect(() => fromProtoQuery(many(MAX_QUERY_LEAVES), GLOBALS)).not.toThrow();
  });

  it.each<[string, CombinedQuery | null, typeof GLOBALS, string, string]>([
    ['no query', null, GLOBALS, 'parameter_not_provided', 'The query parameter'],
    ['an empty node', {}, GLOBALS, 'parameter_not_provided', 'The query parameter'],
    [
      'two kinds at once',
      { leaf: { text: 'a', search_options: [], conversation_option: '' }, not: { origin: leaf('a'), sub: leaf('b') } },
      GLOBALS,
      'parameter_invalid',
      'not several',
    ],
    ['empty text', group('and', [leaf('a'), leaf('  ')]), GLOBALS, 'parameter_not_provided', 'query.$and[1].text'],
    ['no options anywhere', leaf('a'), NO_GLOBALS, 'parameter_not_provided', 'The search_options parameter'],
    [
      'an unknown leaf option',
      group('or', [leaf('a'), leaf('b', ['smell'])]),
      GLOBALS,
      'parameter_invalid',
      'query.$or[1].search_options parameter is invalid. "smell"',
    ],
    [
      'an unknown global option',
      leaf('a'),
      { searchOptions: ['audio'], conversationOption: '' },
      'parameter_invalid',
      'The search_options parameter is invalid. "audio"',
    ],
    ['an unknown conversation option', leaf('a', [], 'transcription'), GLOBALS, 'parameter_invalid', 'query.conversation_option'],
    [
      'an unknown global conversation option',
      leaf('a'),
      { searchOptions: ['visual'], conversationOption: 'fuzzy' },
      'parameter_invalid',
      'The conversation_option parameter',
    ],
    ['an unknown operator', group('xor', [leaf('a'), leaf('b')]), GLOBALS, 'parameter_invalid', '"xor"'],
    ['a group without operands', group('and', []), GLOBALS, 'parameter_invalid', 'query.$and parameter'],
    ['proximity with one operand', group('and', [leaf('a')], 5), GLOBALS, 'parameter_invalid', 'two subqueries'],
    ['negative proximity', group('and', [leaf('a'), leaf('b')], -1), GLOBALS, 'parameter_invalid', 'query.proximity'],
    ['NaN proximity', group('then', [leaf('a'), leaf('b')], Number.NaN), GLOBALS, 'parameter_invalid', 'query.proximity'],
    ['infinite proximity', group('then', [leaf('a'), leaf('b')], Infinity), GLOBALS, 'parameter_invalid', 'query.proximity'],
    ['not without origin', not(null, leaf('b')), GLOBALS, 'parameter_not_provided', 'query.$not.origin'],
    ['not without sub', not(leaf('a'), null), GLOBALS, 'parameter_not_provided', 'query.$not.sub'],
    [
      'an error deep inside',
      not(leaf('a'), group('then', [leaf('b'), leaf('')])),
      GLOBALS,
      'parameter_not_provided',
      'query.$not.sub.$then[1].text',
    ],
    ['too deep', deep(MAX_QUERY_DEPTH + 1), GLOBALS, 'parameter_invalid', `at most ${MAX_QUERY_DEPTH} levels`],
    ['too many leaves', many(MAX_QUERY_LEAVES + 1), GLOBALS, 'parameter_invalid', `at most ${MAX_QUERY_LEAVES} subqueries`],
  ])('%s → %s', (_name, query, globals, code, message) => {
    const error = errorOf(() => fromProtoQuery(query, globals));
    expect(error).toMatchObject({ code });
    expect(error && error.message).toContain(message);
  });

  it('reads the proto as it arrives over gRPC (unset proximity stays unset)', () => {
    const service = loadProto().packageDefinition['vus.search.v1.SearchService'] as ServiceDefinition;
    const method = service['CombinedSearch'] as MethodDefinition<CombinedSearchRequest__Input, unknown, CombinedSearchRequest>;
    const request: CombinedSearchRequest__Input = {
      index_id: 'i',
      search_options: ['visual'],
      query: {
        group: {
          operator: 'then',
          operands: [
            { group: { operator: 'and', operands: [{ leaf: { text: 'a' } }, { leaf: { text: 'b' } }] } },
            { not: { origin: { leaf: { text: 'c', search_options: ['logo'] } }, sub: { leaf: { text: 'd' } } } },
          ],
          proximity: 0,
        },
      },
    };
    const decoded = method.requestDeserialize(method.requestSerialize(request));
    expect(
      fromProtoQuery(decoded.query, { searchOptions: decoded.search_options, conversationOption: decoded.conversation_option }),
    ).toEqual({
      kind: 'then',
      proximity: 0,
      operands: [
        { kind: 'and', operands: [L('a'), L('b')] },
        { kind: 'not', origin: { ...L('c'), searchOptions: ['logo'] }, sub: L('d') },
      ],
    });
  });
});

describe('leavesOf', () => {
  it('lists each distinct search once, in order of appearance', () => {
    const tree: QueryNode = {
      kind: 'or',
      operands: [
        L('a'),
        { kind: 'not', origin: { ...L('b'), searchOptions: ['visual', 'logo'] }, sub: L('a') },
        { ...L('b'), searchOptions: ['logo', 'visual'] },
        { ...L('b'), conversationOption: 'exact_match' }, // no conversation searched: the same search
        { ...L('b'), searchOptions: ['conversation'], conversationOption: 'exact_match' },
        { ...L('b'), searchOptions: ['conversation'] },
      ],
    };
    const leaves = leavesOf(tree);
    expect(leaves.map((l) => [l.text, l.searchOptions, l.conversationOption])).toEqual([
      ['a', ['visual'], 'semantic'],
      ['b', ['visual', 'logo'], 'semantic'],
      ['b', ['visual'], 'exact_match'], // the first of the two equal searches
      ['b', ['conversation'], 'exact_match'],
      ['b', ['conversation'], 'semantic'],
    ]);
    expect(new Set(leaves.map((l) => l.key)).size).toBe(5);
    expect(leaves.every((l) => l.key === leafKey(l))).toBe(true);
  });
});

describe('evaluate', () => {
  // Per leaf text: moments per video.
  const RESULTS: Record<string, Record<string, Moment[]>> = {
    dog: { v1: [m(0, 10, 0.9)], v2: [m(0, 5, 0.8)], v3: [m(50, 55, 0.7)] },
    cat: { v1: [m(5, 15, 0.6)], v3: [m(60, 62, 0.5)] },
    car: { v1: [m(20, 25, 0.4)], v2: [m(30, 35, 0.9)], v4: [m(0, 1, 0.3)] },
    nothing: {},
  };
  const lookup = (key: string): VideoMoments | undefined => {
    const text = (JSON.parse(key) as [string])[0];
    const videos = RESULTS[text];
    return videos && new Map(Object.entries(videos));
  };
  const run = (node: QueryNode) => Object.fromEntries(evaluate(node, lookup));

  it.each<[string, QueryNode, Record<string, Moment[]>]>([
    ['a leaf', L('dog'), RESULTS.dog!],
    ['a leaf nobody matched', L('nothing'), {}],
    ['a leaf the search did not return', L('unknown'), {}],
    ['and: the overlap, weaker score', { kind: 'and', operands: [L('dog'), L('cat')] }, { v1: [m(5, 10, 0.6)] }],
    [
      'and with proximity: both within p, the stretch covering both',
      { kind: 'and', operands: [L('dog'), L('cat')], proximity: 5 },
      { v1: [m(0, 15, 0.6)], v3: [m(50, 62, 0.5)] },
    ],
    ['and of three', { kind: 'and', operands: [L('dog'), L('cat'), L('car')], proximity: 5 }, { v1: [m(0, 25, 0.4)] }],
    [
      'or: everything, best score where they overlap',
      { kind: 'or', operands: [L('dog'), L('cat')] },
      { v1: [m(0, 10, 0.9), m(10, 15, 0.6)], v2: [m(0, 5, 0.8)], v3: [m(50, 55, 0.7), m(60, 62, 0.5)] },
    ],
    [
      'or with proximity fills short gaps',
      { kind: 'or', operands: [L('dog'), L('cat')], proximity: 5 },
      { v1: [m(0, 10, 0.9), m(10, 15, 0.6)], v2: [m(0, 5, 0.8)], v3: [m(50, 55, 0.7), m(55, 62, 0.5)] },
    ],
    [
      'not: origin where sub does not match',
      { kind: 'not', origin: L('dog'), sub: L('cat') },
      { v1: [m(0, 5, 0.9)], v2: [m(0, 5, 0.8)], v3: [m(50, 55, 0.7)] },
    ],
    [
      'not: a fully covered origin leaves the video out',
      { kind: 'not', origin: L('cat'), sub: L('dog') },
      { v1: [m(10, 15, 0.6)], v3: [m(60, 62, 0.5)] },
    ],
    ['then: later in the same video', { kind: 'then', operands: [L('dog'), L('car')] }, { v1: [m(0, 25, 0.4)], v2: [m(0, 35, 0.8)] }],
    ['then: order matters', { kind: 'then', operands: [L('car'), L('dog')] }, {}],
    ['then with proximity', { kind: 'then', operands: [L('dog'), L('car')], proximity: 10 }, { v1: [m(0, 25, 0.4)] }],
    [
      'nested: (dog or car) and not cat',
      { kind: 'not', origin: { kind: 'or', operands: [L('dog'), L('car')] }, sub: L('cat') },
      { v1: [m(0, 5, 0.9), m(20, 25, 0.4)], v2: [m(0, 5, 0.8), m(30, 35, 0.9)], v3: [m(50, 55, 0.7)], v4: [m(0, 1, 0.3)] },
    ],
    [
      'nested: (dog then car) and cat',
      { kind: 'and', operands: [{ kind: 'then', operands: [L('dog'), L('car')] }, L('cat')] },
      { v1: [m(5, 15, 0.4)] },
    ],
    ['and with nothing', { kind: 'and', operands: [L('dog'), L('nothing')] }, {}],
    ['or with nothing', { kind: 'or', operands: [L('car'), L('nothing')] }, RESULTS.car!],
  ])('%s', (_name, node, expected) => {
    expect(run(node)).toEqual(expected);
  });

  it('normalises what the searches return', () => {
    const messy = (): VideoMoments => new Map([['v', [m(4, 8, 0.5), m(0, 5, 0.5), m(9, 9, 1)]]]);
    expect(Object.fromEntries(evaluate(L('x'), messy))).toEqual({ v: [m(0, 8, 0.5)] });
  });
});
