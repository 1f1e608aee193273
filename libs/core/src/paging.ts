import { z } from 'zod';
import { errors } from './errors';

export interface PageRequest {
  page: number;
  pageLimit: number;
}

export interface PageInfo {
  page: number;
  limit_per_page: number;
  total_page: number;
  total_results: number;
}

export interface PageBounds {
  defaultLimit: number;
  maxLimit: number;
}

/** A list filter's bounds on one field (`gte`, `lte`, `gt`, `lt`); an absent one does not narrow. */
export interface Bounds<T> {
  gte?: T | undefined;
  lte?: T | undefined;
  gt?: T | undefined;
  lt?: T | undefined;
}

/**
 * The largest page number: pages travel between services as int32, and a larger one wrapped on the
 * wire (2^32 + 1 arrived as page 1).
 */
export const MAX_PAGE = 2 ** 31 - 1;

/** Page-number lists: 10 per page by default, at most 50 (the limit the v1.3 reference gives). */
export const LIST_PAGE_BOUNDS: PageBounds = { defaultLimit: 10, maxLimit: 50 };

/** A page limit arriving over gRPC (proto3, so 0 means unset): 0 becomes the default, more than the maximum is refused. */
export const protoPageLimitSchema = z
  .number()
  .int()
  .min(0)
  .max(LIST_PAGE_BOUNDS.maxLimit)
  .transform((v) => v || LIST_PAGE_BOUNDS.defaultLimit);

/**
 * Resolves requested paging against bounds. Absent means "default", and so does zero unless
 * `zeroIsDefault` is false (zero is proto3's "unset"; over HTTP an explicit 0 is out of range).
 * Anything out of range is an error naming the parameter, never silently clamped.
 */
export function resolvePage(
  requested: { page?: number | undefined; pageLimit?: number | undefined },
  bounds: PageBounds = LIST_PAGE_BOUNDS,
  { zeroIsDefault = true }: { zeroIsDefault?: boolean } = {},
): PageRequest {
  const orDefault = (value: number | undefined, fallback: number) =>
    value === undefined || (zeroIsDefault && value === 0) ? fallback : value;
  const page = orDefault(requested.page, 1);
  const pageLimit = orDefault(requested.pageLimit, bounds.defaultLimit);
  if (!Number.isInteger(page) || page < 1 || page > MAX_PAGE) {
    throw errors.invalid('page', `It must be an integer between 1 and ${MAX_PAGE}.`);
  }
  if (!Number.isInteger(pageLimit) || pageLimit < 1 || pageLimit > bounds.maxLimit) {
    throw errors.invalid('page_limit', `It must be an integer between 1 and ${bounds.maxLimit}.`);
  }
  return { page, pageLimit };
}

export function pageOffset({ page, pageLimit }: PageRequest): number {
  return (page - 1) * pageLimit;
}

/** Past the last page is not an error: Fern SDKs walk pages until `data` comes back empty. */
export function pageInfo({ page, pageLimit }: PageRequest, totalResults: number): PageInfo {
  return {
    page,
    limit_per_page: pageLimit,
    total_page: Math.ceil(totalResults / pageLimit),
    total_results: totalResults,
  };
}

/**
 * One page of a list: the requested paging resolved (an error names a bad `page`/`page_limit`
 * before anything is read), that page's rows and the total read by `read`, and where the page is.
 */
export async function listPage<T>(
  requested: { page?: number | undefined; pageLimit?: number | undefined },
  read: (limit: number, offset: number) => Promise<{ rows: T[]; total: number }>,
): Promise<{ data: T[]; pageInfo: PageInfo }> {
  const page = resolvePage(requested);
  const { rows, total } = await read(page.pageLimit, pageOffset(page));
  return { data: rows, pageInfo: pageInfo(page, total) };
}

/**
 * A sortable list RPC's `PageRequest` (common.proto) as it arrives: proto3 zero values mean
 * "the default", so 0 and '' pass here and resolvePage applies the defaults.
 */
export const pageRequestSchema = z
  .object({
    page: z.number().int().min(0),
    page_limit: z.number().int().min(0),
    sort_by: z.enum(['', 'created_at', 'updated_at']),
    sort_option: z.enum(['', 'asc', 'desc']),
  })
  .nullable();

/** pageRequestSchema for lists that also sort by name (entities, knowledge store item collections). */
export const namedPageRequestSchema = pageRequestSchema
  .unwrap()
  .extend({ sort_by: z.enum(['', 'created_at', 'updated_at', 'name']) })
  .nullable();

/**
 * A list RPC's PageRequest as the domain's sort and paging: unset sorts the newest created first,
 * and unset paging is resolved to the defaults by listPage.
 */
export function sortAndPaging<By extends string>(
  request: { page: number; page_limit: number; sort_by: '' | By; sort_option: '' | 'asc' | 'desc' } | null,
): {
  sort: { by: By | 'created_at'; order: 'asc' | 'desc' };
  paging: { page?: number | undefined; pageLimit?: number | undefined };
} {
  return {
    sort: { by: request?.sort_by || 'created_at', order: request?.sort_option || 'desc' },
    paging: { page: request?.page, pageLimit: request?.page_limit },
  };
}
