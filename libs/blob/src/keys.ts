import { ApiError } from '@vus/core';

const SEGMENT = '[A-Za-z0-9_-][A-Za-z0-9._-]*';
const KEY = new RegExp(`^${SEGMENT}(/${SEGMENT})*$`);
const PREFIX = new RegExp(`^${SEGMENT}(/${SEGMENT})*/?$`);
export const MAX_KEY_LENGTH = 512;

/**
 * Blob keys are slash-separated segments of letters, digits, `_`, `-` and `.`, none starting with
 * a dot: so `..`, `.tmp`, absolute paths, backslashes and empty segments can never name a file
 * outside the store, whatever the implementation does with them.
 */
export function isValidBlobKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY.test(key);
}

export function assertValidBlobKey(key: string): void {
  if (!isValidBlobKey(key)) throw invalidKey(key);
}

/** A prefix is a key, or a key followed by `/` (a whole "folder"). Never empty. */
export function assertValidBlobPrefix(prefix: string): void {
  if (prefix.length > MAX_KEY_LENGTH || !PREFIX.test(prefix)) throw invalidKey(prefix);
}

function invalidKey(key: string): ApiError {
  return new ApiError(
    'parameter_invalid',
    `Invalid blob key ${JSON.stringify(key.slice(0, 80))}: use slash-separated names of letters, digits, "_", "-" and "." that do not start with a dot.`,
    { param: 'key' },
  );
}
