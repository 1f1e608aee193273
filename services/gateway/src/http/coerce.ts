import { z } from 'zod';

/**
 * Zod pieces for values that arrive as strings from multipart, urlencoded and query strings
 * (API-CONTRACT §2.2): "10" is 10, "True" is true, one value where a list is expected is a list.
 */
/** The first of repeated values: py 0.4 sends some fields twice (API-CONTRACT §2.2). */
export const firstValue = (v: unknown): unknown => (Array.isArray(v) ? (v as unknown[])[0] : v);

export const looseInt = z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.number().int());

export const looseBoolean = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const lower = v.trim().toLowerCase();
  return lower === 'true' || lower === '1' ? true : lower === 'false' || lower === '0' ? false : v;
}, z.boolean());

/** A list from an array, a single value, or a comma-joined string. */
export function looseList<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => {
    if (v === undefined || v === null) return v;
    const values: unknown[] = Array.isArray(v) ? v : [v];
    return values.flatMap((x) =>
      typeof x === 'string'
        ? x
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [x],
    );
  }, z.array(item));
}

/** A JSON object from multipart arrives as a string. */
export function looseJson<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }, schema);
}
