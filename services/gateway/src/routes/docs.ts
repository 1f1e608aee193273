import type { Endpoint } from '../endpoints/endpoint';
import { dirname, join } from 'node:path';
import { inlineHash, PAGE_CSP_BASE, pageSecurityHeaders } from '../http/page-security';

/**
 * The API docs at /docs: Scalar's API reference (the browser bundle of @scalar/api-reference,
 * served from this server: nothing is fetched from elsewhere) over each version's
 * /{version}/openapi.json, with a switch between versions, the x-api-key filled in from a key the
 * user pastes (kept in this browser only), and "Test Request" sending to this server (the
 * documents' servers are relative). `?version=v1.1` opens that version (the Link header of a
 * deprecated version points here).
 */

/** The bundle: `dist/browser/standalone.js` beside the package's entry (its exports do not list it). */
const scalarBundle = () => join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');

/** The page's one inline script: the key form and Scalar's configuration over the versions' documents. */
function pageScript(versions: readonly string[]): string {
  const sources = versions.map((version) => ({ title: version, slug: version, url: `/${version}/openapi.json` }));
  return `
    const SOURCES = ${JSON.stringify(sources)};
    const STORE = 'vus-docs-api-key';
    const wanted = new URLSearchParams(location.search).get('version');
    const chosen = SOURCES.some((s) => s.slug === wanted) ? wanted : SOURCES[SOURCES.length - 1].slug;
    let reference;
    function show() {
      const key = localStorage.getItem(STORE) || '';
      document.getElementById('api-key').value = key;
      const configuration = {
        sources: SOURCES.map((s) => ({ ...s, default: s.slug === chosen })),
        authentication: { preferredSecurityScheme: 'apiKey', securitySchemes: { apiKey: { name: 'x-api-key', in: 'header', value: key, 'x-scalar-secret-token': key } } },
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
      };
      if (reference) reference.updateConfiguration(configuration);
      else reference = Scalar.createApiReference('#reference', configuration);
    }
    document.getElementById('key').addEventListener('submit', (event) => {
      event.preventDefault();
      localStorage.setItem(STORE, document.getElementById('api-key').value.trim());
      show();
    });
    document.getElementById('forget').addEventListener('click', () => {
      localStorage.removeItem(STORE);
      show();
    });
    show();
  `;
}

/**
 * The page's policy: scripts are Scalar's bundle from this server and the inline script by its
 * hash; documents are fetched from, and "Test Request" sent to, this server only. Styles may be
 * inline: Scalar and its editor insert <style> elements as they render (a style cannot run code).
 * Images may be data: URLs (Scalar's icons). No eval (the one eval in Scalar's bundle is zod's
 * guarded probe, which falls back without it); in Chromium the page renders with nothing refused.
 */
function pageHeaders(script: string): Record<string, string> {
  return pageSecurityHeaders({
    ...PAGE_CSP_BASE,
    'script-src': ["'self'", inlineHash(script)],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
  });
}

function page(script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference</title>
  <style>
    body { margin: 0; font-family: system-ui, sans-serif; }
    #key { display: flex; gap: .5rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid #ddd; font-size: 14px; }
    #key input { flex: 0 1 28rem; font: inherit; padding: .25rem .5rem; }
  </style>
</head>
<body>
  <form id="key">
    <label for="api-key">API key</label>
    <input id="api-key" name="api-key" type="password" autocomplete="off" placeholder="Paste your x-api-key: it fills every example">
    <button type="submit">Use</button>
    <button type="button" id="forget">Forget</button>
  </form>
  <div id="reference"></div>
  <script src="/docs/scalar.js"></script>
  <script>${script}</script>
</body>
</html>
`;
}

export function docsEndpoints(versions: readonly string[]): Endpoint[] {
  const script = pageScript(versions);
  const html = page(script);
  const headers = pageHeaders(script);
  return [
    {
      method: 'get',
      path: '/docs',
      handle: (_req, res) => {
        res.type('html').set(headers).send(html);
      },
    },
    {
      method: 'get',
      path: '/docs/scalar.js',
      handle: (_req, res, next) => {
        res.sendFile(scalarBundle(), { maxAge: '1d', headers: { 'content-type': 'text/javascript; charset=utf-8' } }, (error) => {
          if (error) next(error);
        });
      },
    },
  ];
}
