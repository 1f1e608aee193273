import express, { Router } from 'express';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The playground page at `/` (web/, package @vus/web): its built files from the package's dist/,
 * found through the gateway's dependency on it, so embedded and cluster mode serve the same page.
 * Only `/` and `/assets/…` are served here: every API path (`/v1.x/…`, `/p/…`, `/docs`, `/healthz`)
 * is left to its own routes, and none of this is behind a key or a rate limit (the page asks for
 * the key, and its API calls are limited as any other client's).
 */
const bundleDir = (): string => join(dirname(require.resolve('@vus/web/package.json')), 'dist');

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Playground not built</title></head>
<body style="font-family: system-ui, sans-serif; margin: 2rem">
<h1>The playground is not built</h1>
<p>This server runs without the playground's files. Run <code>npm run build</code> at the repository root, then restart.
The API works without it; its reference is at <a href="/docs">/docs</a>.</p>
</body></html>
`;

export function playgroundRoutes(dir: string = bundleDir()): Router {
  const router = Router();
  // Hashed file names: a new build is a new name, so these may be kept for long.
  router.use('/assets', express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  router.get('/', (_req, res, next) => {
    const page = join(dir, 'index.html');
    if (!existsSync(page)) {
      res.status(503).type('html').set('cache-control', 'no-store').send(NOT_BUILT_PAGE);
      return;
    }
    res.sendFile(page, { headers: { 'cache-control': 'no-cache' } }, (error) => {
      if (error) next(error);
    });
  });
  return router;
}
