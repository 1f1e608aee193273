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

  const post = (key: string, path: string, body: object = {}) => request(stack.url).post(path).set('x-api-key', key).send(body);
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

  describe('issue 28 item 11: a multipart upload counts in Upload, once', () => {
    /** What is left of the organization's upload-request budget, read from a POST /assets (400, which uses one). */
    const uploadRequestsLeft = async (key: string) => {
      const res = await post(key, '/v1.3/assets');
      expect(res.status).toBe(400);
      return Number(res.headers['x-ratelimit-request-remaining']);
    };

    it('POST /assets/multipart-uploads sends the Upload headers and is refused with 429 past the limit', async () => {
      const { key } = await stack.newOrg();
      // Free plan: 60 upload requests a minute, shared with POST /assets.
      for (let used = 1; used <= 60; used++) {
        const res = await post(key, '/v1.3/assets/multipart-uploads');
        expect([res.status, res.headers['x-ratelimit-request-limit'], res.headers['x-ratelimit-request-remaining']]).toEqual([
          400,
          '60',
          String(60 - used),
        ]);
        expect(Number(res.headers['x-ratelimit-request-reset'])).toBeGreaterThan(Date.now() / 1000);
      }
      const refused = await post(key, '/v1.3/assets/multipart-uploads');
      expect([refused.status, refused.body.code]).toEqual([429, 'too_many_requests']);
      expect(refused.body.message).toMatch(/^You have exceeded the rate limit \(RPM:60\/minute\)/);
      expect(refused.headers['retry-after']).toBeDefined();
      expect((await post(key, '/v1.3/assets')).status).toBe(429);
    });

    it('creating, PUTting its chunk, asking for URLs and reporting use one upload request', async () => {
      const { key } = await stack.newOrg();
      const before = await uploadRequestsLeft(key);
      const created = await post(key, '/v1.3/assets/multipart-uploads', { filename: 'x.png', type: 'image', total_size: 10 });
      expect(created.status).toBe(201);
      expect(created.headers['x-ratelimit-request-remaining']).toBe(String(before - 1));
      const uploadId = created.body.upload_id as string;
      const url = new URL(created.body.upload_urls[0].url as string);
      const put = await request(stack.url).put(`${url.pathname}${url.search}`).send(Buffer.alloc(10));
      expect(put.status).toBe(200);
      const more = await post(key, `/v1.3/assets/multipart-uploads/${uploadId}/presigned-urls`, { start: 1, count: 1 });
      expect(more.status).toBe(200);
      const report = await post(key, `/v1.3/assets/multipart-uploads/${uploadId}`, {
        completed_chunks: [{ chunk_index: 1, proof: put.headers.etag, proof_type: 'etag', chunk_size: 10 }],
      });
      expect(report.status).toBe(200);
      for (const res of [put, more, report]) expect(res.headers['x-ratelimit-request-remaining']).toBeUndefined();
      expect(await uploadRequestsLeft(key)).toBe(before - 2);
    });

    it('one organization holds at most 10 open multipart uploads; the 11th is refused with 429 saying why', async () => {
      const { key } = await stack.newOrg();
      const create = () => post(key, '/v1.3/assets/multipart-uploads', { filename: 'x.mp4', type: 'video', total_size: 4 * 1024 ** 3 });
      for (let i = 0; i < 10; i++) expect((await create()).status).toBe(201);
      const refused = await create();
      expect([refused.status, refused.body.code]).toEqual([429, 'usage_limit_exceeded']);
      expect(refused.body.message).toMatch(/^This organization already has 10 multipart uploads open, the most it may have at once\./);
      // Another organization starts its own.
      const other = await stack.newOrg();
      expect((await post(other.key, '/v1.3/assets/multipart-uploads', { filename: 'x.mp4', type: 'video', total_size: 10 })).status).toBe(
        201,
      );
    });
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
