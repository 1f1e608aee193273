import { readQuery } from '../src/http/query';
import { parseListIndexes, parseRenameIndex } from '../src/routes/indexes.schema';
import { codeOf } from '@vus/testing';
import { ADAPTERS } from '../src/versions';

describe('parseRenameIndex', () => {
  it.each([
    [{ index_name: 'new' }, false],
    [{}, 'parameter_not_provided'],
    [{ index_name: 'new', engines: [] }, 'index_engine_cannot_be_changed'],
    [{ index_name: 'new', engine_id: 'marengo2.6' }, 'index_engine_cannot_be_changed'],
    [{ index_name: 'new', index_options: ['visual'] }, 'index_option_cannot_be_changed'],
  ])('%p → %p', (body, code) => {
    expect(codeOf(() => parseRenameIndex(body))).toBe(code);
  });
});

describe('parseListIndexes', () => {
  it('reads paging, sorting, filters and aliases', () => {
    const request = parseListIndexes(
      ADAPTERS['v1.2'],
      readQuery(
        '?page=2&page_limit=5&sort_by=updated_at&sort_option=asc&_id=6528dde58f9cd95a98cbd075&index_name=a&engine_options=visual,logo&engine_family=marengo&createdAt[gte]=2024-01-01T00:00:00Z',
      ),
    );
    expect(request).toMatchObject({
      page: { page: 2, page_limit: 5, sort_by: 'updated_at', sort_option: 'asc' },
      ids: ['6528dde58f9cd95a98cbd075'],
      name: 'a',
      options: ['visual', 'logo'],
      family: 'marengo',
      created_at: { gte: { seconds: Date.parse('2024-01-01T00:00:00Z') / 1000, nanos: 0 } },
      updated_at: null,
    });
  });

  it('maps v1.3 option filters', () => {
    expect(parseListIndexes(ADAPTERS['v1.3'], readQuery('?model_options=audio&model_family=pegasus'))).toMatchObject({
      options: ['conversation'],
      family: 'pegasus',
    });
  });

  it.each([
    ['?page_limit=51', 'parameter_invalid'],
    ['?page_limit=0', 'parameter_invalid'],
    ['?page=0', 'parameter_invalid'],
    ['?page=3', false],
    ['?page_limit=ten', 'parameter_invalid'],
    ['?page=-1', 'parameter_invalid'],
    ['?sort_by=name', 'parameter_invalid'],
    ['?sort_option=up', 'parameter_invalid'],
    ['?engine_family=gpt', 'parameter_invalid'],
    ['?engine_options=smell', 'parameter_invalid'],
    ['?created_at=yesterday', 'parameter_invalid'],
  ])('%s → %p', (search, code) => {
    expect(codeOf(() => parseListIndexes(ADAPTERS['v1.2'], readQuery(search)))).toBe(code);
  });
});
