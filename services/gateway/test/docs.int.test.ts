/*
 * The docs page: served offline (the page and Scalar's bundle come from this server and name no
 * other host), one source per served version with a version switch, the x-api-key filled from
 * the pasted key, examples sent to this server (the documents' servers are this server's paths).
 */
import { createHash } from 'node:crypto';
import { SERVED_VERSIONS } from '../src/versions';
import { startStack, type Stack } from './harness';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('pglite');
});
afterAll(async () => {
  await stack?.stop();
});

/** The sources of one directive of a Content-Security-Policy header (undefined when absent). */
const directive = (csp: string | null, name: string) =>
  csp
    ?.split(';')
    .map((d) => d.trim().split(/\s+/))
    .find(([n]) => n === name)
    ?.slice(1);

describe('/docs', () => {
  // Issue 28 item 11: the page holds the pasted API key; it must not be framed, sniffed or given scripts from elsewhere.
  it('sends a strict Content-Security-Policy: its own scripts and the hash of its one inline script', async () => {
    const res = await fetch(`${stack.url}/docs`);
    const html = await res.text();
    const csp = res.headers.get('content-security-policy');
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toHaveLength(1);
    const hash = `'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`;
    expect(directive(csp, 'script-src')).toEqual(["'self'", hash]);
    expect(directive(csp, 'default-src')).toEqual(["'self'"]);
    expect(directive(csp, 'connect-src')).toEqual(["'self'"]);
    expect(directive(csp, 'frame-ancestors')).toEqual(["'none'"]);
    expect(directive(csp, 'object-src')).toEqual(["'none'"]);
    expect(directive(csp, 'base-uri')).toEqual(["'none'"]);
    expect(directive(csp, 'script-src')?.join(' ')).not.toMatch(/unsafe/);
    expect([res.headers.get('x-frame-options'), res.headers.get('x-content-type-options'), res.headers.get('referrer-policy')]).toEqual([
      'DENY',
      'nosniff',
      'no-referrer',
    ]);
  });

  it.each([
    ['/docs/scalar.js', 200],
    ['/v1.3/openapi.json', 200],
    ['/v1.3/indexes', 401],
    ['/v1.3/no-such-endpoint', 401],
    ['/nowhere', 404],
    ['/healthz', 200],
  ])('GET %s (%d) is not sniffed', async (path, status) => {
    const res = await fetch(`${stack.url}${path}`);
    await res.arrayBuffer();
    expect([res.status, res.headers.get('x-content-type-options')]).toEqual([status, 'nosniff']);
  });

  it("is an HTML page over every version's document, without a key", async () => {
    const res = await fetch(`${stack.url}/docs`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const html = await res.text();
    for (const version of SERVED_VERSIONS) expect(html).toContain(`"url":"/${version}/openapi.json"`);
    expect(html).toContain('<script src="/docs/scalar.js"></script>');
    // Offline: nothing on the page is fetched from another host.
    expect(html.match(/(src|href)="[^"]*"/g)).toEqual(['src="/docs/scalar.js"']);
    expect(html).not.toMatch(/https?:\/\//);
    // The pasted key goes into the apiKey scheme every operation uses.
    expect(html).toContain("securitySchemes: { apiKey: { name: 'x-api-key', in: 'header', value: key");
  });

  it('opens the version asked for (?version=), the newest otherwise', async () => {
    const html = await (await fetch(`${stack.url}/docs?version=v1.1`)).text();
    expect(html).toContain("new URLSearchParams(location.search).get('version')");
    expect(html).toContain('SOURCES[SOURCES.length - 1].slug');
    expect(SERVED_VERSIONS.at(-1)).toBe('v1.3');
  });

  it('serves the Scalar bundle itself, as JavaScript that defines window.Scalar', async () => {
    const res = await fetch(`${stack.url}/docs/scalar.js`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    const script = await res.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain('window.Scalar={createApiReference');
  });

  it('each document points its examples at this server', async () => {
    for (const version of SERVED_VERSIONS) {
      const document = (await (await fetch(`${stack.url}/${version}/openapi.json`)).json()) as {
        servers: { url: string }[];
        components: unknown;
      };
      expect(document.servers).toEqual([{ url: `/${version}` }]);
      expect(document.components).toEqual({ securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } });
    }
  });
});
