import { createLogger, newId, SecretBox, type ApiError } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { buildEvent, InProcessEventBus, KafkaEventBus, type EventBus, type TaskStatusChangedPayload } from '@vus/events';
import { startTestKafka, type TestKafka } from '@vus/events/testing';
import { callUnary, createClient, loadProto, type OutgoingContext } from '@vus/grpc';
import type { ListWebhookDeliveriesResponse } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesResponse';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import type { WebhookEndpoint } from '@vus/grpc/types/task/v1/WebhookEndpoint';
import { startTaskService, type RunningTaskService } from '../src/main';
import { SIGNATURE_HEADERS, verify } from '../src/webhooks/signature';
import { sealStoredSecrets } from '../src/webhooks/store';
import { parseAllowList } from '@vus/fetch';
import { startReceiver, type Receiver } from './receiver';

const logger = createLogger({ service: 'test', level: 'silent' });

/**
 * Webhooks end to end: task-service on PostgreSQL, task events through the bus (in-process, then
 * Kafka on the mock broker), deliveries to a receiver on loopback. Only `localhost` is allowed:
 * 127.0.0.1 written as an address stays refused, which the redirect case relies on.
 */
const BUSES: [string, () => Promise<{ bus: EventBus; close(): Promise<void> }>][] = [
  [
    'in-process',
    async () => {
      const bus = new InProcessEventBus({ logger });
      return { bus, close: () => bus.close() };
    },
  ],
  [
    'kafka',
    async () => {
      const kafka: TestKafka = await startTestKafka(process.env.KAFKA_BROKERS);
      const bus = new KafkaEventBus({
        brokers: kafka.brokers,
        clientId: 'task-service',
        logger,
        sessionTimeoutMs: 6000,
        maxWaitTimeMs: 200,
      });
      return { bus, close: async () => (await bus.close(), await kafka.stop()) };
    },
  ],
];

describe.each(BUSES)('webhooks through the %s bus', (_name, createBus) => {
  let database: ThrowawayDatabase;
  let service: RunningTaskService;
  let client: TaskServiceClient;
  let events: { bus: EventBus; close(): Promise<void> };
  let receiver: Receiver;
  const orgId = newId();
  const secrets = SecretBox.fromKey(SecretBox.newKey(), 'WEBHOOK_SECRET_KEY');

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    events = await createBus();
    receiver = await startReceiver();
    service = await startTaskService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: database.url },
      bus: events.bus,
      logger,
      indexServiceAddress: '127.0.0.1:1',
      webhooks: {
        secrets,
        allowList: parseAllowList('localhost'),
        dispatcher: { timeoutMs: 2000, retryBaseMs: 20, maxDelayMs: 100, maxAttempts: 5, pollMs: 50 },
      },
    });
    client = createClient(loadProto().proto.vus.task.v1.TaskService, service.address);
  });
  afterAll(async () => {
    client.close();
    await service.stop();
    await events.close();
    await receiver.stop();
    await database.drop();
  });

  const ctx = (): OutgoingContext => ({ orgId, requestId: 'test', deadline: new Date(Date.now() + 10_000) });
  const register = (url: string, eventTypes: string[] = []) =>
    callUnary<WebhookEndpoint>((md, opts, cb) => client.CreateWebhookEndpoint({ url, event_types: eventTypes }, md, opts, cb), ctx());
  const deliveries = (endpointId: string) =>
    callUnary<ListWebhookDeliveriesResponse>(
      (md, opts, cb) => client.ListWebhookDeliveries({ webhook_endpoint_id: endpointId }, md, opts, cb),
      ctx(),
    );
  const taskEvent = (taskId: string, status: TaskStatusChangedPayload['status'], previous: TaskStatusChangedPayload['status']) =>
    buildEvent<TaskStatusChangedPayload>('task.status-changed', taskId, orgId, {
      task_id: taskId,
      index_id: 'idx',
      video_id: 'vid',
      status,
      previous_status: previous,
      failure: status === 'failed' ? { code: 'video_file_broken', message: 'The video file is broken.' } : null,
    });
  const waitFor = async (condition: () => boolean | Promise<boolean>, what: string) => {
    for (const deadline = Date.now() + 20_000; !(await condition()); await new Promise((r) => setTimeout(r, 25))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  };

  it('signs each delivery so the receiver can verify it, and sends only the registered types', async () => {
    const endpoint = await register(receiver.url('/ok'), ['index.task.ready']);
    expect(endpoint.signing_secret).toMatch(/^whsec_/);
    await events.bus.publish([taskEvent('task-a', 'indexing', 'queued'), taskEvent('task-a', 'ready', 'indexing')]);
    await waitFor(() => receiver.requests('/ok').length >= 1, 'the delivery');
    const [request] = receiver.requests('/ok');
    expect(
      verify(
        endpoint.signing_secret,
        {
          timestamp: request!.headers[SIGNATURE_HEADERS.timestamp.toLowerCase()] as string,
          signature: request!.headers[SIGNATURE_HEADERS.signature.toLowerCase()] as string,
        },
        request!.body,
        new Date(),
      ),
    ).toBe(true);
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ type: 'index.task.ready', data: { task_id: 'task-a', status: 'ready', previous_status: 'indexing' } });
    expect(request!.headers[SIGNATURE_HEADERS.id.toLowerCase()]).toBe(body.id);
    // The indexing step is not a registered type: nothing else arrives.
    await waitFor(async () => (await deliveries(endpoint.id)).data[0]?.status === 'succeeded', 'the log to show success');
    expect(receiver.requests('/ok')).toHaveLength(1);
    // The secret is shown once.
    const listed = await callUnary<{ data: WebhookEndpoint[] }>((md, opts, cb) => client.ListWebhookEndpoints({}, md, opts, cb), ctx());
    expect(listed.data.find((e) => e.id === endpoint.id)?.signing_secret).toBe('');
  });

  it('keeps signing secrets encrypted at rest, and encrypts those stored in plain text before', async () => {
    const storedSecret = async (id: string) =>
      (await database.db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [id])).rows[0]!.secret;
    const endpoint = await register(receiver.url('/sealed'), ['index.task.ready']);
    const stored = await storedSecret(endpoint.id);
    expect(stored).not.toContain(endpoint.signing_secret);
    expect(stored).not.toContain(endpoint.signing_secret.slice(6));
    expect(secrets.open(stored)).toBe(endpoint.signing_secret);

    // A row from before encryption: rewritten sealed, and its deliveries still signed with it.
    const legacy = await register(receiver.url('/legacy'), ['index.task.ready']);
    await database.db.query("UPDATE webhook_endpoints SET secret = 'whsec_stored_in_plain_text' WHERE id = $1", [legacy.id]);
    expect(await sealStoredSecrets(database.db, secrets)).toBe(1);
    expect(await storedSecret(legacy.id)).not.toContain('whsec_stored_in_plain_text');
    expect(await sealStoredSecrets(database.db, secrets)).toBe(0);
    await events.bus.publish([taskEvent('task-sealed', 'ready', 'indexing')]);
    await waitFor(() => receiver.requests('/legacy').length >= 1 && receiver.requests('/sealed').length >= 1, 'both deliveries');
    for (const [path, secret] of [
      ['/legacy', 'whsec_stored_in_plain_text'],
      ['/sealed', endpoint.signing_secret],
    ] as const) {
      const [request] = receiver.requests(path);
      expect(
        verify(
          secret,
          {
            timestamp: request!.headers[SIGNATURE_HEADERS.timestamp.toLowerCase()] as string,
            signature: request!.headers[SIGNATURE_HEADERS.signature.toLowerCase()] as string,
          },
          request!.body,
          new Date(),
        ),
      ).toBe(true);
    }
  });

  it('retries a receiver that fails three times; the event counts once by delivery id', async () => {
    receiver.failFirst('/flaky', 3);
    const endpoint = await register(receiver.url('/flaky'), ['index.task.failed']);
    await events.bus.publish([taskEvent('task-b', 'failed', 'indexing')]);
    await waitFor(async () => (await deliveries(endpoint.id)).data[0]?.status === 'succeeded', 'the delivery to succeed');
    const [delivery] = (await deliveries(endpoint.id)).data;
    expect(delivery).toMatchObject({ event_type: 'index.task.failed', attempts: 4, last_response_status: 200, last_error: '' });
    const ids = receiver.requests('/flaky').map((r) => r.headers['vus-webhook-id']);
    expect(ids).toEqual([delivery!.id, delivery!.id, delivery!.id, delivery!.id]);
    expect([...receiver.succeeded('/flaky')]).toEqual([delivery!.id]);
  });

  it('refuses private, metadata and non-http destinations at registration with a clear error', async () => {
    for (const [url, message] of [
      ['http://10.1.2.3/hook', '10.1.2.3 is a private address'],
      ['http://169.254.169.254/latest/meta-data/', 'a link-local address (cloud metadata service)'],
      ['http://127.0.0.1:9/hook', 'a loopback address'],
      ['file:///etc/passwd', 'The scheme file: is not allowed; use http or https.'],
      ['gopher://localhost:70/', 'The scheme gopher: is not allowed'],
    ] as const) {
      await expect(register(url)).rejects.toMatchObject({
        code: 'parameter_invalid',
        message: expect.stringContaining(message) as string,
      } satisfies Partial<ApiError>);
    }
  });

  it('refuses a redirect to a loopback address that is not allowed, and does not retry it', async () => {
    receiver.redirect('/moved', receiver.url('/target').replace('localhost', '127.0.0.1'));
    const endpoint = await register(receiver.url('/moved'), ['index.task.ready']);
    await events.bus.publish([taskEvent('task-c', 'ready', 'indexing')]);
    await waitFor(async () => (await deliveries(endpoint.id)).data[0]?.status === 'failed', 'the refusal');
    const [delivery] = (await deliveries(endpoint.id)).data;
    expect(delivery).toMatchObject({ attempts: 1, last_error: 'refused: 127.0.0.1 is a loopback address' });
    expect(receiver.requests('/moved')).toHaveLength(1);
    expect(receiver.requests('/target')).toHaveLength(0);
  });
});
