/*
 * The docs page: served offline (the page and Scalar's bundle come from this server and name no
 * other host), one source per served version with a version switch, the x-api-key filled from
 * the pasted key, examples sent to this server (the documents' servers are this server's paths).
 */
import { SERVED_VERSIONS } from '../src/versions';
import { startStack, type Stack } from './harness';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('pglite');
});
afterAll(async () => {
  await stack?.stop();
});

describe('/docs', () => {
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
