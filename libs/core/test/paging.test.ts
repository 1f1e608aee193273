import { isApiError, pageInfo, pageOffset, resolvePage } from '../src';

describe('resolvePage', () => {
  it.each([
    [{}, { page: 1, pageLimit: 10 }],
    [{ page: 0, pageLimit: 0 }, { page: 1, pageLimit: 10 }],
    [{ page: 3, pageLimit: 50 }, { page: 3, pageLimit: 50 }],
    [{ page: 1, pageLimit: 1 }, { page: 1, pageLimit: 1 }],
  ])('%p resolves to %p', (requested, expected) => {
    expect(resolvePage(requested)).toEqual(expected);
  });

  it.each([
    [{ pageLimit: 51 }, 'page_limit'],
    [{ pageLimit: -1 }, 'page_limit'],
    [{ pageLimit: 2.5 }, 'page_limit'],
    [{ page: -2 }, 'page'],
    [{ page: 1.5 }, 'page'],
  ])('%p is rejected naming %s', (requested, param) => {
    try {
      resolvePage(requested);
      throw new Error('expected an error');
    } catch (error) {
      expect(isApiError(error) && error.code).toBe('parameter_invalid');
      expect(isApiError(error) && error.details?.param).toBe(param);
    }
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
