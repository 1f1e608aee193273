/**
 * Query strings as the SDKs send them (API-CONTRACT §2.3): arrays as repeated keys, as one
 * comma-joined value or as `key[]`; comparison operators in brackets (`size[gte]=1`); the camelCase
 * date keys of js 0.1/0.2. Pure functions over the raw URL.
 */
export type RawQuery = ReadonlyMap<string, readonly string[]>;

export function readQuery(url: string): RawQuery {
  const query = new Map<string, string[]>();
  const search = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  for (const [key, value] of new URLSearchParams(search)) {
    const list = query.get(key);
    if (list) list.push(value);
    else query.set(key, [value]);
  }
  return query;
}

/** The first non-empty value under any of the names. */
export function scalar(query: RawQuery, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = query.get(name)?.find((v) => v !== '');
    if (value !== undefined) return value;
  }
  return undefined;
}

/** All values under the names (and `name[]`), comma lists split, blanks dropped; undefined if none. */
export function list(query: RawQuery, ...names: string[]): string[] | undefined {
  const values = names
    .flatMap((name) => [...(query.get(name) ?? []), ...(query.get(`${name}[]`) ?? [])])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  return values.length > 0 ? values : undefined;
}

export const RANGE_OPERATORS = ['gte', 'lte', 'gt', 'lt'] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];
export type RawRange = Partial<Record<RangeOperator | 'eq', string>>;

/** `name=v` and `name[op]=v` under any alias; undefined when none was given. */
export function range(query: RawQuery, ...names: string[]): RawRange | undefined {
  const result: RawRange = {};
  const eq = scalar(query, ...names);
  if (eq !== undefined) result.eq = eq;
  for (const op of RANGE_OPERATORS) {
    const value = scalar(query, ...names.map((name) => `${name}[${op}]`));
    if (value !== undefined) result[op] = value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

export interface TimeBounds {
  gte?: Date;
  lte?: Date;
  gt?: Date;
  lt?: Date;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Turns a raw range of dates into bounds. An exact date (`2024-01-31`) means that whole UTC day;
 * an exact instant means that instant. Returns the name of a value that is not a date on failure.
 */
export function timeBounds(raw: RawRange): { bounds: TimeBounds } | { invalid: string } {
  const bounds: TimeBounds = {};
  for (const [op, value] of Object.entries(raw) as [RangeOperator | 'eq', string][]) {
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return { invalid: value };
    if (op !== 'eq') bounds[op] = date;
    else if (DATE_ONLY.test(value)) {
      bounds.gte = date;
      bounds.lt = new Date(date.getTime() + 24 * 3600 * 1000);
    } else {
      bounds.gte = date;
      bounds.lte = date;
    }
  }
  return { bounds };
}
