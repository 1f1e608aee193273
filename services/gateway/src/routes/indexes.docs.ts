import { z } from 'zod';
import { created, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import { renameSchema } from './indexes.schema';

/**
 * The OpenAPI operations of routes/indexes.ts (Indexes): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

/** POST /indexes */
export const createIndex: OperationDoc = (s) => ({
  summary: 'Create an index',
  tag: 'Indexes',
  body: { json: s.schemas.createIndex, required: true },
  responses: created(z.object({ _id: id })),
});

/** GET /indexes */
export const listIndexes: OperationDoc = (s) => ({
  summary: 'List indexes',
  tag: 'Indexes',
  query: {
    ...paging,
    _id: { schema: z.string().optional() },
    index_name: { schema: z.string().optional() },
    ...Object.fromEntries(
      s.version.indexes.optionFilter.keys.map((key) => [
        key,
        { schema: z.array(z.enum(s.version.indexes.optionFilter.values)).optional() },
      ]),
    ),
    // Not an enum: the docs page would fill an optional enum with its first value and filter by it unasked.
    [s.version.indexes.familyFilter]: { schema: z.string().optional(), description: 'marengo or pegasus' },
  },
  responses: ok(s.list(s.index)),
});

/** GET /indexes/{index_id} */
export const retrieveIndex: OperationDoc = (s) => ({ summary: 'Retrieve an index', tag: 'Indexes', responses: ok(s.index) });

/** PUT /indexes/{index_id} */
export const renameIndex: OperationDoc = () => ({
  summary: 'Rename an index',
  tag: 'Indexes',
  body: { json: renameSchema, required: true },
  responses: noContent,
});

/** DELETE /indexes/{index_id} */
export const deleteIndex: OperationDoc = () => ({ summary: 'Delete an index and its videos', tag: 'Indexes', responses: noContent });
