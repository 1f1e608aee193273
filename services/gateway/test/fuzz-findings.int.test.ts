/**
 * What the fuzz suite (fuzz.int.test.ts) found, as regular tests: each answered 5xx, hung, or
 * broke the server before its fix.
 */
import { startStack, type Stack } from './harness';

describe('fuzz findings', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack('pglite');
    key = await stack.newOrgKey();
  });
  afterAll(() => stack.stop());

  const send = async (method: string, path: string) => {
    const response = await fetch(`${stack.url}${path}`, { method, headers: { 'x-api-key': key } });
    return { status: response.status, body: (await response.json()) as { code?: string } };
  };

  it.each([
    ['GET', '/v1.2/tasks/transfers/%zz'],
    ['GET', '/v1.3/indexes/%E0%A4%A'],
    ['DELETE', '/v1.2/webhooks/%'],
  ])('%s %s: a path parameter that is not valid percent-encoding is 400, not 500', async (method, path) => {
    expect(await send(method, path)).toEqual({ status: 400, body: expect.objectContaining({ code: 'parameter_invalid' }) });
  });
});
