/*
 * Every served version's OpenAPI document: valid OpenAPI 3.1, and the same set of endpoints as
 * the router, both ways (the gateway's own route table, as the fuzz suite enumerates it, and
 * requests to every documented operation); every catalogue entry is some version's.
 */
import type { ServedRoute } from '../src/app';
import { contractPath, endpointName, servedPath, type Endpoint } from '../src/endpoints/endpoint';
import { openApiDocument } from '../src/openapi/document';
import { ADAPTERS, SERVED_VERSIONS, type ApiVersion } from '../src/versions';
import { unavailableIn } from '../src/versions/middleware';
import { endpointsOf } from './endpoint-list';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { validateExchanges, validateOpenApiDocument } from './openapi-recorder';

let stack: IndexingStack;
const documents: Record<string, Record<string, any>> = {};

/** The routes of one version's router, relative to its root. */
function routesOfVersion(version: string): ServedRoute[] {
  const prefix = `/${version}/`;
  return stack.gateway.routes
    .filter((r) => r.path.startsWith(prefix))
    .map((r) => ({ method: r.method, path: r.path.slice(prefix.length - 1) }));
}

const documentPath = contractPath;
const methodsOf = (route: ServedRoute) => (route.method === 'all' ? ['get', 'post'] : [route.method]);
/** The version's endpoints that it answers as unavailable. */
const unavailableOf = (version: ApiVersion): Endpoint[] => endpointsOf(version).filter((e) => unavailableIn(ADAPTERS[version], e));
const isUnavailable = (version: ApiVersion, route: ServedRoute) =>
  unavailableOf(version).some((e) => e.method === route.method && servedPath(e) === route.path);

beforeAll(async () => {
  stack = await startIndexingStack();
  for (const version of SERVED_VERSIONS) {
    const res = await fetch(`${stack.url}/${version}/openapi.json`);
    expect(res.status).toBe(200);
    documents[version] = (await res.json()) as Record<string, any>;
  }
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe.each(SERVED_VERSIONS)('%s', (version) => {
  it('is a valid OpenAPI 3.1 document, served without a key, also under /p/', async () => {
    const document = documents[version]!;
    expect(document.openapi).toBe('3.1.0');
    const result = validateOpenApiDocument(document);
    expect(result).toEqual({ valid: true });
    expect(await (await fetch(`${stack.url}/p/${version}/openapi.json`)).json()).toEqual(document);
  });

  it('documents every route the version serves, each from its descriptor', () => {
    const routes = routesOfVersion(version);
    expect(routes.length).toBeGreaterThan(20);
    expect(openApiDocument(ADAPTERS[version], endpointsOf(version)).undocumented).toEqual([]);
    const paths = documents[version]!.paths as Record<string, Record<string, unknown>>;
    for (const route of routes) {
      if (isUnavailable(version, route)) continue;
      for (const method of methodsOf(route))
        expect([route.method, route.path, method, Boolean(paths[documentPath(route.path)]?.[method])]).toEqual([
          route.method,
          route.path,
          method,
          true,
        ]);
    }
  });

  it('leaves out what the version answers as unavailable', () => {
    const paths = documents[version]!.paths as Record<string, Record<string, unknown>>;
    for (const route of routesOfVersion(version).filter((r) => isUnavailable(version, r))) {
      expect([route.path, paths[documentPath(route.path)]?.[route.method]]).toEqual([route.path, undefined]);
    }
  });

  it('serves every documented operation: none is an unknown endpoint or refused as unavailable', async () => {
    const paths = documents[version]!.paths as Record<string, Record<string, unknown>>;
    const routes = new Set(routesOfVersion(version).flatMap((r) => methodsOf(r).map((m) => `${m} ${documentPath(r.path)}`)));
    for (const [path, item] of Object.entries(paths)) {
      for (const method of Object.keys(item)) {
        expect([method, path, routes.has(`${method} ${path}`)]).toEqual([method, path, true]);
        // Without a key: authentication answers, which only a served route gets to.
        const url = `${stack.url}/${version}${path.replace(/\{[^}]+\}/g, '6528dde58f9cd95a98cbd075')}`;
        const res = await fetch(url, { method: method.toUpperCase() });
        await res.arrayBuffer();
        expect([method, path, res.status]).toEqual([method, path, path === '/openapi.json' ? 200 : 401]);
      }
    }
  });
});

it('every endpoint is documented by some served version (none is unavailable in all)', () => {
  const available = new Set(
    SERVED_VERSIONS.flatMap((version) =>
      endpointsOf(version)
        .filter((e) => !unavailableIn(ADAPTERS[version], e))
        .map(endpointName),
    ),
  );
  expect(
    endpointsOf('v1.3')
      .map(endpointName)
      .filter((name) => !available.has(name)),
  ).toEqual([]);
});

it('the versions differ where the contract says', () => {
  const index = (version: string) =>
    Object.keys(
      documents[version]!.paths['/indexes/{index_id}'].get.responses[200].content['application/json'].schema.properties as object,
    );
  expect(index('v1.1')).toEqual(expect.arrayContaining(['engine_id', 'index_options']));
  expect(index('v1.2')).toContain('engines');
  expect(index('v1.3')).toContain('models');
  expect(Object.keys(documents.v1!.paths)).toContain('/indexes/tasks/{task_id}/video-id');
  expect(Object.keys(documents['v1.1']!.paths)).not.toContain('/gist');
  expect(Object.keys(documents['v1.3']!.paths)).not.toContain('/search-v2');
  expect(documents.v1!.paths['/indexes'].post.responses[201].content['application/json'].schema.properties.type).toEqual({
    type: 'string',
    const: 'index_create',
  });
  // The docs page's Test Request starts from these examples: each in its version's names.
  const example = (version: string) =>
    documents[version]!.paths['/indexes'].post.requestBody.content['application/json'].schema.examples[0] as object;
  expect(Object.keys(example('v1.1'))).toContain('engine_id');
  expect(Object.keys(example('v1.2'))).toContain('engines');
  expect(Object.keys(example('v1.3'))).toContain('models');
  for (const version of ['v1', 'v1.1', 'v1.2', 'v1.3'] as const)
    expect(() => ADAPTERS[version].indexes.parseCreate(example(version))).not.toThrow();
});

it('a recorded answer is checked against its operation and status: an undocumented key or status fails', () => {
  const index = {
    _id: '6528dde58f9cd95a98cbd075',
    index_name: 'a',
    addons: [],
    video_count: 0,
    total_duration: 0,
    created_at: null,
    updated_at: null,
    expires_at: null,
  };
  const exchange = (version: string, body: object, status = 200) => ({
    method: 'GET',
    url: `/${version}/indexes/6528dde58f9cd95a98cbd075?x=1`,
    status,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify(body),
  });
  const v13 = { ...index, models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] };
  expect(validateExchanges([exchange('v1.3', v13)], documents)).toEqual([]);
  expect(validateExchanges([exchange('v1.3', { ...v13, index_id: 'x' })], documents)).toEqual([
    expect.stringContaining('must NOT have additional properties'),
  ]);
  expect(validateExchanges([exchange('v1.2', v13)], documents)).toEqual([expect.stringContaining("must have required property 'engines'")]);
  expect(validateExchanges([exchange('v1.3', { code: 'resource_not_exist', message: 'gone' }, 404)], documents)).toEqual([]);
  expect(validateExchanges([exchange('v1', { code: 'resource_not_exist', message: 'gone' }, 404)], documents)).toEqual([
    expect.stringContaining('error_code'),
  ]);
});
