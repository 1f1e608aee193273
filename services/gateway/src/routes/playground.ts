import express, { Router, type RequestHandler } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inlineHash, PAGE_CSP_BASE, pageSecurityHeaders } from '../http/page-security';

/**
 * The playground page at `/` (web/, package @vus/web): its built files from the package's dist/,
 * found through the gateway's dependency on it, so embedded and cluster mode serve the same page.
 * Only `/` and `/assets/…` are served here: every API path (`/v1.x/…`, `/p/…`, `/docs`, `/healthz`)
 * is left to its own routes, and none of this is behind a key or a rate limit (the page asks for
 * the key, and its API calls are limited as any other client's).
 */
const bundleDir = (): string => join(dirname(require.resolve('@vus/web/package.json')), 'dist');

const NOT_BUILT_STYLE = 'body { font-family: system-ui, sans-serif; margin: 2rem; }';
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Playground not built</title><style>${NOT_BUILT_STYLE}</style></head>
<body>
<h1>The playground is not built</h1>
<p>This server runs without the playground's files. Run <code>npm run build</code> at the repository root, then restart.
The API works without it; its reference is at <a href="/docs">/docs</a>.</p>
</body></html>
`;

/**
 * The page's policy: Vite's bundle is files under /assets (no inline script or style; Preact sets
 * styles through the DOM, which a policy does not restrict), its API calls go to this server. The
 * player plays this server's HLS stream (hls.js feeds the video element a blob: URL and runs its
 * transmuxer in a blob: worker), a file this browser uploaded (a blob: URL) or the http(s) URL it
 * indexed, wherever that is: media never runs as script.
 */
const PLAYGROUND_HEADERS = pageSecurityHeaders({
  ...PAGE_CSP_BASE,
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'media-src': ["'self'", 'blob:', 'https:', 'http:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'", 'blob:'],
});
const NOT_BUILT_HEADERS = pageSecurityHeaders({ ...PAGE_CSP_BASE, 'script-src': ["'none'"], 'style-src': [inlineHash(NOT_BUILT_STYLE)] });

/** The playground's built files, under /assets. */
export function playgroundFiles(dir: string = bundleDir()): Router {
  const router = Router();
  // Hashed file names: a new build is a new name, so these may be kept for long.
  router.use('/assets', express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  return router;
}

/** The playground's page, at /. */
export function playgroundEndpoints(dir: string = bundleDir()): Endpoint[] {
  const page: RequestHandler = (_req, res, next) => {
    const page = join(dir, 'index.html');
    if (!existsSync(page)) {
      res.status(503).type('html').set(NOT_BUILT_HEADERS).set('cache-control', 'no-store').send(NOT_BUILT_PAGE);
      return;
    }
    res.sendFile(page, { headers: { ...PLAYGROUND_HEADERS, 'cache-control': 'no-cache' } }, (error) => {
      if (error) next(error);
    });
  };
  return [{ method: 'get', path: '/', handle: page }];
}
