/**
 * What the fuzz suite (fuzz.int.test.ts) found, as regular tests: each answered 5xx, hung, or
 * broke the server before its fix.
 */
import { startStack, type Stack } from './harness';

describe('fuzz findings', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack('postgres');
    key = await stack.newOrgKey();
  });
  afterAll(() => stack.stop());

  const send = async (method: string, path: string, body?: string | FormData) => {
    const headers: Record<string, string> = { 'x-api-key': key };
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    const response = await fetch(`${stack.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    return { status: response.status, body: (await response.json()) as { code?: string; message?: string } };
  };
  const form = (fields: Record<string, string>) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) data.append(name, value);
    return data;
  };
  const SOME_ID = '6528dde58f9cd95a98cbd075';

  it.each([
    ['GET', '/v1.2/tasks/transfers/%zz'],
    ['GET', '/v1.3/indexes/%E0%A4%A'],
    ['DELETE', '/v1.2/webhooks/%'],
  ])('%s %s: a path parameter that is not valid percent-encoding is 400, not 500', async (method, path) => {
    expect(await send(method, path)).toEqual({ status: 400, body: expect.objectContaining({ code: 'parameter_invalid' }) });
  });

  // PostgreSQL stores no U+0000 in text or jsonb: each of these was a 500 from the service behind.
  it.each([
    [
      'JSON',
      'POST',
      '/v1.3/indexes',
      '{"index_name":"a\\u0000b","models":[{"model_name":"marengo2.7","model_options":["visual"]}]}',
      'index_name',
    ],
    [
      'a key',
      'POST',
      '/v1.3/indexes',
      '{"index_name":"ab","models":[{"model_name":"marengo2.7","model_options":["visual"],"\\u0000":1}]}',
      'models',
    ],
    ['user metadata', 'PATCH', `/v1.3/indexes/${SOME_ID}/videos/${SOME_ID}`, '{"user_metadata":{"a":"x\\u0000y"}}', 'user_metadata'],
    ['v1.2 metadata', 'PUT', `/v1.2/indexes/${SOME_ID}/videos/${SOME_ID}`, '{"metadata":{"index_id":"\\u0000"}}', 'metadata'],
    ['the query string', 'GET', '/v1.3/indexes?index_name=a%00b', undefined, 'url'],
    ['multipart', 'POST', '/v1.2/indexes', form({ index_name: 'a\u0000b', engine_id: 'marengo2.6' }), 'index_name'],
    [
      'JSON text in multipart',
      'POST',
      '/v1.3/search',
      form({ index_id: SOME_ID, search_options: 'visual', query_text: 'a', filter: '{"a":"\\u0000"}' }),
      'filter',
    ],
  ])('NUL in %s is 400 parameter_invalid naming the parameter', async (_where, method, path, body, param) => {
    const answer = await send(method, path, body);
    expect(answer).toEqual({
      status: 400,
      body: { code: 'parameter_invalid', message: expect.stringContaining(`The ${param} parameter is invalid`) },
    });
  });
});
