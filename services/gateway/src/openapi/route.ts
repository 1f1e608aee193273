import { z } from 'zod';
import type { Endpoint } from '../endpoints/endpoint';
import type { VersionAdapter } from '../versions';
import { openApiDocument } from './document';
import { ok } from './operation';

/**
 * GET /{version}/openapi.json, public: the version's document, made once from the endpoints of the
 * router that serves it (read when first asked, when the router is complete).
 */
export function openApiEndpoint(version: VersionAdapter, endpoints: () => readonly Endpoint[]): Endpoint {
  let document: Record<string, unknown> | undefined;
  return {
    method: 'get',
    path: '/openapi.json',
    handle: (_req, res) => {
      document ??= openApiDocument(version, endpoints()).document;
      res.json(document);
    },
    doc: () => ({ summary: 'This document', tag: 'Docs', public: true, responses: ok(z.record(z.string(), z.unknown())) }),
  };
}
