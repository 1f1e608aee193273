import type { RequestHandler } from 'express';
import type { RouteEntry } from '../http/route-entry';
import type { VersionAdapter } from '../versions';
import { openApiDocument } from './document';

/**
 * GET /{version}/openapi.json, public: the version's document, made once from the routes of the
 * router that serves it (read when first asked, when the router is complete).
 */
export function openApiHandler(version: VersionAdapter, routes: () => readonly RouteEntry[]): RequestHandler {
  let document: Record<string, unknown> | undefined;
  return (_req, res) => {
    document ??= openApiDocument(version, routes()).document;
    res.json(document);
  };
}
