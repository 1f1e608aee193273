import { isApiError } from '@vus/core';
import { codeOf, errorOf } from '@vus/testing';
import { collectionListPaging } from '../src/knowledge/collection-rpc';
import {
  COLLECTION_LIMITS,
  collectionDescription,
  collectionMetadata,
  collectionName,
  namedIds,
  notItemsError,
  requestedItemIds,
} from '../src/knowledge/collections';

const ID_A = '6528dde58f9cd95a98cbd075';
const ID_B = '6528dde58f9cd95a98cbd076';
const ids = (n: number) => Array.from({ length: n }, (_, i) => i.toString(16).padStart(24, '0'));

describe('collectionName', () => {
  it.each([
    ['a name', 'Q1 highlights', 'Q1 highlights'],
    ['trimmed', '  Q1  ', 'Q1'],
    ['at the cap', 'x'.repeat(COLLECTION_LIMITS.name), 'x'.repeat(COLLECTION_LIMITS.name)],
  ])('%s', (_case, raw, expected) => {
    expect(collectionName(raw)).toBe(expected);
  });

  it.each([
    ['empty', '', 'parameter_not_provided'],
    ['blank', '   ', 'parameter_not_provided'],
    ['over the cap', 'x'.repeat(COLLECTION_LIMITS.name + 1), 'parameter_invalid'],
  ])('refuses %s', (_case, raw, code) => {
    expect(codeOf(() => collectionName(raw))).toBe(code);
  });
});

describe('collectionDescription and collectionMetadata', () => {
  it.each([
    ['an empty description', () => collectionDescription(''), false],
    ['a description at the cap', () => collectionDescription('d'.repeat(COLLECTION_LIMITS.description)), false],
    ['a description over the cap', () => collectionDescription('d'.repeat(COLLECTION_LIMITS.description + 1)), 'parameter_invalid'],
    ['empty metadata', () => collectionMetadata({}), false],
    ['50 keys', () => collectionMetadata(Object.fromEntries(ids(50).map((k) => [k, 'v']))), false],
    ['51 keys', () => collectionMetadata(Object.fromEntries(ids(51).map((k) => [k, 'v']))), 'parameter_invalid'],
    ['an empty key', () => collectionMetadata({ '': 'v' }), 'parameter_invalid'],
    ['a key over the cap', () => collectionMetadata({ ['k'.repeat(COLLECTION_LIMITS.metadataKey + 1)]: 'v' }), 'parameter_invalid'],
    ['a value over the cap', () => collectionMetadata({ group: 'v'.repeat(COLLECTION_LIMITS.metadataValue + 1) }), 'parameter_invalid'],
  ])('%s', (_case, run, code) => {
    expect(codeOf(run)).toBe(code);
  });

  it('names the param and the cap', () => {
    const error = errorOf(() => collectionMetadata(Object.fromEntries(ids(51).map((k) => [k, 'v']))));
    expect(error && error.message).toBe('The metadata parameter is invalid. It holds at most 50 keys.');
  });
});

describe('requestedItemIds', () => {
  it.each([
    ['one id', [ID_A]],
    ['ids in their order', [ID_B, ID_A]],
    ['500 ids (the cap)', ids(500)],
    ['a malformed id (said later as not an item)', ['nope']],
  ])('takes %s', (_case, raw) => {
    expect(requestedItemIds(raw)).toEqual(raw);
  });

  it.each([
    ['no ids', [], 'parameter_not_provided', 'The item_ids parameter is required but was not provided.'],
    ['501 ids', ids(501), 'parameter_invalid', 'The item_ids parameter is invalid. It holds at most 500 ids per request; it has 501.'],
    ['an id twice', [ID_A, ID_B, ID_A], 'parameter_invalid', `The item_ids parameter is invalid. It holds ${ID_A} more than once.`],
    ['an empty id', [ID_A, ''], 'parameter_invalid', 'The item_ids.1 parameter is invalid. It is empty.'],
    ['an overlong id', ['x'.repeat(65)], 'parameter_invalid', 'The item_ids.0 parameter is invalid. An item id is at most 64 characters.'],
  ])('refuses %s', (_case, raw, code, message) => {
    expect(errorOf(() => requestedItemIds(raw))).toEqual({ code, message });
  });
});

describe('namedIds and notItemsError', () => {
  it.each([
    ['one', [ID_A], ID_A],
    ['two', [ID_A, ID_B], `${ID_A}, ${ID_B}`],
    ['ten', ids(10), ids(10).join(', ')],
    ['eleven: ten and a count', ids(11), `${ids(10).join(', ')} and 1 more`],
    ['500', ids(500), `${ids(10).join(', ')} and 490 more`],
  ])('%s', (_case, raw, expected) => {
    expect(namedIds(raw)).toBe(expected);
  });

  it.each([
    [[ID_A], `this one is not: ${ID_A}`],
    [[ID_A, ID_B], `2 are not: ${ID_A}, ${ID_B}`],
  ])('an add with %j answers parameter_invalid naming item_ids', (notItems, phrase) => {
    const error = notItemsError(notItems);
    expect(isApiError(error) && error.code).toBe('parameter_invalid');
    expect(error.details).toEqual({ param: 'item_ids' });
    expect(error.message).toContain(phrase);
    expect(error.message).toContain('Nothing was added.');
  });
});

describe('collectionListPaging', () => {
  const page = (sort_by: string, sort_option: string, p = 0, page_limit = 0) => ({ page: p, page_limit, sort_by, sort_option });
  it.each([
    ['unset: newest created first', null, { by: 'created_at', order: 'desc' }, {}],
    ['proto3 zero values', page('', ''), { by: 'created_at', order: 'desc' }, { page: 0, pageLimit: 0 }],
    ['by name ascending', page('name', 'asc', 2, 5), { by: 'name', order: 'asc' }, { page: 2, pageLimit: 5 }],
    ['by updated_at', page('updated_at', ''), { by: 'updated_at', order: 'desc' }, { page: 0, pageLimit: 0 }],
  ])('%s', (_case, raw, sort, paging) => {
    const result = collectionListPaging(raw);
    expect(result.sort).toEqual(sort);
    expect(result.paging).toMatchObject(paging);
  });

  it.each([
    ['an unknown sort field', page('item_count', '')],
    ['an unknown direction', page('name', 'up')],
    ['a negative page', page('', '', -1)],
  ])('refuses %s', (_case, raw) => {
    expect(codeOf(() => collectionListPaging(raw))).toBe('parameter_invalid');
  });
});
