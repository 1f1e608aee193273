/* The pure parts of routes/entities*.ts: requests as task-service gets them, and the errors of what is refused (issue 32 §1). */
import { readQuery } from '../src/http/query';
import { processingIds } from '../src/routes/entities';
import {
  parseCreateEntities,
  parseCreateEntity,
  parseEntityAssets,
  parseListByAssetPage,
  parseListCollections,
  parseListEntities,
  parseUpdateEntity,
} from '../src/routes/entities.schema';

const C = '0123456789abcdef01234567';
const E = '89abcdef0123456789abcdef';
const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';

/** The error's code and param, or 'ok'. */
const outcome = (parse: () => unknown): string => {
  try {
    parse();
    return 'ok';
  } catch (error) {
    const e = error as { code?: string; details?: { param?: string } };
    return `${e.code} ${e.details?.param ?? ''}`.trim();
  }
};

describe('list queries', () => {
  it.each([
    ['', { page: 1, page_limit: 10, sort_by: '', sort_option: '' }, ''],
    ['?sort_by=name&sort_option=asc&page=2&page_limit=5', { page: 2, page_limit: 5, sort_by: 'name', sort_option: 'asc' }, ''],
    ['?sort_by=updated_at&name=Team%20A', { page: 1, page_limit: 10, sort_by: 'updated_at', sort_option: '' }, 'Team A'],
  ])('collections %s', (query, page, name) => {
    expect(parseListCollections(readQuery(`/entity-collections${query}`))).toEqual({ page, name });
  });

  it.each([
    ['?sort_by=size', 'parameter_invalid sort_by'],
    ['?sort_option=up', 'parameter_invalid sort_option'],
    ['?page=0', 'parameter_invalid page'],
    ['?page_limit=51', 'parameter_invalid page_limit'],
    ['?page=abc', 'parameter_invalid page'],
    [`?name=${'n'.repeat(2001)}`, 'parameter_invalid name'],
    ['?status=ready', 'ok'],
  ])('collections %s: %s', (query, expected) => {
    expect(outcome(() => parseListCollections(readQuery(`/x${query}`)))).toBe(expected);
  });

  it.each([
    ['?status=processing&name=al', { status: 'processing', name: 'al' }],
    ['', { status: '', name: '' }],
  ])('entities %s', (query, filters) => {
    expect(parseListEntities(C, readQuery(`/x${query}`))).toMatchObject({ entity_collection_id: C, ...filters });
  });

  it('entities: an unknown status is refused', () => {
    expect(outcome(() => parseListEntities(C, readQuery('/x?status=gone')))).toBe('parameter_invalid status');
  });

  it('by asset: only the page is read (the list is newest first)', () => {
    expect(parseListByAssetPage(readQuery('/x?page=3&page_limit=2&sort_by=name'))).toEqual({
      page: 3,
      page_limit: 2,
      sort_by: '',
      sort_option: '',
    });
  });
});

describe('entity bodies', () => {
  it('a new entity: metadata values keep their kinds, defaults are empty', () => {
    expect(parseCreateEntity(C, { name: 'Alice', asset_ids: [A], metadata: { s: 'x', n: 4.5, b: false } })).toEqual({
      entity_collection_id: C,
      entity: {
        name: 'Alice',
        description: '',
        asset_ids: [A],
        metadata: { s: { string_value: 'x' }, n: { number_value: 4.5 }, b: { bool_value: false } },
      },
    });
  });

  it.each([
    [{ asset_ids: [A] }, 'parameter_not_provided name'],
    [{ name: 'x' }, 'parameter_not_provided asset_ids'],
    [{ name: ['x'], asset_ids: [A] }, 'parameter_invalid name'],
    [{ name: 'x', asset_ids: A }, 'parameter_invalid asset_ids'],
    [{ name: 'x', asset_ids: [A, 'AAAAAAAAAAAAAAAAAAAAAAAA'] }, 'parameter_invalid asset_ids.1'],
    [{ name: 'x', asset_ids: [7] }, 'parameter_invalid asset_ids.0'],
    [{ name: 'x', asset_ids: Array(51).fill(A) }, 'parameter_invalid asset_ids'],
    [{ name: 'x', asset_ids: [], metadata: { a: null } }, 'parameter_invalid metadata.a'],
    [{ name: 'x', asset_ids: [], metadata: { a: [1] } }, 'parameter_invalid metadata.a'],
    [
      { name: 'x', asset_ids: [], metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      'parameter_invalid metadata',
    ],
    // Content rules (a blank name, an empty asset list) are task-service's, so a bulk create can report them per entity.
    [{ name: '  ', asset_ids: [] }, 'ok'],
    [null, 'parameter_not_provided name'],
  ])('create %j: %s', (body, expected) => {
    expect(outcome(() => parseCreateEntity(C, body))).toBe(expected);
  });

  it.each([
    [{ entities: [] }, 'parameter_invalid entities'],
    [{ entities: Array(101).fill({ name: 'x', asset_ids: [] }) }, 'parameter_invalid entities'],
    [{ entities: [{ name: 'x', asset_ids: [] }, 'y'] }, 'parameter_invalid entities.1'],
    [{ entities: { name: 'x' } }, 'parameter_invalid entities'],
    [{}, 'parameter_not_provided entities'],
    [{ entities: Array(100).fill({ name: 'x', asset_ids: [A] }) }, 'ok'],
  ])('bulk %#: %s', (body, expected) => {
    expect(outcome(() => parseCreateEntities(C, body))).toBe(expected);
  });

  it('update: metadata given replaces the map; left out, it is kept', () => {
    expect(parseUpdateEntity(C, E, { metadata: {} })).toMatchObject({ replace_metadata: true, metadata: {} });
    expect(parseUpdateEntity(C, E, { name: 'B' })).toMatchObject({ name: 'B', description: undefined, replace_metadata: false });
  });

  it.each([
    [{ asset_ids: [] }, 'parameter_invalid asset_ids'],
    [{}, 'parameter_not_provided asset_ids'],
    [{ asset_ids: [A, A] }, 'ok'],
  ])('assets %j: %s', (body, expected) => {
    expect(outcome(() => parseEntityAssets(C, E, body))).toBe(expected);
  });
});

it('processingIds: the assets still processing, in order', () => {
  expect(
    processingIds([
      { id: 'a', status: 'ready' },
      { id: 'b', status: 'processing' },
      { id: 'c', status: 'failed' },
      { id: 'd', status: 'processing' },
    ]),
  ).toEqual(['b', 'd']);
});
