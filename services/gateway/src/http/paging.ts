import { LIST_PAGE_BOUNDS, parseInput, resolvePage, type PageRequest } from '@vus/core';
import { z } from 'zod';
import { looseInt } from './coerce';
import { scalar, type RawQuery } from './query';

const pageQuery = z.object({
  page: looseInt.optional(),
  page_limit: looseInt.optional(),
  sort_by: z.enum(['created_at', 'updated_at']).optional(),
  sort_option: z.enum(['asc', 'desc']).optional(),
});

export interface PageQuery extends PageRequest {
  sortBy: 'created_at' | 'updated_at' | undefined;
  sortOption: 'asc' | 'desc' | undefined;
}

/** `page`, `page_limit`, `sort_by`, `sort_option` of a list request (API-CONTRACT §2.3). */
export function parsePageQuery(query: RawQuery): PageQuery {
  const input = parseInput(pageQuery, {
    page: scalar(query, 'page'),
    page_limit: scalar(query, 'page_limit'),
    sort_by: scalar(query, 'sort_by'),
    sort_option: scalar(query, 'sort_option'),
  });
  // Over HTTP an explicit 0 is out of range; only an absent value means "the default".
  const page = resolvePage({ page: input.page, pageLimit: input.page_limit }, LIST_PAGE_BOUNDS, { zeroIsDefault: false });
  return { ...page, sortBy: input.sort_by, sortOption: input.sort_option };
}
