import { ApiError } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import type { OperationDoc } from '../openapi/operation';

/**
 * Endpoints of the contract whose capability is not built yet: a clear 501 naming it, never
 * fake data and never a bare 404 that would look like a wrong URL.
 */
const NOT_BUILT: readonly [capability: string, path: string][] = [
  // POST /tasks/transfers and /tasks/external-provider are routes/imports.ts; v1.3's integrations are not built.
  ['Task transfers from an integration', '/tasks/transfers/*rest'],
];

const notBuiltDoc =
  (capability: string): OperationDoc =>
  () => ({
    summary: `${capability} (not available on this server yet)`,
    tag: 'Not built',
    responses: { 501: { description: 'not_implemented: this capability is not built yet.' } },
  });

export function notBuiltEndpoints(): Endpoint[] {
  return NOT_BUILT.map(([capability, path]) => ({
    method: 'all',
    path,
    doc: notBuiltDoc(capability),
    handle: () => {
      throw new ApiError('not_implemented', `${capability}: this endpoint is not available on this server yet.`);
    },
  }));
}
