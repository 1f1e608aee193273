import { z } from 'zod';
import type { VersionShapes } from './shapes';

/**
 * What the document says of one endpoint: request schemas are the ones the routes validate with
 * where a route has one (routes/*.schema.ts, versions/*), responses the version's shapes
 * (shapes.ts). Errors are added to every operation in the version's form (document.ts).
 */
export interface OperationSpec {
  summary: string;
  description?: string;
  tag: string;
  /** Query parameters (the path's come from the route). */
  query?: Readonly<Record<string, { schema: z.ZodType; description?: string }>>;
  body?: { json?: z.ZodType; multipart?: z.ZodType; urlencoded?: z.ZodType; required?: boolean };
  /** `sse`: one event of a text/event-stream answer (`event: <type>` then `data: <the event as JSON>`). */
  responses: Readonly<Record<number, { description: string; json?: z.ZodType; ndjson?: z.ZodType; sse?: z.ZodType }>>;
  /** No x-api-key needed. */
  public?: boolean;
}

/** An endpoint's operation in one version's document (endpoints/endpoint.ts `doc`, routes/*.docs.ts). */
export type OperationDoc = (shapes: VersionShapes) => OperationSpec;

/** The building blocks every resource's operations share. */
export const file = z.string().meta({ format: 'binary' });
export const noContent = { 204: { description: 'Done. No body and no Content-Type.' } } as const;
export const paging = {
  page: { schema: z.int().min(1).default(1) },
  page_limit: { schema: z.int().min(1).max(50).default(10) },
  sort_by: { schema: z.enum(['created_at', 'updated_at']).default('created_at') },
  sort_option: { schema: z.enum(['asc', 'desc']).default('desc') },
};
export const created = (json: z.ZodType, status = 201) => ({ [status]: { description: 'Created.', json } });
export const ok = (json: z.ZodType, description = 'OK.') => ({ 200: { description, json } });
