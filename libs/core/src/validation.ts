import type { z } from 'zod';
import { ApiError } from './errors';

/**
 * Parses input with a zod schema at an edge (HTTP route or gRPC handler). A missing required
 * field becomes `parameter_not_provided` naming it; any other problem `parameter_invalid` in the
 * form "field: problem".
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join('.') || 'body';
  const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined;
  if (missing) {
    return fail(new ApiError('parameter_not_provided', `The ${field} parameter is required but was not provided.`, { param: field }));
  }
  return fail(new ApiError('parameter_invalid', `The ${field} parameter is invalid: ${issue.message}`, { param: field }));
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function fail(error: ApiError): never {
  throw error;
}
