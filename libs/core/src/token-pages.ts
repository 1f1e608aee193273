/**
 * Result pages by token. A search (or a classification) stores its whole ranked list as a result
 * set; a page token is `<set id>-<page number>` (the form the real API uses), so any page of a live
 * set can be read until the set expires.
 */
import { randomUUID } from 'node:crypto';

const TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([1-9][0-9]{0,5})$/;

export function newResultSetId(): string {
  return randomUUID();
}

export function pageToken(setId: string, page: number): string {
  return `${setId}-${page}`;
}

/** The set and page a token names, or undefined when it is not a token of ours. */
export function parsePageToken(token: string): { setId: string; page: number } | undefined {
  const match = TOKEN.exec(token.trim().toLowerCase());
  if (!match) return undefined;
  return { setId: match[1]!, page: Number(match[2]) };
}

export interface PageSlice<T> {
  items: T[];
  nextPageToken: string;
  prevPageToken: string;
}

/** The tokens of the pages beside page `page` (1-based) of a set of `total` items; empty where there is none. */
export function neighbourTokens(setId: string, page: number, pageLimit: number, total: number): Omit<PageSlice<never>, 'items'> {
  return {
    nextPageToken: page * pageLimit < total ? pageToken(setId, page + 1) : '',
    prevPageToken: page > 1 ? pageToken(setId, page - 1) : '',
  };
}

/** Page `page` (1-based) of a set of `items`; tokens are empty where there is no such page. */
export function slicePage<T>(setId: string, items: readonly T[], page: number, pageLimit: number): PageSlice<T> {
  const start = (page - 1) * pageLimit;
  return { items: items.slice(start, start + pageLimit), ...neighbourTokens(setId, page, pageLimit, items.length) };
}
