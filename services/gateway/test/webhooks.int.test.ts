import { createLogger } from '@vus/core';
import { buildEvent, InProcessEventBus, type TaskStatusChangedPayload } from '@vus/events';
import { parseAllowList, startTaskService, type RunningTaskService } from '@vus/task-service';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway, type RunningGateway } from '../src/main';

const logger = createLogger({ service: 'test', level: 'silent' });

/** The webhook API over HTTP: gateway + task-service (PGlite), a receiver on loopback. */
describe('webhooks over HTTP', () => {
  const bus = new InProcessEventBus({ logger });
  let taskService: RunningTaskService;
  let gateway: RunningGateway;
  let receiver: Server;
  let receiverUrl: string;
  let key: string;
  let orgId: string;
  const received: string[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      received.push(String(req.headers['vus-webhook-id']));
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://localhost:${(receiver.address() as AddressInfo).port}/hook`;
    taskService = await startTaskService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: 'memory://' },
      bus,
      logger,
      indexServiceAddress: '127.0.0.1:1',
      webhooks: { allowList: parseAllowList('localhost'), dispatcher: { pollMs: 50, retryBaseMs: 20 } },
    });
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'pglite', dataDir: 'memory://' },
      indexServiceAddress: '127.0.0.1:1',
      taskServiceAddress: taskService.address,
      logger,
    });
    const org = await gateway.keys.createOrganization('webhooks');
    orgId = org.id;
    key = (await gateway.keys.createKey(org.id, 'test')).secret;
  });
  afterAll(async () => {
    await gateway.stop();
    await taskService.stop();
    await bus.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: response.status === 204 ? undefined : ((await response.json()) as Record<string, any>) };
  };

  it('registers an endpoint, shows its secret once, logs its deliveries, deletes it', async () => {
    const created = await call('POST', '/v1.3/webhooks', { url: receiverUrl, event_types: ['index.task.ready'] });
    expect(created).toMatchObject({
      status: 201,
      body: { url: receiverUrl, event_types: ['index.task.ready'], signing_secret: expect.stringMatching(/^whsec_/) },
    });
    const id = created.body!._id as string;

    const listed = await call('GET', '/v1.2/webhooks');
    expect(listed.body!.data).toEqual([{ _id: id, url: receiverUrl, event_types: ['index.task.ready'], created_at: expect.any(String) }]);
    expect(listed.body!.page_info).toMatchObject({ total_results: 1 });

    await bus.publish([
      buildEvent<TaskStatusChangedPayload>('task.status-changed', 'task-1', orgId, {
        task_id: 'task-1',
        index_id: 'idx',
        video_id: 'vid',
        status: 'ready',
        previous_status: 'indexing',
        failure: null,
      }),
    ]);
    let log = await call('GET', `/v1.3/webhooks/${id}/deliveries?status=succeeded`);
    for (let i = 0; i < 200 && log.body!.data.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      log = await call('GET', `/v1.3/webhooks/${id}/deliveries?status=succeeded`);
    }
    expect(log.body!.data).toEqual([
      expect.objectContaining({
        webhook_id: id,
        event_type: 'index.task.ready',
        status: 'succeeded',
        attempts: 1,
        last_response_status: 204,
        last_error: null,
      }),
    ]);
    expect(received).toEqual([log.body!.data[0]._id]);

    expect((await call('DELETE', `/v1.3/webhooks/${id}`)).status).toBe(204);
    expect(await call('DELETE', `/v1.3/webhooks/${id}`)).toMatchObject({ status: 404, body: { code: 'resource_not_exist' } });
    expect((await call('GET', `/v1.3/webhooks/${id}/deliveries`)).status).toBe(404);
  });

  it('answers bad input with a clear error', async () => {
    expect(await call('POST', '/v1.3/webhooks', { url: 'http://169.254.169.254/latest/meta-data/' })).toMatchObject({
      status: 400,
      body: { code: 'parameter_invalid', message: expect.stringContaining('a link-local address (cloud metadata service)') },
    });
    expect(await call('POST', '/v1.3/webhooks', { url: 'file:///etc/passwd' })).toMatchObject({
      status: 400,
      body: { code: 'parameter_invalid', message: 'The url parameter is invalid. The scheme file: is not allowed; use http or https.' },
    });
    expect(await call('POST', '/v1.3/webhooks', { url: receiverUrl, event_types: ['video.deleted'] })).toMatchObject({
      status: 400,
      body: { code: 'parameter_invalid', message: expect.stringContaining('Unknown event type video.deleted') },
    });
    expect(await call('POST', '/v1.3/webhooks', {})).toMatchObject({ status: 400, body: { code: 'parameter_not_provided' } });
    expect(await call('GET', '/v1.3/webhooks/nope/deliveries')).toMatchObject({ status: 404, body: { code: 'resource_not_exist' } });
    expect(await call('GET', '/v1.3/webhooks/0123456789abcdef01234567/deliveries?status=lost')).toMatchObject({ status: 400 });
  });
});
