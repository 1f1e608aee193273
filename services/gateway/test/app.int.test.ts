import { ADMIN_TOKEN, startStack, type Stack } from './harness';

const MARENGO_V12 = [{ engine_name: 'marengo2.6', engine_options: ['visual', 'conversation'] }];

describe.each(['postgres', 'pglite'] as const)('gateway over HTTP (%s)', (kind) => {
  let stack: Stack;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    stack = await startStack(kind);
    key = await stack.newOrgKey();
    otherKey = await stack.newOrgKey();
  });
  afterAll(() => stack.stop());

  const request = (
    method: string,
    path: string,
    init: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== null) headers['x-api-key'] = init.key ?? key;
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) body = JSON.stringify(init.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    return fetch(`${stack.url}${path}`, { method, headers, body });
  };
  const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });
  const createIndex = async (name: string, init: { key?: string; version?: string } = {}) => {
    const { status, body } = await json(
      await request('POST', `/${init.version ?? 'v1.2'}/indexes`, { key: init.key, body: { index_name: name, engines: MARENGO_V12 } }),
    );
    expect(status).toBe(201);
    return body._id as string;
  };

  describe('happy path', () => {
    it('creates, reads, lists, renames and deletes an index', async () => {
      const id = await createIndex('lifecycle');
      expect(await json(await request('GET', `/v1.2/indexes/${id}`))).toEqual({
        status: 200,
        body: expect.objectContaining({
          _id: id,
          index_name: 'lifecycle',
          engines: [expect.objectContaining({ engine_name: 'marengo2.6' })],
        }),
      });
      const renamed = await request('PUT', `/v1.2/indexes/${id}`, { body: { index_name: 'lifecycle-2' } });
      expect(renamed.status).toBe(204);
      // A 204 must not claim a JSON body: js 0.1/0.2 would try to parse it.
      expect(renamed.headers.get('content-type')).toBeNull();
      expect((await json(await request('GET', `/v1.3/indexes/${id}`))).body).toMatchObject({
        index_name: 'lifecycle-2',
        models: [{ model_name: 'marengo2.6', model_options: ['visual', 'audio'] }],
      });
      const deleted = await request('DELETE', `/v1.3/indexes/${id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.headers.get('content-type')).toBeNull();
      expect((await request('GET', `/v1.2/indexes/${id}`)).status).toBe(404);
    });

    it('accepts a GET labelled JSON with no body (js 0.1/0.2 always send the header)', async () => {
      const response = await request('GET', '/v1.2/indexes', { headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(200);
    });

    it('accepts a multipart and a urlencoded create, with strings for everything', async () => {
      const form = new FormData();
      form.append('index_name', 'from-multipart');
      form.append('engine_id', 'marengo2.6');
      form.append('index_options', 'visual');
      form.append('index_options', 'logo');
      form.append('dummy', new Blob([]), '');
      const multipart = await fetch(`${stack.url}/v1.2/indexes`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
      expect(multipart.status).toBe(201);
      const urlencoded = await request('POST', '/v1.2/indexes', {
        raw: 'index_name=from-form&engine_id=marengo2.6&index_options=visual,conversation',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(urlencoded.status).toBe(201);
      const listed = await json(await request('GET', '/v1.2/indexes?index_name=from-multipart'));
      expect(listed.body.data[0].engines[0].engine_options).toEqual(['visual', 'logo']);
    });

    it('pages lists to an empty page past the end and filters them', async () => {
      const pagingKey = await stack.newOrgKey();
      for (const name of ['p1', 'p2', 'p3']) await createIndex(name, { key: pagingKey });
      const page = async (q: string) => (await json(await request('GET', `/v1.3/indexes${q}`, { key: pagingKey }))).body;
      expect(await page('?page_limit=2')).toMatchObject({
        data: [{ index_name: 'p3' }, { index_name: 'p2' }],
        page_info: { page: 1, limit_per_page: 2, total_page: 2, total_results: 3 },
      });
      expect((await page('?page_limit=2&page=2')).data.map((i: { index_name: string }) => i.index_name)).toEqual(['p1']);
      expect(await page('?page_limit=2&page=3')).toMatchObject({ data: [], page_info: { total_results: 3 } });
      expect((await page('?sort_option=asc&sort_by=created_at')).data[0].index_name).toBe('p1');
      expect((await page('?index_name=p2')).data).toHaveLength(1);
      expect((await page('?model_family=pegasus')).data).toHaveLength(0);
    });

    it('lists engines in each version’s shape', async () => {
      const v12 = await json(await request('GET', '/v1.2/engines'));
      expect(v12.status).toBe(200);
      expect(v12.body.data).toContainEqual(
        expect.objectContaining({ _id: 'marengo2.6', allowed_engine_options: ['visual', 'conversation', 'text_in_video', 'logo'] }),
      );
      expect((await json(await request('GET', '/v1.3/engines/pegasus1.2'))).body).toMatchObject({
        model_name: 'pegasus1.2',
        allowed_model_options: ['visual', 'audio'],
      });
    });

    it('echoes a request id', async () => {
      const response = await request('GET', '/v1.2/indexes', { headers: { 'x-request-id': 'abc-123' } });
      expect(response.headers.get('x-request-id')).toBe('abc-123');
    });
  });

  describe('bad input', () => {
    const expectError = async (response: Response, status: number, code: string, messagePart?: string) => {
      const { body } = await json(response);
      expect({ status: response.status, code: body.code }).toEqual({ status, code });
      expect(typeof body.message).toBe('string');
      if (messagePart) expect(body.message).toContain(messagePart);
      expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
    };

    it.each([
      ['no key', null, 'api_key_invalid'],
      ['a wrong key', 'tlk_wrong', 'api_key_invalid'],
    ])('refuses %s', async (_label, badKey, code) => {
      await expectError(await request('GET', '/v1.2/indexes', { key: badKey }), 401, code);
    });

    it('refuses a revoked key', async () => {
      const org = await stack.gateway.keys.createOrganization(`revoked-${kind}`);
      const { record, secret } = await stack.gateway.keys.createKey(org.id, null);
      expect((await request('GET', '/v1.2/indexes', { key: secret })).status).toBe(200);
      await stack.gateway.keys.revokeKey(record.id);
      await expectError(await request('GET', '/v1.2/indexes', { key: secret }), 401, 'api_key_invalid');
    });

    it.each([
      ['missing index_name', { engines: MARENGO_V12 }, 'parameter_not_provided', 'index_name'],
      ['missing engines', { index_name: 'x' }, 'parameter_not_provided', 'engines'],
      [
        'unknown engine',
        { index_name: 'x', engines: [{ engine_name: 'marengo9', engine_options: ['visual'] }] },
        'parameter_invalid',
        'marengo9',
      ],
      [
        'unknown option',
        { index_name: 'x', engines: [{ engine_name: 'marengo2.6', engine_options: ['smell'] }] },
        'parameter_invalid',
        'engine_options',
      ],
      [
        'option the engine lacks',
        { index_name: 'x', engines: [{ engine_name: 'pegasus1.1', engine_options: ['logo'] }] },
        'parameter_invalid',
        'logo',
      ],
      ['wrong type', { index_name: ['x'], engines: MARENGO_V12 }, 'parameter_invalid', 'index_name'],
    ])('POST /indexes with %s', async (_label, body, code, part) => {
      await expectError(await request('POST', '/v1.2/indexes', { body }), 400, code, part);
    });

    it('refuses a duplicate name with 400, not 409 (Fern SDKs retry 409)', async () => {
      await createIndex('dup');
      await expectError(
        await request('POST', '/v1.2/indexes', { body: { index_name: 'dup', engines: MARENGO_V12 } }),
        400,
        'index_name_already_exists',
      );
      await expectError(
        await request('POST', '/v1.3/indexes', {
          body: { index_name: 'dup', models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] },
        }),
        400,
        'index_name_already_exists',
      );
    });

    it('refuses malformed JSON', async () => {
      await expectError(await request('POST', '/v1.2/indexes', { raw: '{"index_name": "x",' }), 400, 'body_malformed');
    });

    it('refuses a body over the size limit', async () => {
      const huge = JSON.stringify({ index_name: 'x'.repeat(100 * 1024), engines: MARENGO_V12 });
      await expectError(await request('POST', '/v1.2/indexes', { raw: huge }), 413, 'payload_too_large');
    });

    it('refuses an unsupported content type', async () => {
      await expectError(
        await request('POST', '/v1.2/indexes', { raw: 'index_name=x', headers: { 'content-type': 'text/plain' } }),
        415,
        'unsupported_media_type',
      );
    });

    it('answers another organization’s index exactly like a missing one', async () => {
      const id = await createIndex('mine');
      const missing = '0123456789abcdef01234567';
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { index_name: 'stolen' }],
        ['DELETE', undefined],
      ] as const) {
        const theirs = await json(await request(method, `/v1.2/indexes/${id}`, { key: otherKey, body }));
        const absent = await json(await request(method, `/v1.2/indexes/${missing}`, { key: otherKey, body }));
        expect(theirs.status).toBe(404);
        expect(theirs.body).toEqual({ ...absent.body, message: absent.body.message.replace(missing, id) });
      }
      expect((await request('GET', `/v1.2/indexes/${id}`)).status).toBe(200);
    });

    it.each(['123', 'zzzzzzzzzzzzzzzzzzzzzzzz', '6528DDE58F9CD95A98CBD075'])('answers the malformed id %s with not found', async (id) => {
      await expectError(await request('GET', `/v1.2/indexes/${id}`), 404, 'resource_not_exist');
    });

    it.each(['?page_limit=0', '?page_limit=51', '?page_limit=abc', '?page=0', '?sort_by=name'])('refuses %s', async (query) => {
      await expectError(await request('GET', `/v1.2/indexes${query}`), 400, 'parameter_invalid');
    });

    it('refuses to change engines or options on rename', async () => {
      const id = await createIndex('fixed');
      await expectError(
        await request('PUT', `/v1.2/indexes/${id}`, { body: { index_name: 'y', engines: MARENGO_V12 } }),
        400,
        'index_engine_cannot_be_changed',
      );
      await expectError(
        await request('PUT', `/v1.2/indexes/${id}`, { body: { index_name: 'y', index_options: ['visual'] } }),
        400,
        'index_option_cannot_be_changed',
      );
    });

    it('tells unknown endpoints from endpoints not built yet', async () => {
      await expectError(await request('GET', '/v1.2/nothing-here'), 404, 'endpoint_not_found');
      await expectError(await request('POST', '/v1.2/search', { body: {} }), 501, 'not_implemented', 'Search');
      // Issue 33's /responses is not built: a clear 501, not a 404 that looks like a wrong URL. A search over a
      // knowledge store is, and a server without task-service says that is what it lacks.
      await expectError(
        await request('POST', '/v1.3/knowledge-stores/ks_1/search', { body: {} }),
        501,
        'not_implemented',
        'no task-service',
      );
      await expectError(await request('POST', '/v1.3/responses', { body: {} }), 501, 'not_implemented', 'no task-service');
      // Every version of the API is served (versions/); one that never existed is an unknown path.
      await expectError(await request('GET', '/v1.4/indexes'), 404, 'endpoint_not_found');
    });
  });

  describe('admin API', () => {
    const admin = (method: string, path: string, token: string | undefined, body?: unknown) =>
      fetch(`${stack.url}/admin${path}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });

    it('needs the admin token', async () => {
      expect((await admin('GET', '/organizations', undefined)).status).toBe(401);
      expect((await admin('GET', '/organizations', `${ADMIN_TOKEN}x`)).status).toBe(401);
    });

    it('creates an organization and a working key, lists and revokes it', async () => {
      const org = await json(await admin('POST', '/organizations', ADMIN_TOKEN, { name: `acme-${kind}` }));
      expect(org.status).toBe(201);
      const created = await json(await admin('POST', `/organizations/${org.body._id}/keys`, ADMIN_TOKEN, { name: 'ci' }));
      expect(created.body.key).toMatch(/^tlk_/);
      expect((await request('GET', '/v1.2/indexes', { key: created.body.key })).status).toBe(200);
      const listed = await json(await admin('GET', `/organizations/${org.body._id}/keys`, ADMIN_TOKEN));
      expect(listed.body.data).toEqual([expect.objectContaining({ _id: created.body._id, revoked_at: null })]);
      expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
      expect((await admin('DELETE', `/keys/${created.body._id}`, ADMIN_TOKEN)).status).toBe(204);
      expect((await request('GET', '/v1.2/indexes', { key: created.body.key })).status).toBe(401);
      expect((await admin('POST', '/organizations', ADMIN_TOKEN, { name: `acme-${kind}` })).status).toBe(400);
    });
  });

  describe('health', () => {
    it('is live and ready while its dependencies are', async () => {
      expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
      expect(await json(await fetch(`${stack.url}/readyz`))).toEqual({
        status: 200,
        body: { status: 'ready', checks: { database: true, 'index-service': true } },
      });
    });
  });
});

describe('gateway readiness without its index-service', () => {
  it('reports not ready and answers calls with service_unavailable', async () => {
    const stack = await startStack('postgres');
    const key = await stack.newOrgKey();
    await stack.indexService.stop();
    const ready = await fetch(`${stack.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ code: 'service_unavailable', checks: { 'index-service': false, database: true } });
    const call = await fetch(`${stack.url}/v1.2/indexes`, { headers: { 'x-api-key': key } });
    expect(call.status).toBe(503);
    expect(await call.json()).toMatchObject({ code: 'service_unavailable' });
    await stack.gateway.stop();
  });
});
