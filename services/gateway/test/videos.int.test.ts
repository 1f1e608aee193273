import { ManualClock } from '@vus/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startStack, type Stack } from './harness';
import { workerClient, writeThumbnail } from './videos-worker';

const MISSING = '0123456789abcdef01234567';
const day = (d: number) => new Date(Date.UTC(2024, 0, d));

describe.each(['postgres', 'pglite'] as const)('videos over HTTP (%s)', (kind) => {
  let stack: Stack;
  let worker: ReturnType<typeof workerClient>;
  let blobDir: string;
  const clock = new ManualClock('2024-06-01T00:00:00Z');
  let org: { orgId: string; key: string };
  let other: { orgId: string; key: string };
  let indexId: string;
  let plainIndexId: string;
  const ids: Record<string, string> = {};
  let red: Buffer;
  let blue: Buffer;

  const api = () => request(stack.url);
  const get = (path: string, key = org.key) => api().get(path).set('x-api-key', key);

  beforeAll(async () => {
    blobDir = mkdtempSync(join(tmpdir(), 'vus-blobs-'));
    stack = await startStack(kind, 64 * 1024, { clock, blobDir });
    worker = workerClient(stack.indexService.address);
    org = await stack.newOrg();
    other = await stack.newOrg();
    const create = async (name: string, addons: string[]) =>
      (
        await api()
          .post('/v1.2/indexes')
          .set('x-api-key', org.key)
          .send({ index_name: name, engines: [{ engine_name: 'marengo2.6', engine_options: ['visual', 'conversation'] }], addons })
      ).body._id as string;
    indexId = await create('videos', ['thumbnail']);
    plainIndexId = await create('no-thumbnails', []);
    const uploads = [
      [
        'a',
        {
          filename: 'a.mp4',
          duration: 5,
          fps: 24,
          width: 640,
          height: 360,
          size: 100,
          userMetadata: { topic: 'cars', rank: 5, fresh: true },
        },
      ],
      ['b', { filename: 'b.mp4', duration: 50, fps: 30, width: 1280, height: 720, size: 2000, userMetadata: { topic: 'boats', rank: 2 } }],
      [
        'c',
        {
          filename: 'c.mp4',
          duration: 500,
          fps: 60,
          width: 1920,
          height: 1080,
          size: 30000,
          userMetadata: { topic: 'cars', rank: 9.5, fresh: false },
        },
      ],
    ] as const;
    for (const [i, [name, upload]] of uploads.entries()) {
      ids[name] = (await worker.createVideo(org.orgId, indexId, { ...upload, createdAt: day(i + 1) })).id;
    }
    red = await writeThumbnail(stack.blobs!, 'thumbs/a-0.jpg', 'red');
    blue = await writeThumbnail(stack.blobs!, 'thumbs/a-8.jpg', 'blue');
    await worker.putArtifacts(org.orgId, indexId, ids.a!, {
      transcription: [
        { start: 0, end: 2.5, value: 'Hello there', confidence: 0.9 },
        { start: 3, end: 6, value: 'General Kenobi', confidence: 0.8 },
      ],
      text_in_video: [{ start: 1, end: 4, value: 'SALE 50%', confidence: 0.95 }],
      logo: [{ start: 2, end: 3, value: 'Acme', confidence: 0.6 }],
      thumbnails: [
        { time: 0, blob_key: 'thumbs/a-0.jpg', content_type: 'image/jpeg' },
        { time: 8, blob_key: 'thumbs/a-8.jpg', content_type: 'image/jpeg' },
      ],
    });
  });
  afterAll(async () => {
    worker.close();
    await stack.stop();
    rmSync(blobDir, { recursive: true, force: true });
  });

  const listNames = async (query: string, version = 'v1.3') => {
    const response = await get(`/${version}/indexes/${indexId}/videos${query}`);
    expect(response.status).toBe(200);
    return (response.body.data as { _id: string }[]).map((v) => Object.entries(ids).find(([, id]) => id === v._id)?.[0]);
  };
  const expectError = (response: request.Response, status: number, code: string) => {
    expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
    expect(typeof response.body.message).toBe('string');
  };

  describe('list', () => {
    it('shows each version’s video shape, never an index_id', async () => {
      const v12 = await get(`/v1.2/indexes/${indexId}/videos?filename=a.mp4`);
      expect(v12.body.data).toEqual([
        {
          _id: ids.a,
          created_at: '2024-01-01T00:00:00.000Z',
          updated_at: expect.any(String),
          indexed_at: expect.any(String),
          metadata: { filename: 'a.mp4', duration: 5, fps: 24, width: 640, height: 360, size: 100, topic: 'cars', rank: 5, fresh: true },
        },
      ]);
      const v13 = await get(`/v1.3/indexes/${indexId}/videos?filename=a.mp4`);
      expect(v13.body.data[0]).toEqual({
        _id: ids.a,
        created_at: '2024-01-01T00:00:00.000Z',
        updated_at: expect.any(String),
        indexed_at: expect.any(String),
        system_metadata: { filename: 'a.mp4', duration: 5, fps: 24, width: 640, height: 360, size: 100 },
        user_metadata: { topic: 'cars', rank: 5, fresh: true },
      });
      expect(v13.body.page_info).toEqual({ page: 1, limit_per_page: 10, total_page: 1, total_results: 1 });
    });

    it('pages newest first, to an empty page past the end, and sorts', async () => {
      expect(await listNames('?page_limit=2')).toEqual(['c', 'b']);
      expect(await listNames('?page_limit=2&page=2')).toEqual(['a']);
      const past = await get(`/v1.3/indexes/${indexId}/videos?page_limit=2&page=3`);
      expect(past.body).toEqual({ data: [], page_info: { page: 3, limit_per_page: 2, total_page: 2, total_results: 3 } });
      expect(await listNames('?sort_option=asc')).toEqual(['a', 'b', 'c']);
      expect(await listNames('?sort_by=created_at&sort_option=desc')).toEqual(['c', 'b', 'a']);
      expect((await listNames('?sort_by=updated_at')).sort()).toEqual(['a', 'b', 'c']);
    });

    it.each([
      ['?filename=b.mp4', ['b']],
      ['?duration[gte]=5&duration[lt]=500', ['b', 'a']],
      ['?fps=30', ['b']],
      ['?width[gt]=640&height[lte]=720', ['b']],
      ['?size[gte]=2000', ['c', 'b']],
      // js 0.1/0.2 send date keys camelCased.
      ['?createdAt[gte]=2024-01-02T00:00:00Z', ['c', 'b']],
      ['?created_at=2024-01-03', ['c']],
      // js 1.x wrapper flattens user metadata into the query; values arrive as strings.
      ['?topic=cars', ['c', 'a']],
      ['?rank=5', ['a']],
      ['?rank=9.5&fresh=false', ['c']],
      // The raw Fern client sends user_metadata as JSON.
      [`?user_metadata=${encodeURIComponent('{"topic":"cars","fresh":true}')}`, ['a']],
      // js 0.2/0.4 send [object Object]: ignored.
      ['?metadata=[object Object]', ['c', 'b', 'a']],
      ['?topic=planes', []],
    ])('filters %s', async (query, expected) => {
      expect(await listNames(query)).toEqual(expected);
    });

    it('filters by _id in v1.2', async () => {
      expect(await listNames(`?_id=${ids.b}`, 'v1.2')).toEqual(['b']);
    });

    it.each([
      '?page_limit=0',
      '?page_limit=51',
      '?page_limit=abc',
      '?page=0',
      '?sort_by=filename',
      '?sort_option=up',
      '?duration=long',
      '?size[gte]=1e',
      '?created_at=yesterday',
      '?user_metadata={bad',
      `?user_metadata=${encodeURIComponent('{"a":{"b":1}}')}`,
      '?colour[gte]=3',
    ])('refuses %s', async (query) => {
      expectError(await get(`/v1.3/indexes/${indexId}/videos${query}`), 400, 'parameter_invalid');
    });

    it('answers another organization’s index with not found', async () => {
      expectError(await get(`/v1.3/indexes/${indexId}/videos`, other.key), 404, 'resource_not_exist');
      expectError(await get(`/v1.3/indexes/${MISSING}/videos`), 404, 'resource_not_exist');
    });
  });

  describe('retrieve', () => {
    it('returns one video, with its transcription on request in v1.3', async () => {
      const v12 = await get(`/v1.2/indexes/${indexId}/videos/${ids.a}`);
      expect(v12.body).toMatchObject({ _id: ids.a, metadata: { filename: 'a.mp4', topic: 'cars' } });
      expect(v12.body).not.toHaveProperty('index_id');
      const v13 = await get(`/v1.3/indexes/${indexId}/videos/${ids.a}?transcription=true`);
      expect(v13.body.transcription).toEqual([
        { start: 0, end: 2.5, value: 'Hello there' },
        { start: 3, end: 6, value: 'General Kenobi' },
      ]);
      expect((await get(`/v1.3/indexes/${indexId}/videos/${ids.a}`)).body).not.toHaveProperty('transcription');
    });

    it('refuses an unknown embedding option, and says when no embed-service serves embeddings', async () => {
      expectError(await get(`/v1.3/indexes/${indexId}/videos/${ids.a}?embedding_option=speech`), 400, 'parameter_invalid');
      expectError(await get(`/v1.3/indexes/${indexId}/videos/${ids.a}?embedding_option=visual`), 501, 'not_implemented');
      expectError(await get(`/v1.2/indexes/${indexId}/videos/${ids.a}?embed=true`), 501, 'not_implemented');
      expect((await get(`/v1.2/indexes/${indexId}/videos/${ids.a}?embed=false`)).body).not.toHaveProperty('embedding');
    });

    it('refuses a non-boolean transcription flag', async () => {
      expectError(await get(`/v1.3/indexes/${indexId}/videos/${ids.a}?transcription=maybe`), 400, 'parameter_invalid');
    });
  });

  describe('update', () => {
    let videoId: string;
    beforeEach(async () => {
      videoId = (await worker.createVideo(org.orgId, plainIndexId, { userMetadata: { keep: 'me', drop: 1 } })).id;
    });
    const metadataV13 = async () => (await get(`/v1.3/indexes/${plainIndexId}/videos/${videoId}`)).body.user_metadata;

    it('v1.2 PUT merges, sets the title and deletes null keys; 204 without a content type', async () => {
      const response = await api()
        .put(`/v1.2/indexes/${plainIndexId}/videos/${videoId}`)
        .set('x-api-key', org.key)
        .send({ video_title: 'Launch', metadata: { drop: null, added: 2.5 } });
      expect(response.status).toBe(204);
      expect(response.headers['content-type']).toBeUndefined();
      const video = await get(`/v1.2/indexes/${plainIndexId}/videos/${videoId}`);
      expect(video.body.metadata).toMatchObject({ keep: 'me', added: 2.5, video_title: 'Launch' });
      expect(video.body.metadata).not.toHaveProperty('drop');
    });

    it('v1.3 PATCH merges', async () => {
      const response = await api()
        .patch(`/v1.3/indexes/${plainIndexId}/videos/${videoId}`)
        .set('x-api-key', org.key)
        .send({ user_metadata: { drop: null, flag: true } });
      expect(response.status).toBe(204);
      expect(await metadataV13()).toEqual({ keep: 'me', flag: true });
    });

    it('v1.3 PUT replaces the user metadata', async () => {
      const response = await api()
        .put(`/v1.3/indexes/${plainIndexId}/videos/${videoId}`)
        .set('x-api-key', org.key)
        .send({ user_metadata: { only: 'this' } });
      expect(response.status).toBe(204);
      expect(await metadataV13()).toEqual({ only: 'this' });
    });

    it('accepts metadata as a JSON string in multipart', async () => {
      const response = await api()
        .patch(`/v1.3/indexes/${plainIndexId}/videos/${videoId}`)
        .set('x-api-key', org.key)
        .field('user_metadata', JSON.stringify({ n: 7 }));
      expect(response.status).toBe(204);
      expect(await metadataV13()).toEqual({ keep: 'me', drop: 1, n: 7 });
    });

    it.each([
      ['a nested value', { user_metadata: { a: { b: 1 } } }, 'parameter_invalid'],
      ['an array value', { user_metadata: { a: [1] } }, 'parameter_invalid'],
      ['metadata that is not an object', { user_metadata: 'x' }, 'parameter_invalid'],
      ['a numeric title', { video_title: 5 }, 'parameter_invalid'],
      ['nothing to change', {}, 'parameter_not_provided'],
    ])('refuses %s', async (_label, body, code) => {
      const response = await api().patch(`/v1.3/indexes/${plainIndexId}/videos/${videoId}`).set('x-api-key', org.key).send(body);
      expectError(response, 400, code);
      expect(await metadataV13()).toEqual({ keep: 'me', drop: 1 });
    });
  });

  describe('artifacts (v1.2)', () => {
    it.each([
      ['transcription', '', ['Hello there', 'General Kenobi']],
      ['transcription', '?start=2.6&end=10', ['General Kenobi']],
      ['text-in-video', '', ['SALE 50%']],
      ['logo', '?start=0', ['Acme']],
    ])('GET …/%s%s', async (path, query, values) => {
      const response = await get(`/v1.2/indexes/${indexId}/videos/${ids.a}/${path}${query}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ _id: ids.a, index_id: indexId });
      expect(response.body.data.map((d: { value: string }) => d.value)).toEqual(values);
      expect(Object.keys(response.body.data[0]).sort()).toEqual(['end', 'start', 'value']);
    });

    it('answers an empty array for a video without artifacts', async () => {
      expect((await get(`/v1.2/indexes/${indexId}/videos/${ids.b}/logo`)).body.data).toEqual([]);
    });

    it.each(['?start=-1', '?start=abc', '?start=5&end=2'])('refuses %s', async (query) => {
      expectError(await get(`/v1.2/indexes/${indexId}/videos/${ids.a}/transcription${query}`), 400, 'parameter_invalid');
    });

    it('points v1.3 callers to where the data moved', async () => {
      const response = await get(`/v1.3/indexes/${indexId}/videos/${ids.a}/transcription`);
      expectError(response, 404, 'endpoint_not_found');
      expect(response.body.message).toContain('transcription=true');
    });
  });

  describe('thumbnail', () => {
    const thumbnailUrl = async (query = '') => {
      const response = await get(`/v1.2/indexes/${indexId}/videos/${ids.a}/thumbnail${query}`);
      expect(response.status).toBe(200);
      return new URL(response.body.thumbnail as string);
    };
    const fetchUrl = (url: URL) => api().get(`${url.pathname}${url.search}`);

    it('hands out a signed URL that serves the nearest thumbnail without an API key', async () => {
      const first = await thumbnailUrl();
      expect(first.origin).toBe(stack.url);
      const served = await fetchUrl(first);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe('image/jpeg');
      expect(Buffer.compare(served.body as Buffer, red)).toBe(0);
      const later = await fetchUrl(await thumbnailUrl('?time=6'));
      expect(Buffer.compare(later.body as Buffer, blue)).toBe(0);
    });

    it.each([
      ['signature', (u: URL) => u.searchParams.set('signature', `${u.searchParams.get('signature')!.slice(0, -2)}AA`)],
      ['time', (u: URL) => u.searchParams.set('t', '8')],
      ['organization', (u: URL) => u.searchParams.set('org', other.orgId)],
      ['expiry', (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))],
      ['video', (u: URL) => (u.pathname = u.pathname.replace(ids.a!, ids.b!))],
      ['missing signature', (u: URL) => u.searchParams.delete('signature')],
    ])('refuses a URL with a tampered %s', async (_label, tamper) => {
      const url = await thumbnailUrl();
      tamper(url);
      const response = await fetchUrl(url);
      expectError(response, 403, 'api_not_allowed');
      expect(response.body.message).toContain('not valid');
    });

    it('refuses an expired URL', async () => {
      const url = await thumbnailUrl();
      expect((await fetchUrl(url)).status).toBe(200);
      clock.advance(3600 * 1000 + 1);
      const response = await fetchUrl(url);
      expectError(response, 403, 'api_not_allowed');
      expect(response.body.message).toContain('expired');
      // A fresh URL works again.
      expect((await fetchUrl(await thumbnailUrl())).status).toBe(200);
    });

    it('needs the thumbnail addon and a thumbnail', async () => {
      const plain = await worker.createVideo(org.orgId, plainIndexId);
      expectError(await get(`/v1.2/indexes/${plainIndexId}/videos/${plain.id}/thumbnail`), 400, 'parameter_invalid');
      expectError(await get(`/v1.2/indexes/${indexId}/videos/${ids.b}/thumbnail`), 404, 'resource_not_exist');
      expectError(await get(`/v1.2/indexes/${indexId}/videos/${ids.a}/thumbnail?time=soon`), 400, 'parameter_invalid');
    });
  });

  describe('across organizations', () => {
    it('answers another organization’s video exactly like a missing one', async () => {
      const calls: [string, string, object?][] = [
        ['get', ''],
        ['put', '', { metadata: { stolen: true } }],
        ['patch', '', { user_metadata: { stolen: true } }],
        ['delete', ''],
        ['get', '/transcription'],
        ['get', '/thumbnail'],
      ];
      for (const [method, suffix, body] of calls) {
        const version = method === 'patch' ? 'v1.3' : 'v1.2';
        const call = (id: string) => {
          const req = api()[method as 'get'](`/${version}/indexes/${indexId}/videos/${id}${suffix}`).set('x-api-key', other.key);
          return body ? req.send(body) : req;
        };
        const theirs = await call(ids.c!);
        const absent = await call(MISSING);
        expect(theirs.status).toBe(404);
        expect(theirs.body).toEqual({ ...absent.body, message: absent.body.message.replace(MISSING, ids.c!) });
      }
      expect((await get(`/v1.3/indexes/${indexId}/videos/${ids.c}`)).body.user_metadata).not.toHaveProperty('stolen');
    });

    it.each(['123', 'ZZZZZZZZZZZZZZZZZZZZZZZZ'])('answers the malformed video id %s with not found', async (id) => {
      expectError(await get(`/v1.2/indexes/${indexId}/videos/${id}`), 404, 'resource_not_exist');
    });
  });

  describe('delete', () => {
    it('deletes a video (204, counted off the index) and then answers not found', async () => {
      const video = await worker.createVideo(org.orgId, plainIndexId, { duration: 7 });
      const before = (await get(`/v1.2/indexes/${plainIndexId}`)).body;
      const response = await api().delete(`/v1.3/indexes/${plainIndexId}/videos/${video.id}`).set('x-api-key', org.key);
      expect(response.status).toBe(204);
      expect(response.headers['content-type']).toBeUndefined();
      expectError(await get(`/v1.3/indexes/${plainIndexId}/videos/${video.id}`), 404, 'resource_not_exist');
      const after = (await get(`/v1.2/indexes/${plainIndexId}`)).body;
      expect({ count: after.video_count, duration: after.total_duration }).toEqual({
        count: before.video_count - 1,
        duration: before.total_duration - 7,
      });
    });

    it('deleting an index takes its videos with it', async () => {
      const index = (
        await api()
          .post('/v1.3/indexes')
          .set('x-api-key', org.key)
          .send({ index_name: 'short-lived', models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] })
      ).body._id as string;
      const video = await worker.createVideo(org.orgId, index);
      expect((await get(`/v1.3/indexes/${index}`)).body.video_count).toBe(1);
      expect((await api().delete(`/v1.3/indexes/${index}`).set('x-api-key', org.key)).status).toBe(204);
      expectError(await get(`/v1.3/indexes/${index}/videos/${video.id}`), 404, 'resource_not_exist');
    });
  });
});
