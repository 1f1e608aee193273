/**
 * POST /tasks/external-provider and POST /tasks/transfers (API-CONTRACT §5.3) on loopback only:
 * the provider is a local server that serves a page, a media file, a refusal, or never answers,
 * or a closed port. Validation comes first; an unreachable provider is a prompt 503.
 */
import { createLogger } from '@vus/core';
import { InProcessEventBus } from '@vus/events';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { startTaskService, type RunningTaskService } from '@vus/task-service';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startGateway, type RunningGateway } from '../src/main';
import { youtubeVideoId } from '../src/routes/imports.schema';

const logger = createLogger({ service: 'test', level: 'silent' });
const MISSING = '0123456789abcdef01234567';
const VIDEO_ID = 'dQw4w9WgXcQ';
const TIMEOUT_MS = 1000;

describe('youtubeVideoId', () => {
  it.each([
    [`https://www.youtube.com/watch?v=${VIDEO_ID}`, VIDEO_ID],
    [`http://youtube.com/watch?v=${VIDEO_ID}&t=42s`, VIDEO_ID],
    [`https://m.youtube.com/watch?v=${VIDEO_ID}`, VIDEO_ID],
    [`https://youtu.be/${VIDEO_ID}?si=abc`, VIDEO_ID],
    [`https://www.youtube.com/shorts/${VIDEO_ID}`, VIDEO_ID],
    [`https://www.youtube-nocookie.com/embed/${VIDEO_ID}`, VIDEO_ID],
    ['https://youtu.be/x', undefined],
    [`ftp://youtu.be/${VIDEO_ID}`, undefined],
    [`https://example.com/watch?v=${VIDEO_ID}`, undefined],
    [`https://www.youtube.com.evil.test/watch?v=${VIDEO_ID}`, undefined],
    ['https://www.youtube.com/playlist?list=PL123', undefined],
    [`https://user:pw@youtu.be/${VIDEO_ID}`, undefined],
    ['not a url', undefined],
  ])('%s → %s', (url, id) => {
    expect(youtubeVideoId(url)).toBe(id);
  });
});

/** A provider whose behaviour a test picks; `hang` accepts the request and never answers. */
function providerServer() {
  let mode: 'page' | 'media' | 'denied' | 'hang' = 'page';
  const hanging: ServerResponse[] = [];
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (mode === 'hang') return void hanging.push(res);
    if (mode === 'media') return res.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.alloc(1024));
    if (mode === 'denied') return res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>a video page</html>');
  });
  return {
    requests,
    set: (next: typeof mode) => void (mode = next),
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A loopback port nothing listens on (connections are refused at once). */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('imports from a provider', () => {
  const provider = providerServer();
  let bus: InProcessEventBus;
  let indexService: RunningIndexService;
  let taskService: RunningTaskService;
  /** Its providers are the local server. */
  let gateway: RunningGateway;
  /** Its providers are a closed port. */
  let offline: RunningGateway;
  let providerUrl: string;
  let org: { key: string };
  let offlineOrg: { key: string };
  let indexId: string;
  let offlineIndexId: string;
  let otherIndexId: string;

  const startGatewayWith = (url: string) =>
    startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'pglite', dataDir: 'memory://' },
      logger,
      indexServiceAddress: indexService.address,
      taskServiceAddress: taskService.address,
      providers: { youtubeUrl: url, s3Url: url, timeoutMs: TIMEOUT_MS },
    });
  const newOrg = async (g: RunningGateway) => {
    const created = await g.keys.createOrganization(`org-${Math.random().toString(36).slice(2)}`);
    return { key: (await g.keys.createKey(created.id, 'test')).secret };
  };
  const newIndex = async (g: RunningGateway, key: string) =>
    (
      await request(g.url)
        .post('/v1.2/indexes')
        .set('x-api-key', key)
        .send({ index_name: `i-${Math.random()}`, engines: [{ engine_name: 'marengo2.6', engine_options: ['visual'] }] })
        .expect(201)
    ).body._id as string;

  beforeAll(async () => {
    providerUrl = await provider.listen();
    bus = new InProcessEventBus();
    indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, bus, logger });
    taskService = await startTaskService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: 'memory://' },
      bus,
      logger,
      indexServiceAddress: indexService.address,
    });
    gateway = await startGatewayWith(providerUrl);
    offline = await startGatewayWith(await closedPort());
    org = await newOrg(gateway);
    offlineOrg = await newOrg(offline);
    indexId = await newIndex(gateway, org.key);
    offlineIndexId = await newIndex(offline, offlineOrg.key);
    otherIndexId = await newIndex(gateway, (await newOrg(gateway)).key);
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await offline?.stop();
    await taskService?.stop();
    await indexService?.stop();
    await bus?.close();
    await provider.close();
  });

  /** The response and how long it took. */
  const timed = async (send: () => request.Test) => {
    const started = Date.now();
    const res = await send();
    return { res, ms: Date.now() - started };
  };
  const taskCount = async () =>
    (await request(gateway.url).get(`/v1.2/tasks?index_id=${indexId}&page_limit=50`).set('x-api-key', org.key).expect(200)).body.data
      .length as number;

  describe('POST /tasks/external-provider', () => {
    const youtube = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
    const post = (g: RunningGateway, key: string, body: object, version = 'v1.2') =>
      request(g.url).post(`/${version}/tasks/external-provider`).set('x-api-key', key).send(body);

    it.each([
      ['no index_id', () => ({ url: youtube }), 400, 'parameter_not_provided', /index_id/],
      ['no url', () => ({ index_id: indexId }), 400, 'parameter_not_provided', /url/],
      [
        'a URL that is not YouTube',
        () => ({ index_id: indexId, url: 'https://example.com/video.mp4' }),
        400,
        'parameter_invalid',
        /link to one YouTube video/,
      ],
      [
        'a YouTube URL without a video',
        () => ({ index_id: indexId, url: 'https://youtu.be/x' }),
        400,
        'parameter_invalid',
        /link to one YouTube video/,
      ],
      [
        'another scheme',
        () => ({ index_id: indexId, url: `ftp://youtu.be/${VIDEO_ID}` }),
        400,
        'parameter_invalid',
        /link to one YouTube video/,
      ],
      ['another organization’s index', () => ({ index_id: otherIndexId, url: youtube }), 404, 'resource_not_exist', /does not exist/],
      ['an unknown index', () => ({ index_id: MISSING, url: youtube }), 404, 'resource_not_exist', /does not exist/],
      ['a malformed index id', () => ({ index_id: 'nope', url: youtube }), 404, 'resource_not_exist', /does not exist/],
    ])('refuses %s before asking the provider', async (_name, body, status, code, message) => {
      provider.set('hang');
      const seen = provider.requests.length;
      const { res, ms } = await timed(() => post(gateway, org.key, body()));
      expect([res.status, res.body.code]).toEqual([status, code]);
      expect(res.body.message).toMatch(message);
      expect(provider.requests.length).toBe(seen);
      expect(ms).toBeLessThan(TIMEOUT_MS);
    });

    it('answers 503 at once when the provider’s port is closed, naming YouTube and the URL tried', async () => {
      const { res, ms } = await timed(() => post(offline, offlineOrg.key, { index_id: offlineIndexId, url: youtube }));
      expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
      expect(res.body.message).toMatch(
        new RegExp(
          `^YouTube could not be reached from this server: GET http://127\\.0\\.0\\.1:\\d+/watch\\?v=${VIDEO_ID} failed: ECONNREFUSED`,
        ),
      );
      expect(res.body.message).toContain('upload it with POST /tasks');
      expect(ms).toBeLessThan(TIMEOUT_MS);
    });

    it('answers 503 after the timeout when the provider never answers (never hangs)', async () => {
      provider.set('hang');
      const { res, ms } = await timed(() => post(gateway, org.key, { index_id: indexId, url: `https://youtu.be/${VIDEO_ID}` }));
      expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
      expect(res.body.message).toContain(`GET ${providerUrl}/watch?v=${VIDEO_ID} failed: no answer within 1 s`);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
    });

    it('says plainly that a YouTube page is not media when YouTube answers', async () => {
      provider.set('page');
      const before = await taskCount();
      const res = await post(gateway, org.key, { index_id: indexId, url: youtube });
      expect([res.status, res.body.code]).toEqual([501, 'not_implemented']);
      expect(res.body.message).toBe(
        `YouTube answered GET ${providerUrl}/watch?v=${VIDEO_ID} with HTTP 200 (text/html), which is not a media file: this server does not extract videos from YouTube pages. ` +
          'Download the video and upload it with POST /tasks (video_file), or give its direct media URL as video_url.',
      );
      expect(await taskCount()).toBe(before);
    });

    it('creates a URL task when the provider serves the media file itself (a mirror)', async () => {
      provider.set('media');
      const res = await post(gateway, org.key, { index_id: indexId, url: youtube });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/) });
      const task = await request(gateway.url).get(`/v1.2/tasks/${res.body._id}`).set('x-api-key', org.key).expect(200);
      expect(task.body).toMatchObject({ index_id: indexId, status: 'validating', metadata: { filename: `youtube-${VIDEO_ID}` } });
    });

    it('is gone in v1.3', async () => {
      const res = await post(gateway, org.key, { index_id: indexId, url: youtube }, 'v1.3');
      expect([res.status, res.body.code]).toEqual([404, 'endpoint_not_found']);
    });
  });

  describe('POST /tasks/transfers', () => {
    const post = (g: RunningGateway, key: string, file: unknown, version = 'v1.2') => {
      const req = request(g.url).post(`/${version}/tasks/transfers`).set('x-api-key', key);
      return file === undefined
        ? req.field('dummy', 'x')
        : req.attach('file', Buffer.from(typeof file === 'string' ? file : JSON.stringify(file)), 'videos.json');
    };
    const video = (overrides: object = {}) => ({ index_id: indexId, object: 's3://my-bucket/clips/one.mp4', language: 'en', ...overrides });

    it.each([
      ['no file', () => undefined, 400, 'parameter_not_provided', /The file parameter is required/],
      ['a file that is not JSON', () => '{"index_id":', 400, 'parameter_invalid', /The file parameter is invalid\. It must be a JSON file/],
      [
        'a JSON object, not a list',
        () => ({ index_id: indexId }),
        400,
        'parameter_invalid',
        /The file parameter is invalid: expected a JSON array of videos/,
      ],
      ['an empty list', () => [], 400, 'parameter_invalid', /expected at least one video/],
      ['a video without its object', () => [{ index_id: indexId }], 400, 'parameter_not_provided', /file\.0\.object/],
      [
        'an object that is no URL',
        () => [video(), video({ object: 'clips/one.mp4' })],
        400,
        'parameter_invalid',
        /file\.1\.object parameter is invalid\. It must be s3:\/\/<bucket>\/<key> or an http\(s\) URL/,
      ],
      [
        'an S3 URL without a key',
        () => [video({ object: 's3://my-bucket' })],
        400,
        'parameter_invalid',
        /file\.0\.object.*s3:\/\/<bucket>\/<key>/,
      ],
      [
        'a transcription on another scheme',
        () => [video({ transcription: 'file:///etc/passwd' })],
        400,
        'parameter_invalid',
        /file\.0\.transcription.*The scheme file: is not allowed/,
      ],
      ['another organization’s index', () => [video(), video({ index_id: otherIndexId })], 404, 'resource_not_exist', /does not exist/],
    ])('refuses %s before asking the provider, creating nothing', async (_name, file, status, code, message) => {
      provider.set('hang');
      const seen = provider.requests.length;
      const before = await taskCount();
      const { res, ms } = await timed(() => post(gateway, org.key, file()));
      expect([res.status, res.body.code]).toEqual([status, code]);
      expect(res.body.message).toMatch(message);
      expect(provider.requests.length).toBe(seen);
      expect(ms).toBeLessThan(TIMEOUT_MS);
      expect(await taskCount()).toBe(before);
    });

    it('answers 503 at once when S3 cannot be reached, creating nothing', async () => {
      const { res, ms } = await timed(() => post(offline, offlineOrg.key, [video({ index_id: offlineIndexId })]));
      expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
      expect(res.body.message).toMatch(
        /^S3 could not be reached from this server: GET http:\/\/127\.0\.0\.1:\d+\/ failed: ECONNREFUSED.*list presigned https URLs instead/,
      );
      expect(ms).toBeLessThan(TIMEOUT_MS);
    });

    it('answers 503 after the timeout when S3 never answers', async () => {
      provider.set('hang');
      const before = await taskCount();
      const { res, ms } = await timed(() => post(gateway, org.key, [video()]));
      expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
      expect(res.body.message).toContain(`GET ${providerUrl}/ failed: no answer within 1 s`);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
      expect(await taskCount()).toBe(before);
    });

    it('creates one URL task per video when S3 answers (objects read path-style, without credentials)', async () => {
      provider.set('denied'); // S3 answers an anonymous GET / with 403: reachable.
      const before = await taskCount();
      const res = await post(gateway, org.key, [
        video(),
        video({ object: 's3://my-bucket/clips/two%.mp4', transcription: 's3://my-bucket/clips/two.srt' }),
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: '2 video(s) are being transferred; follow them with GET /tasks.',
        type: 'transfers',
        task_ids: [expect.any(String), expect.any(String)],
      });
      expect(await taskCount()).toBe(before + 2);
      const second = await request(gateway.url).get(`/v1.2/tasks/${res.body.task_ids[1]}`).set('x-api-key', org.key).expect(200);
      expect(second.body).toMatchObject({ index_id: indexId, status: 'validating', metadata: { filename: 'two%.mp4' } });
    });

    it('needs no S3 for presigned https URLs (the worker fetches them like video_url)', async () => {
      const res = await post(offline, offlineOrg.key, [
        video({ index_id: offlineIndexId, object: 'https://my-bucket.s3.amazonaws.com/clips/one.mp4?X-Amz-Signature=abc' }),
      ]);
      expect(res.status).toBe(200);
      expect(res.body.task_ids).toHaveLength(1);
    });

    it('is gone in v1.3, whose integration imports are not built', async () => {
      expect((await post(gateway, org.key, [video()], 'v1.3')).body.code).toBe('endpoint_not_found');
      const integration = await request(gateway.url)
        .post('/v1.3/tasks/transfers/import/int-1')
        .set('x-api-key', org.key)
        .send({ index_id: indexId });
      expect([integration.status, integration.body.code]).toEqual([501, 'not_implemented']);
    });
  });
});
