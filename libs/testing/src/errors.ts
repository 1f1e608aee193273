import { isApiError } from '@vus/core';

/** What a call threw, as an API client would see it; `false` when it did not throw. */
export interface CaughtError {
  code: string;
  message: string;
}

function caught(error: unknown): CaughtError {
  return isApiError(error) ? { code: error.code, message: error.message } : { code: 'not an ApiError', message: String(error) };
}

/** The ApiError a function throws (or a promise rejects with), for table tests of refusals. */
export function errorOf(run: Promise<unknown>): Promise<CaughtError | false>;
export function errorOf(run: () => unknown): CaughtError | false;
export function errorOf(run: Promise<unknown> | (() => unknown)): Promise<CaughtError | false> | CaughtError | false {
  if (typeof run !== 'function') return run.then(() => false as const, caught);
  try {
    run();
    return false;
  } catch (error) {
    return caught(error);
  }
}

/** Just the code of errorOf. */
export function codeOf(run: Promise<unknown>): Promise<string | false>;
export function codeOf(run: () => unknown): string | false;
export function codeOf(run: Promise<unknown> | (() => unknown)): Promise<string | false> | string | false {
  if (typeof run !== 'function') return errorOf(run).then((e) => e && e.code);
  const error = errorOf(run);
  return error && error.code;
}
