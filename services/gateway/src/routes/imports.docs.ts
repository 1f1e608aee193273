import { z } from 'zod';
import { created, file, ok, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import { externalProviderSchema } from './imports.schema';

/**
 * The OpenAPI operations of routes/imports.ts (Imports (transfers, external providers)): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

/** POST /tasks/transfers */
export const transfers: OperationDoc = () => ({
  summary: 'Import videos from cloud storage',
  description: 'Part file: a JSON list of {index_id, object, language?, transcription?} with s3:// or http(s) objects.',
  tag: 'Tasks',
  body: { multipart: z.object({ file }), required: true },
  responses: ok(z.object({ message: z.string(), type: z.literal('transfers'), task_ids: z.array(id) })),
});

/** POST /tasks/external-provider */
export const externalProvider: OperationDoc = () => ({
  summary: 'Import a YouTube video',
  tag: 'Tasks',
  body: { json: externalProviderSchema, required: true },
  responses: created(z.object({ _id: id })),
});
