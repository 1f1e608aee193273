/**
 * The playground's static route (routes/playground.ts) on its own: the page at `/`, its hashed
 * files under `/assets`, the plain page when the bundle is not built, and no path of the API,
 * the docs or health taken by it.
 */
import express from 'express';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { routerOf } from '../src/endpoints/router';
import { playgroundEndpoints, playgroundFiles } from '../src/routes/playground';

let built: string;
let empty: string;

/** The route in front of a catch-all that stands for every other route of the gateway. */
function appServing(dir: string) {
  const app = express();
  app.use(routerOf(playgroundEndpoints(dir)), playgroundFiles(dir));
  app.use((req, res) => {
    res.status(299).json({ reached: req.path });
  });
  return app;
}

beforeAll(() => {
  built = mkdtempSync(join(tmpdir(), 'vus-playground-'));
  mkdirSync(join(built, 'assets'));
  writeFileSync(join(built, 'index.html'), '<!doctype html><title>vus playground</title>');
  writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log(1)');
  empty = mkdtempSync(join(tmpdir(), 'vus-playground-empty-'));
});
afterAll(() => {
  rmSync(built, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

/** The sources of one directive of a Content-Security-Policy header (undefined when absent). */
const directive = (csp: string | undefined, name: string) =>
  csp
    ?.split(';')
    .map((d) => d.trim().split(/\s+/))
    .find(([n]) => n === name)
    ?.slice(1);

describe('the playground route', () => {
  // Issue 28 item 11: the page keeps the API key in local storage; it must not be framed, sniffed or given scripts from elsewhere.
  it.each([
    ['the page', () => built],
    ['the page that says to build it', () => empty],
  ])('%s: a strict Content-Security-Policy, no framing, no sniffing, no referrer', async (_name, dir) => {
    const res = await request(appServing(dir())).get('/');
    const csp = res.headers['content-security-policy'];
    expect(directive(csp, 'default-src')).toEqual(["'self'"]);
    // The bundle's files; the page that says to build it runs none.
    expect(directive(csp, 'script-src')).toEqual(dir() === built ? ["'self'"] : ["'none'"]);
    expect(directive(csp, 'frame-ancestors')).toEqual(["'none'"]);
    expect(directive(csp, 'object-src')).toEqual(["'none'"]);
    expect(directive(csp, 'base-uri')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    expect([res.headers['x-frame-options'], res.headers['x-content-type-options'], res.headers['referrer-policy']]).toEqual([
      'DENY',
      'nosniff',
      'no-referrer',
    ]);
  });

  it('lets the player play what the page plays: its stream (MSE), a local file, a URL it indexed', async () => {
    const csp = (await request(appServing(built)).get('/')).headers['content-security-policy'] as string;
    expect(directive(csp, 'connect-src')).toEqual(["'self'"]);
    expect(directive(csp, 'media-src')).toEqual(["'self'", 'blob:', 'https:', 'http:']);
    // hls.js runs its transmuxer in a worker made from a blob: URL.
    expect(directive(csp, 'worker-src')).toEqual(["'self'", 'blob:']);
  });

  it('serves the page at / without a key, revalidated on every load', async () => {
    const res = await request(appServing(built)).get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toContain('vus playground');
  });

  it('serves hashed assets as immutable, and leaves unknown ones to the 404 of the app', async () => {
    const asset = await request(appServing(built)).get('/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await request(appServing(built)).get('/assets/missing.js')).body).toEqual({ reached: '/assets/missing.js' });
    expect((await request(appServing(built)).get('/assets/../index.html')).status).not.toBe(200);
  });

  it.each([
    '/v1.3/indexes',
    '/v1.2/search',
    '/p/v1.3/indexes',
    '/docs',
    '/healthz',
    '/readyz',
    '/v1.3/openapi.json',
    '/index.html',
    '/admin/keys/1',
  ])('leaves %s to its own route', async (path) => {
    expect((await request(appServing(built)).get(path)).body).toEqual({ reached: path });
  });

  it('leaves other methods on / to the app', async () => {
    expect((await request(appServing(built)).post('/')).body).toEqual({ reached: '/' });
  });

  it('says to build it when the bundle is missing', async () => {
    const res = await request(appServing(empty)).get('/');
    expect(res.status).toBe(503);
    expect(res.text).toContain('npm run build');
    expect(res.text).not.toContain(empty);
  });

  it('finds the built bundle of @vus/web through the package by default', async () => {
    // `npm run build` (and so `npm test`'s pretest) builds web/ into its dist/.
    const res = await request(express().use(routerOf(playgroundEndpoints()))).get('/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<div id="app"></div>');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(res.text)?.[1];
    expect(script).toBeDefined();
    expect((await request(express().use(playgroundFiles())).get(script!)).status).toBe(200);
  });
});
