import { ApiError } from '@vus/core';
import { Router } from 'express';

/**
 * Endpoints of the contract whose capability is not built yet: a clear 501 naming it, never
 * fake data and never a bare 404 that would look like a wrong URL.
 */
const NOT_BUILT: readonly [capability: string, paths: string[]][] = [
  // POST /tasks/transfers and /tasks/external-provider are routes/imports.ts; v1.3's integrations are not built.
  ['Task transfers from an integration', ['/tasks/transfers/*rest']],
];

export function notBuiltRoutes(): Router {
  const router = Router();
  for (const [capability, paths] of NOT_BUILT) {
    router.all(paths, () => {
      throw new ApiError('not_implemented', `${capability}: this endpoint is not available on this server yet.`);
    });
  }
  return router;
}
