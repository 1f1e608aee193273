import { randomBytes } from 'node:crypto';
import { errors } from './errors';

/**
 * Resource ids are 24 lowercase hex characters, as in every Twelve Labs response: 4 bytes of
 * seconds since the epoch (so ids sort roughly by creation) followed by 8 random bytes.
 */
export function newId(now: Date = new Date()): string {
  const seconds = Math.floor(now.getTime() / 1000);
  const time = Buffer.alloc(4);
  time.writeUInt32BE(seconds >>> 0);
  return time.toString('hex') + randomBytes(8).toString('hex');
}

const ID_PATTERN = /^[0-9a-f]{24}$/;

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/**
 * An id a request names (a path parameter, a field). A malformed one cannot name anything, so it
 * gets the same answer as an unknown one: `resource_not_exist` for `what`.
 */
export function knownId(what: string, raw: string | string[] | undefined): string {
  const id = String(raw ?? '');
  if (!isId(id)) throw errors.notFound(what, id);
  return id;
}
