import { isApiError, listPage, pageInfo, pageOffset, resolvePage, sortAndPaging } from '../src';

describe('resolvePage', () => {
  it.each([
    [{}, { page: 1, pageLimit: 10 }],
    [
      { page: 0, pageLimit: 0 },
      { page: 1, pageLimit: 10 },
    ],
    [
      { page: 3, pageLimit: 50 },
      { page: 3, pageLimit: 50 },
    ],
    [
      { page: 1, pageLimit: 1 },
      { page: 1, pageLimit: 1 },
    ],
  ])('%p resolves to %p', (requested, expected) => {
    expect(resolvePage(requested)).toEqual(expected);
  });

  it.each([
    [{ pageLimit: 51 }, 'page_limit'],
    [{ pageLimit: -1 }, 'page_limit'],
    [{ pageLimit: 2.5 }, 'page_limit'],
    [{ page: -2 }, 'page'],
    [{ page: 1.5 }, 'page'],
    // Past int32 a page number wrapped on the wire: 2^32 + 1 was served as page 1.
    [{ page: 2 ** 31 }, 'page'],
    [{ page: 2 ** 32 + 1 }, 'page'],
    [{ page: Number.MAX_SAFE_INTEGER + 2 }, 'page'],
  ])('%p is rejected naming %s', (requested, param) => {
    try {
      resolvePage(requested);
      throw new Error('expected an error');
    } catch (error) {
      expect(isApiError(error) && error.code).toBe('parameter_invalid');
      expect(isApiError(error) && error.details?.param).toBe(param);
    }
  });

  it('accepts the largest int32 page', () => {
    expect(resolvePage({ page: 2 ** 31 - 1 })).toEqual({ page: 2 ** 31 - 1, pageLimit: 10 });
  });

  it('honours other bounds', () => {
    expect(() => resolvePage({ pageLimit: 80 }, { defaultLimit: 10, maxLimit: 100 })).not.toThrow();
  });
});

describe('pageInfo', () => {
  it.each([
    [1, 10, 0, { page: 1, limit_per_page: 10, total_page: 0, total_results: 0 }],
    [1, 10, 10, { page: 1, limit_per_page: 10, total_page: 1, total_results: 10 }],
    [2, 10, 11, { page: 2, limit_per_page: 10, total_page: 2, total_results: 11 }],
    // Past the end is a valid page with no data, never an error (Fern pagers walk until empty).
    [5, 10, 11, { page: 5, limit_per_page: 10, total_page: 2, total_results: 11 }],
  ])('page %i of %i with %i results', (page, pageLimit, total, expected) => {
    expect(pageInfo({ page, pageLimit }, total)).toEqual(expected);
  });

  it('offsets pages', () => {
    expect(pageOffset({ page: 1, pageLimit: 10 })).toBe(0);
    expect(pageOffset({ page: 3, pageLimit: 25 })).toBe(50);
  });
});

describe('listPage', () => {
  const letters = 'abcdefghijklmnopqrstuvw'.split('');
  const reads: [number, number][] = [];
  const read = async (limit: number, offset: number) => {
    reads.push([limit, offset]);
    return { rows: letters.slice(offset, offset + limit), total: letters.length };
  };
  beforeEach(() => (reads.length = 0));

  it.each([
    [{}, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'], [10, 0], 3],
    [{ page: 3, pageLimit: 10 }, ['u', 'v', 'w'], [10, 20], 3],
    [{ page: 2, pageLimit: 5 }, ['f', 'g', 'h', 'i', 'j'], [5, 5], 5],
    [{ page: 9, pageLimit: 10 }, [], [10, 80], 3],
  ])('%j reads its page and says where it is', async (requested, data, limitAndOffset, totalPages) => {
    const page = await listPage(requested, read);
    expect([page.data, reads, page.pageInfo.total_page, page.pageInfo.total_results]).toEqual([data, [limitAndOffset], totalPages, 23]);
  });

  it('refuses bad paging before reading anything', async () => {
    const error: unknown = await listPage({ pageLimit: 51 }, read).catch((e: unknown) => e);
    expect([isApiError(error) && error.code, reads]).toEqual(['parameter_invalid', []]);
  });
});

describe('sortAndPaging', () => {
  it.each([
    [null, { by: 'created_at', order: 'desc' }, { page: undefined, pageLimit: undefined }],
    [
      { page: 0, page_limit: 0, sort_by: '', sort_option: '' },
      { by: 'created_at', order: 'desc' },
      { page: 0, pageLimit: 0 },
    ],
    [
      { page: 2, page_limit: 5, sort_by: 'updated_at', sort_option: 'asc' },
      { by: 'updated_at', order: 'asc' },
      { page: 2, pageLimit: 5 },
    ],
  ] as const)('%j', (request, sort, paging) => {
    expect(sortAndPaging(request)).toEqual({ sort, paging });
  });
});
