import { errors, type ApiError } from '@vus/core';

/** Query text limits are one rule for the edge and search-service alike: @vus/core's. */
export { checkQueryText, QUERY_TEXT_LIMITS, tokensAtLeast } from '@vus/domain';

// U+0000, raw or as the JSON escape a field of JSON text carries (multipart user_metadata, filter):
// PostgreSQL stores no NUL in text or jsonb, so such text fails in the database, not here.
// eslint-disable-next-line no-control-regex -- finding the control character is the point
const NUL = /\u0000|\\u0000/i;

/**
 * The parameter whose text holds NUL (a top-level field of a parsed body, for a value or a key
 * anywhere under it), or undefined. Buffers are file bytes, not text. Iterative: a body may nest
 * deeper than the call stack.
 */
export function paramWithNul(body: unknown): string | undefined {
  if (typeof body === 'string') return NUL.test(body) ? 'body' : undefined;
  if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return undefined;
  for (const [param, top] of Object.entries(body)) {
    if (NUL.test(param)) return param;
    const pending: unknown[] = [top];
    while (pending.length > 0) {
      const value = pending.pop();
      if (typeof value === 'string') {
        if (NUL.test(value)) return param;
      } else if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
        for (const [key, child] of Object.entries(value)) {
          if (NUL.test(key)) return param;
          pending.push(child);
        }
      }
    }
  }
  return undefined;
}

/** 400 parameter_invalid naming the parameter whose text holds NUL (paramWithNul), or undefined. */
export function nulError(body: unknown): ApiError | undefined {
  const param = paramWithNul(body);
  return param === undefined ? undefined : errors.invalid(param, 'Text may not contain the NUL character (U+0000).');
}
