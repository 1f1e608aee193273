import type { Category } from '@vus/limits';
import type { Request, RequestHandler } from 'express';
import type { OperationDoc } from '../openapi/operation';
import type { VersionedEndpoint } from '../versions/adapter';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'all';

/** The SPEC §8 categories a request counts in: fixed, or told by its body (/embed, /embed-v2). */
export type RateRule = Category | ((body: Readonly<Record<string, unknown>>) => Category[]);

/** How an endpoint's request body reaches its handler (http/body.ts); by default parsed whole, as text. */
export interface BodyRule {
  /** Multipart file parts kept as bytes, not read as text: part name → size limit. */
  readonly binaryParts?: ReadonlyMap<string, number>;
  /**
   * How many parts of a binary part's name one request may send (absent: one, and a second is
   * duplicatePart's 400). Past one they arrive as an array of Buffers in the order sent; past the
   * count is a 400 naming it. Each part is held to its binaryParts size.
   */
  readonly binaryPartCounts?: ReadonlyMap<string, number>;
  /** JSON whose inline base64 media streams to the blob store, after a rate check on the body so far. */
  readonly inlineMedia?: boolean;
  /** The handler reads the body itself (an upload it streams to the blob store) when this says so. */
  readonly streamedWhen?: (req: Request) => boolean;
}

/**
 * Everything the gateway knows about one endpoint, declared once in the resource's route module:
 * the router, the rate limiter's categories, the body parser's choices, each version's availability
 * and the OpenAPI document are all read from these (endpoints/router.ts, limits/, http/body.ts,
 * versions/middleware.ts, openapi/document.ts).
 */
export interface Endpoint {
  readonly method: Method;
  /** The Express path pattern, relative to where the endpoint list is mounted (a version's root). */
  readonly path: string;
  readonly handle: RequestHandler | readonly RequestHandler[];
  /** SPEC §8 categories; none: the request counts in no rate limit. */
  readonly rate?: RateRule;
  readonly body?: BodyRule;
  /**
   * The endpoint, among those some versions lack (versions/adapter.ts VersionedEndpoint), whose
   * availability this one shares: itself, or the endpoint it is an alias or a later page of.
   * Absent: every version has it.
   */
  readonly availability?: VersionedEndpoint;
  /** Its OpenAPI operation; absent: documented as a bare operation under "Undocumented". */
  readonly doc?: OperationDoc;
  /** A prefix a version serves it under (v1's `/indexes` before the task endpoints); not part of its name. */
  readonly mount?: string;
}

/** The path the router serves the endpoint at, relative to the version's root. */
export const servedPath = (endpoint: Endpoint): string => `${endpoint.mount ?? ''}${endpoint.path}`;

/** `:indexId` → `{index_id}`, `*rest` → `{rest}`: the contract's and the document's spelling of a parameter. */
export const paramName = (segment: string): string => segment.slice(1).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** An Express path in the contract's spelling: `/indexes/:indexId` → `/indexes/{index_id}`. */
export const contractPath = (path: string): string =>
  path
    .split('/')
    .map((segment) => (segment.startsWith(':') || segment.startsWith('*') ? `{${paramName(segment)}}` : segment))
    .join('/');

/**
 * The endpoint as the contract names it (`GET /tasks/{task_id}`), the same in every version (a
 * mount prefix is not part of it): the key of a version's tables (versions/adapter.ts).
 */
export const endpointName = (endpoint: Pick<Endpoint, 'method' | 'path'>): string =>
  `${endpoint.method.toUpperCase()} ${contractPath(endpoint.path)}`;

/** The same endpoint served at several paths (aliases, and their later pages), one descriptor each. */
export const atPaths = (paths: readonly string[], endpoint: Omit<Endpoint, 'path'>): Endpoint[] =>
  paths.map((path) => ({ ...endpoint, path }));

/** The endpoints served under a prefix (v1's task endpoints under `/indexes`), or as they are without one. */
export const mountedAt = (prefix: string | undefined, endpoints: readonly Endpoint[]): Endpoint[] =>
  prefix ? endpoints.map((endpoint) => ({ ...endpoint, mount: prefix })) : [...endpoints];
