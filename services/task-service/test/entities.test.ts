import { ApiError } from '@vus/core';
import { distinctIds, ENTITY_LIMITS, entityName, referenceAssetProblem, type ReferenceAsset } from '../src/entities/entities';
import { entityListPaging } from '../src/entities/rpc';

const A = '6528dde58f9cd95a98cbd0a1';
const B = '6528dde58f9cd95a98cbd0a2';
const image = (id: string): ReferenceAsset => ({ id, status: 'ready', assetType: 'image' });

describe('referenceAssetProblem', () => {
  it.each<[string, string[], ReferenceAsset[], string | undefined]>([
    ['ready images', [A, B], [image(A), image(B)], undefined],
    ['no asset', [], [], 'parameter_invalid'],
    ["an absent (or another organization's) asset", [A, B], [image(A)], 'resource_not_exist'],
    ['a malformed id', ['nope'], [], 'resource_not_exist'],
    ['a processing image', [A], [{ id: A, status: 'processing', assetType: null }], 'parameter_invalid'],
    ['a failed asset', [A], [{ id: A, status: 'failed', assetType: null }], 'parameter_invalid'],
    ['a video', [A], [{ id: A, status: 'ready', assetType: 'video' }], 'parameter_invalid'],
    ['an audio file', [A], [{ id: A, status: 'ready', assetType: 'audio' }], 'parameter_invalid'],
  ])('%s', (_case, ids, found, code) => {
    expect(referenceAssetProblem(ids, found)?.code).toBe(code);
  });

  it('names the asset that is not an image', () => {
    expect(referenceAssetProblem([A], [{ id: A, status: 'ready', assetType: 'video' }])?.message).toContain(`${A} is a video`);
  });

  it('refuses more assets than an entity may have', () => {
    const ids = Array.from({ length: ENTITY_LIMITS.assets + 1 }, (_, i) => `6528dde58f9cd95a98c${String(i).padStart(5, '0')}`);
    expect(referenceAssetProblem(ids, ids.map(image))?.message).toContain(`at most ${ENTITY_LIMITS.assets}`);
  });
});

describe('entityName', () => {
  // The name as stored, or the error code.
  it.each<[string, string]>([
    ['  Ada  ', 'Ada'],
    ['', 'parameter_not_provided'],
    ['   ', 'parameter_not_provided'],
    ['x'.repeat(ENTITY_LIMITS.name + 1), 'parameter_invalid'],
  ])('%#', (raw, expected) => {
    let result: string;
    try {
      result = entityName('name', raw);
    } catch (error) {
      result = (error as ApiError).code;
    }
    expect(result).toBe(expected);
  });
});

describe('entityListPaging', () => {
  it.each<[unknown, { by: string; order: string }, { page?: number; pageLimit?: number }]>([
    [null, { by: 'created_at', order: 'desc' }, { page: undefined, pageLimit: undefined }],
    [
      { page: 2, page_limit: 5, sort_by: 'name', sort_option: 'asc' },
      { by: 'name', order: 'asc' },
      { page: 2, pageLimit: 5 },
    ],
    [
      { page: 0, page_limit: 0, sort_by: '', sort_option: '' },
      { by: 'created_at', order: 'desc' },
      { page: 0, pageLimit: 0 },
    ],
  ])('%j', (raw, sort, paging) => {
    expect(entityListPaging(raw)).toEqual({ sort, paging });
  });

  it('refuses an unknown sort field', () => {
    expect(() => entityListPaging({ page: 1, page_limit: 1, sort_by: 'status', sort_option: '' })).toThrow(ApiError);
  });
});

it('distinctIds keeps the first occurrence of each id in order', () => {
  expect(distinctIds([B, A, B, A])).toEqual([B, A]);
});
