import { ApiError, errors } from '@vus/core';
import { z } from 'zod';
import { firstValue } from '../http/coerce';

/*
 * Zod pieces of the embedding requests (embed.schema.ts) that answer with the errors these endpoints
 * have always given (the messages and params the SDKs and tests see), not parseInput's "The x
 * parameter is invalid: …": a failure carries its ApiError (refuse), and `named` gives a field the
 * param the API uses for it (an offset inside `audio` is `start_sec`; a media source is
 * `multi_input.media_sources[0]`).
 */

/** Fail a zod check with this API error. */
export function refuse(ctx: z.core.$RefinementCtx, error: ApiError): never {
  ctx.addIssue({ code: 'custom', message: error.message, params: { error } });
  return z.NEVER;
}

function carried(issue: z.core.$ZodIssue): ApiError | undefined {
  const error = issue.code === 'custom' ? (issue.params as { error?: unknown } | undefined)?.error : undefined;
  return error instanceof ApiError ? error : undefined;
}

/** The first failure of a schema as its API error (parameter_invalid at its path when it carries none). */
export function parseFields<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw carried(issue) ?? errors.invalid(issue.path.map(String).join('.'), issue.message);
}

/** Parse inside a transform: the first failure is refused with its API error, or parameter_invalid named `param`. */
export function within<S extends z.ZodType>(ctx: z.core.$RefinementCtx, schema: S, value: unknown, param: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  return refuse(ctx, carried(issue) ?? errors.invalid(param, issue.message));
}

/** A field whose failures are parameter_invalid named `param`, the schema's message the reason. */
export const named = <S extends z.ZodType>(param: string, schema: S) =>
  z
    .unknown()
    .transform((value, ctx): z.output<S> => within(ctx, schema, value, param))
    .prefault(undefined);

/** Absent (undefined) is parameter_not_provided; any other value must pass `schema` (named `param`). */
export const required = <S extends z.ZodType>(param: string, schema: S) =>
  z
    .unknown()
    .superRefine((value, ctx) => void (value === undefined && refuse(ctx, errors.notProvided(param))))
    .pipe(named(param, schema))
    .prefault(undefined);

/** A field read even when its key is absent (this zod refuses an absent key unless the schema says what absence is). */
export const anyValue = z.unknown().prefault(undefined);

const blank = (value: unknown) => value === undefined || value === null || value === '';

/** One text value of a form field (repeated keys: the first; §2.2); a blank one is absent. */
export const formText = z.preprocess(
  (value) => (blank(firstValue(value)) ? undefined : firstValue(value)),
  z.string({ error: 'It must be text.' }).optional(),
);

const SECONDS = 'It must be a number of seconds, 0 or more.';
/** Seconds, 0 or more: a number, or the text of one (a blank field is absent; a blank repeated one is not a number). */
export const seconds = z.preprocess(
  (raw) => {
    if (blank(raw)) return undefined;
    if (typeof raw === 'number') return raw;
    const first = firstValue(raw);
    if (blank(first)) return Number.NaN;
    return typeof first === 'string' ? Number(first) : Array.isArray(raw) ? null : first;
  },
  z
    .number({ error: (issue) => (typeof issue.input === 'number' ? SECONDS : 'It must be text.') })
    .min(0, SECONDS)
    .optional(),
);

/** Parse inside a transform; undefined when it failed (the failure is already refused). */
export function attempt<S extends z.ZodType>(
  ctx: z.core.$RefinementCtx,
  schema: S,
  value: unknown,
  param: string,
): { value: z.output<S> } | undefined {
  const result = schema.safeParse(value);
  if (result.success) return { value: result.data };
  refuse(ctx, carried(result.error.issues[0]!) ?? errors.invalid(param, result.error.issues[0]!.message));
  return undefined;
}

/** An object part of an /embed-v2 body: null or absent is parameter_not_provided. */
export const part = <T extends z.core.$ZodLooseShape>(name: string, shape: T) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (value === undefined || value === null) refuse(ctx, errors.notProvided(name));
      else if (typeof value !== 'object' || Array.isArray(value)) refuse(ctx, errors.invalid(name, 'It must be an object.'));
    })
    .pipe(z.looseObject(shape))
    .prefault(undefined);
