import { ok, paging, type OperationDoc } from '../openapi/operation';
import { modelProviders } from '../openapi/shapes';

/**
 * The OpenAPI operations of routes/engines.ts (Engines): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

/** GET /engines */
export const listEngines: OperationDoc = (s) => ({
  summary: 'List engines',
  tag: 'Engines',
  query: { page: paging.page, page_limit: paging.page_limit },
  responses: ok(s.list(s.engine).extend({ providers: modelProviders.optional() })),
});

/** GET /engines/{engine_id} */
export const retrieveEngine: OperationDoc = (s) => ({ summary: 'Retrieve an engine', tag: 'Engines', responses: ok(s.engine) });
