import type { ApiError } from '@vus/core';
import { codeAndMessage } from '../http/errors';
import { unavailableError, type VersionAdapter, type VersionedEndpoint } from './adapter';
import { v1 } from './v1';
import { v11 } from './v1.1';
import { v111, v112 } from './v1.1.1';
import { v12 } from './v1.2';
import { v13 } from './v1.3';

export * from './adapter';
export * from './options';

/**
 * The versions this server serves, each by its adapter (API-CONTRACT §3 and ARCHITECTURE "API
 * versions"). Serving another version is one more module beside these and one line here.
 */
export const ADAPTERS = {
  v1,
  'v1.1': v11,
  'v1.1.1': v111,
  'v1.1.2': v112,
  'v1.2': v12,
  'v1.3': v13,
} as const satisfies Record<string, VersionAdapter>;
export type ApiVersion = keyof typeof ADAPTERS;
export const SERVED_VERSIONS = Object.keys(ADAPTERS) as ApiVersion[];

/** Every version of the Twelve Labs API, oldest first. */
const KNOWN_VERSIONS = ['v1', 'v1.1', 'v1.1.1', 'v1.1.2', 'v1.2', 'v1.3'] as const;

/** Versions that exist in the Twelve Labs API but that this server does not serve yet. */
export const UNSERVED_VERSIONS = KNOWN_VERSIONS.filter((v) => !(SERVED_VERSIONS as readonly string[]).includes(v));

export function adapterFor(version: ApiVersion): VersionAdapter {
  return ADAPTERS[version];
}

/** An error's body in the form of the request's version, if it came in on one. */
export function presentError(version: ApiVersion | undefined, error: ApiError): Record<string, unknown> {
  return version ? adapterFor(version).presentError(error) : codeAndMessage(error);
}

/** Throws the version's error for an endpoint it does not have. */
export function requireEndpoint(version: VersionAdapter, endpoint: VersionedEndpoint): void {
  const unavailable = version.unavailable[endpoint];
  if (unavailable) throw unavailableError(unavailable);
}

/**
 * A lookup in a version's name table that only sees the table's own names (a request's
 * `constructor` or `__proto__` is not a name).
 */
export function named<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}
