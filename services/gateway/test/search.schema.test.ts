import { canonicalSearchOptions, parseSearch, parseSearchFilter } from '../src/routes/search.schema';
import { codeOf } from '@vus/testing';
import { ADAPTERS } from '../src/versions';

const INDEX = '6528dde58f9cd95a98cbd075';

describe('canonicalSearchOptions', () => {
  it.each([
    ['v1.2', ['visual', 'conversation'], ['visual', 'conversation']],
    ['v1.2', ['text_in_video', 'logo', 'logo'], ['text_in_video', 'logo']],
    ['v1.3', ['visual'], ['visual', 'text_in_video', 'logo']],
    ['v1.3', ['audio'], ['conversation']],
    ['v1.3', ['transcription', 'audio'], ['conversation']],
  ] as const)('%s %j → %j', (version, options, expected) => {
    expect(canonicalSearchOptions(ADAPTERS[version], options)).toEqual(expected);
  });
  it.each([
    ['v1.2', 'audio'],
    ['v1.2', 'smell'],
    ['v1.3', 'smell'],
  ] as const)('%s refuses %s', (version, option) => {
    expect(codeOf(() => canonicalSearchOptions(ADAPTERS[version], [option]))).toBe('parameter_invalid');
  });
});

describe('parseSearchFilter', () => {
  it.each([
    ['ids', '{"id": ["a", "b"]}', { ids: ['a', 'b'] }],
    ['one id', { id: 'a' }, { ids: ['a'] }],
    ['a number is exact', '{"duration": 10}', { duration: { gte: 10, lte: 10 } }],
    ['a range', '{"width": {"gte": 640, "lt": 1920}}', { width: { gte: 640, lt: 1920 } }],
    ['filename', '{"filename": "a.mp4"}', { filename: 'a.mp4' }],
    [
      'user metadata at the top',
      '{"category": "talk", "views": 5, "live": true}',
      { user_metadata: { category: { string_value: 'talk' }, views: { number_value: 5 }, live: { bool_value: true } } },
    ],
    ['user metadata under its key', { user_metadata: { category: 'talk' } }, { user_metadata: { category: { string_value: 'talk' } } }],
  ])('%s', (_case, raw, expected) => {
    expect(parseSearchFilter(raw)).toMatchObject(expected);
  });
  it('reads a created_at range as timestamps', () => {
    const filter = parseSearchFilter('{"created_at": {"gte": "2024-01-01T00:00:00Z"}}');
    expect(filter.created_at?.gte).toMatchObject({ seconds: Date.parse('2024-01-01T00:00:00Z') / 1000 });
  });
  it.each([
    ['not JSON', '{"duration": '],
    ['an array', '[1, 2]'],
    ['a string', '"talk"'],
    ['a range with an unknown operator', '{"duration": {"over": 3}}'],
    ['a range bound that is not a number', '{"duration": {"gte": "ten"}}'],
    ['a date that is not one', '{"created_at": {"gte": "yesterday"}}'],
    ['an id that is not a string', '{"id": [1]}'],
    ['a metadata value that is an object', '{"category": {"a": 1}}'],
    ['a null metadata value', '{"category": null}'],
  ])('refuses %s with search_filter_invalid', (_case, raw) => {
    expect(codeOf(() => parseSearchFilter(raw))).toBe('search_filter_invalid');
  });
});

describe('parseSearch', () => {
  const base = { index_id: INDEX, search_options: ['visual'], query_text: 'a dog' };
  it('reads multipart strings and defaults', () => {
    expect(
      parseSearch(ADAPTERS['v1.2'], {
        ...base,
        page_limit: '5',
        adjust_confidence_level: '0.7',
        group_by: 'video',
        conversation_option: 'exact_match',
      }),
    ).toMatchObject({
      index_id: INDEX,
      query_text: 'a dog',
      search_options: ['visual'],
      page_limit: 5,
      adjust_confidence_level: 0.7,
      group_by: 'video',
      conversation_option: 'exact_match',
      query_media: null,
      filter: null,
    });
  });
  it('takes v1.2 JSON `query` text and ignores conversation_option on v1.3', () => {
    expect(parseSearch(ADAPTERS['v1.2'], { index_id: INDEX, search_options: ['visual'], query: 'a dog' }).query_text).toBe('a dog');
    expect(parseSearch(ADAPTERS['v1.3'], { ...base, conversation_option: 'exact_match' }).conversation_option).toBe('');
  });
  it('prefers the media URL over a file where one image is taken (v1.2); v1.3 searches both (issue 32 §3)', () => {
    const body = { ...base, query_media_type: 'image', query_media_url: 'https://example.com/a.png', query_media_file: Buffer.from('x') };
    const v12 = parseSearch(ADAPTERS['v1.2'], body);
    expect([v12.query_media, v12.more_query_media]).toEqual([{ media_type: 'image', url: 'https://example.com/a.png' }, []]);
    const v13 = parseSearch(ADAPTERS['v1.3'], body);
    expect([v13.query_media, v13.more_query_media]).toEqual([
      { media_type: 'image', url: 'https://example.com/a.png' },
      [{ media_type: 'image', data: Buffer.from('x') }],
    ]);
  });
  it('takes up to 10 query images on v1.3: URLs, then files, in the order sent', () => {
    const files = Array.from({ length: 8 }, (_, i) => Buffer.from(`image ${i}`));
    const parsed = parseSearch(ADAPTERS['v1.3'], {
      ...base,
      query_media_type: 'image',
      query_media_url: ['https://example.com/a.png', ' https://example.com/b.png '],
      query_media_file: files,
    });
    expect(parsed.query_media).toEqual({ media_type: 'image', url: 'https://example.com/a.png' });
    expect(parsed.more_query_media).toEqual([
      { media_type: 'image', url: 'https://example.com/b.png' },
      ...files.map((data) => ({ media_type: 'image', data })),
    ]);
  });
  it.each([
    [
      '11 images on v1.3',
      'v1.3',
      { query_media_url: 'https://example.com/a.png', query_media_file: Array.from({ length: 10 }, () => Buffer.from('x')) },
    ],
    ['11 URLs on v1.3', 'v1.3', { query_media_url: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.png`) }],
    ['two files on v1.2', 'v1.2', { query_media_file: [Buffer.from('x'), Buffer.from('y')] }],
    ['a text value among the files', 'v1.3', { query_media_file: [Buffer.from('x'), 'not a file'] }],
  ] as const)('refuses %s', (_case, version, extra) => {
    expect(codeOf(() => parseSearch(ADAPTERS[version], { ...base, query_media_type: 'image', ...extra }))).toBe('parameter_invalid');
  });
  it.each([
    ['no index', { search_options: ['visual'], query_text: 'x' }, 'parameter_not_provided'],
    ['a malformed index id', { ...base, index_id: 'nope' }, 'resource_not_exist'],
    ['no query', { index_id: INDEX, search_options: ['visual'] }, 'parameter_not_provided'],
    ['media without its type', { ...base, query_media_url: 'https://example.com/a.png' }, 'parameter_not_provided'],
    [
      'a media type that is not image',
      { ...base, query_media_type: 'video', query_media_url: 'https://example.com/a.mp4' },
      'parameter_invalid',
    ],
    ['page_limit 0', { ...base, page_limit: '0' }, 'parameter_invalid'],
    ['page_limit 51', { ...base, page_limit: 51 }, 'parameter_invalid'],
    ['adjust_confidence_level 2', { ...base, adjust_confidence_level: '2' }, 'parameter_invalid'],
    ['an unknown threshold', { ...base, threshold: 'very' }, 'parameter_invalid'],
    ['a filter that is not JSON', { ...base, filter: '{' }, 'search_filter_invalid'],
  ])('refuses %s', (_case, body, code) => {
    expect(codeOf(() => parseSearch(ADAPTERS['v1.3'], body))).toBe(code);
  });
});

describe('v1.3 transcription_options → the canonical conversation option', () => {
  const body = (extra: Record<string, unknown>) => ({
    index_id: INDEX,
    query_text: 'couple of chemicals',
    search_options: ['transcription'],
    ...extra,
  });
  it.each([
    ['absent: the default (semantic)', {}, ''],
    ['semantic', { transcription_options: 'semantic' }, 'semantic'],
    ['lexical', { transcription_options: ['lexical'] }, 'lexical'],
    ['both: semantic, whose matches include every lexical one', { transcription_options: ['lexical', 'semantic'] }, 'semantic'],
    ['audio stands for speech too', { search_options: ['visual', 'audio'], transcription_options: ['lexical'] }, 'lexical'],
  ])('%s', (_case, extra, expected) => {
    expect(parseSearch(ADAPTERS['v1.3'], body(extra)).conversation_option).toBe(expected);
  });
  it.each([
    ['an unknown option', { transcription_options: ['fuzzy'] }],
    ['options for a search without speech (never dropped silently)', { search_options: ['visual'], transcription_options: ['semantic'] }],
  ])('refuses %s', (_case, extra) => {
    expect(codeOf(() => parseSearch(ADAPTERS['v1.3'], body(extra)))).toBe('parameter_invalid');
  });
  it('is not read by v1.2, which has conversation_option', () => {
    expect(
      parseSearch(ADAPTERS['v1.2'], { ...body({ transcription_options: ['lexical'] }), search_options: ['conversation'] })
        .conversation_option,
    ).toBe('');
  });
});

it('passes entity mentions in query_text through unchanged, for search-service to resolve (issue 32 §1)', () => {
  const queryText = `<@${INDEX}> is walking`;
  expect(parseSearch(ADAPTERS['v1.3'], { index_id: INDEX, search_options: ['visual'], query_text: queryText }).query_text).toBe(queryText);
  expect(parseSearch(ADAPTERS['v1.3'], { index_id: INDEX, search_options: ['visual'], query_text: [`<@${INDEX}>`] }).query_text).toBe(
    `<@${INDEX}>`,
  );
});
