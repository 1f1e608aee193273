import { list, range, readQuery, scalar, timeBounds } from '../src/http/query';

describe('readQuery', () => {
  it('keeps repeated keys and bracketed keys as given', () => {
    const q = readQuery('/v1.2/indexes?a=1&a=2&size[gte]=3&x=');
    expect(q.get('a')).toEqual(['1', '2']);
    expect(q.get('size[gte]')).toEqual(['3']);
    expect(q.get('x')).toEqual(['']);
  });

  it('handles no query and encoded values', () => {
    expect(readQuery('/v1.2/indexes').size).toBe(0);
    expect(readQuery('/x?index_name=a%20b%26c').get('index_name')).toEqual(['a b&c']);
  });
});

describe('list', () => {
  it.each([
    // js 0.1–0.3: comma-joined
    ['?engine_options=visual,conversation', ['visual', 'conversation']],
    // js 0.4, js 1.x, httpx: repeated keys
    ['?engine_options=visual&engine_options=conversation', ['visual', 'conversation']],
    ['?engine_options[]=visual&engine_options[]=logo', ['visual', 'logo']],
    ['?engine_options=visual,&engine_options= logo ', ['visual', 'logo']],
    ['?index_options=visual', ['visual']],
    ['?engine_options=', undefined],
    ['', undefined],
  ])('%s → %p', (search, expected) => {
    expect(list(readQuery(search), 'engine_options', 'index_options')).toEqual(expected);
  });
});

describe('scalar', () => {
  it('takes the first non-empty value of the first name that has one', () => {
    expect(scalar(readQuery('?a=&b=2&b=3'), 'a', 'b')).toBe('2');
    expect(scalar(readQuery('?c=1'), 'a', 'b')).toBeUndefined();
  });
});

describe('range', () => {
  it.each([
    ['?created_at=2024-01-01', { eq: '2024-01-01' }],
    ['?created_at[gte]=2024-01-01&created_at[lte]=2024-02-01', { gte: '2024-01-01', lte: '2024-02-01' }],
    // js 0.1/0.2 send date filters in camelCase (API-CONTRACT §2.3)
    ['?createdAt[gt]=2024-01-01', { gt: '2024-01-01' }],
    ['?createdAt=2024-01-01&created_at[lt]=2024-03-01', { eq: '2024-01-01', lt: '2024-03-01' }],
    ['?updated_at=2024-01-01', undefined],
  ])('%s → %p', (search, expected) => {
    expect(range(readQuery(search), 'created_at', 'createdAt')).toEqual(expected);
  });
});

describe('timeBounds', () => {
  it('reads a bare date as that whole UTC day', () => {
    expect(timeBounds({ eq: '2024-01-31' })).toEqual({
      bounds: { gte: new Date('2024-01-31T00:00:00Z'), lt: new Date('2024-02-01T00:00:00Z') },
    });
  });

  it('reads an instant as that instant', () => {
    const at = new Date('2024-01-31T10:00:00.123Z');
    expect(timeBounds({ eq: at.toISOString() })).toEqual({ bounds: { gte: at, lte: at } });
  });

  it('keeps operators', () => {
    expect(timeBounds({ gt: '2024-01-01T00:00:00Z', lte: '2024-02-01T00:00:00Z' })).toEqual({
      bounds: { gt: new Date('2024-01-01T00:00:00Z'), lte: new Date('2024-02-01T00:00:00Z') },
    });
  });

  it('names a value that is not a date', () => {
    expect(timeBounds({ gte: 'yesterday' })).toEqual({ invalid: 'yesterday' });
  });
});
