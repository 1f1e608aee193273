/**
 * Issue 15, defect 3: the rate limiter and the router must agree on which endpoint a request is.
 * A path the router accepts in another spelling (case, slashes, escapes) must not reach a handler
 * without counting, and requests that no built endpoint serves (unknown, 501) must count nothing.
 */
import request from 'supertest';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

describe('rate limits follow the route, not the spelling of the path', () => {
  let stack: IndexingStack;

  beforeAll(async () => {
    stack = await startIndexingStack();
  });
  afterAll(() => stack.stop());

  const post = (key: string, path: string) => request(stack.url).post(path).set('x-api-key', key).send({});
  /** What is left of the organization's index-request budget, read from a canonical POST /tasks (which uses one). */
  const indexRequestsLeft = async (key: string) => {
    const res = await post(key, '/v1.3/tasks');
    expect(res.status).toBe(400);
    return Number(res.headers['x-ratelimit-request-remaining']);
  };
  /** How many index requests a request to `path` used, and its status. */
  const costOf = async (path: string) => {
    const { key } = await stack.newOrg();
    const before = await indexRequestsLeft(key);
    const res = await post(key, path);
    const after = await indexRequestsLeft(key);
    return { status: res.status, code: res.body.code as string, used: before - after - 1 };
  };

  it.each([
    // Another case is not the endpoint: refused like any unknown path, and free.
    ['/v1.3/TASKS', { status: 404, code: 'endpoint_not_found', used: 0 }],
    ['/v1.3/Tasks', { status: 404, code: 'endpoint_not_found', used: 0 }],
    ['/V1.3/tasks', { status: 404, code: 'endpoint_not_found', used: 0 }],
    ['/p/v1.3/TASKS', { status: 404, code: 'endpoint_not_found', used: 0 }],
    ['/v1.3/%74asks', { status: 404, code: 'endpoint_not_found', used: 0 }],
    ['/v1.3/tasks%2F', { status: 404, code: 'endpoint_not_found', used: 0 }],
    ['/v1.3//tasks', { status: 404, code: 'endpoint_not_found', used: 0 }],
    // The canonical endpoint in the spellings the router accepts: counted.
    ['/v1.3/tasks/', { status: 400, code: 'parameter_not_provided', used: 1 }],
    ['/p/v1.3/tasks', { status: 400, code: 'parameter_not_provided', used: 1 }],
    ['/v1.3/tasks?x=1', { status: 400, code: 'parameter_not_provided', used: 1 }],
    // SPEC §8 counts indexing an asset in the index category too.
    ['/v1.3/indexes/6528dde58f9cd95a98cbd075/indexed-assets', { status: 400, code: 'parameter_not_provided', used: 1 }],
  ])('POST %s', async (path, expected) => {
    expect(await costOf(path)).toEqual(expected);
  });

  it.each([
    // Counted in the index category by SPEC §8, but not built here: 501, and free.
    ['/v1.3/tasks/transfers/import/abc', 501],
    ['/v1.3/no-such-endpoint', 404],
  ])('POST %s is answered %d and uses nothing, with no rate-limit headers', async (path, status) => {
    const { key } = await stack.newOrg();
    const before = await indexRequestsLeft(key);
    const res = await post(key, path);
    expect(res.status).toBe(status);
    expect(res.headers['x-ratelimit-request-remaining']).toBeUndefined();
    expect(await indexRequestsLeft(key)).toBe(before - 1);
  });

  it('search in another case is refused and uses no search request', async () => {
    const { key } = await stack.newOrg();
    const searchLeft = async () => Number((await post(key, '/v1.3/search')).headers['x-ratelimit-request-remaining']);
    const before = await searchLeft();
    expect((await post(key, '/v1.3/SEARCH')).status).toBe(404);
    expect((await post(key, '/v1.2/Combined-Search')).status).toBe(404);
    expect(await searchLeft()).toBe(before - 1);
  });
});
