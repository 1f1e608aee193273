import { createLogger, newId } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { buildEvent, InProcessEventBus, type TaskStatusChangedPayload } from '@vus/events';
import { callUnary, createClient, loadProto, internalSecret } from '@vus/grpc';
import type { ListWebhookDeliveriesResponse } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesResponse';
import type { WebhookEndpoint } from '@vus/grpc/types/task/v1/WebhookEndpoint';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTaskService, type RunningTaskService } from '../src/main';
import { parseAllowList } from '@vus/fetch';
import { startReceiver, type Receiver } from './receiver';

const logger = createLogger({ service: 'test', level: 'silent' });
/** The built service, run as the cluster runs it (`npm test` builds first). */
const SERVICE_MAIN = join(__dirname, '..', 'dist', 'main.js');

/**
 * At least once across a crash: a dispatcher process is killed (SIGKILL) while a delivery is in
 * flight; once its lease ends, a restarted dispatcher sends the same delivery, same id, again.
 */
describe('webhook dispatcher killed mid-flight', () => {
  let database: ThrowawayDatabase;
  let api: RunningTaskService;
  let receiver: Receiver;
  const bus = new InProcessEventBus({ logger });
  const children: ChildProcess[] = [];
  const orgId = newId();

  beforeAll(async () => {
    if (!existsSync(SERVICE_MAIN)) throw new Error(`${SERVICE_MAIN} is missing: build first (npx tsc -b services/task-service)`);
    database = await createThrowawayDatabase();
    receiver = await startReceiver();
    // This process plans deliveries (API + fan-out) but does not send them: the children do.
    api = await startTaskService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: database.url },
      bus,
      logger,
      indexServiceAddress: '127.0.0.1:1',
      webhooks: { allowList: parseAllowList('localhost'), dispatch: false },
    });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await api.stop();
    await bus.close();
    await receiver.stop();
    await database.drop();
  });

  const startDispatcher = () => {
    const child = spawn(process.execPath, [SERVICE_MAIN], {
      env: {
        ...process.env,
        GRPC_BIND: '127.0.0.1:0',
        // This process's secret: its services refuse calls without it (and so would the child's).
        INTERNAL_GRPC_SECRET: internalSecret(),
        DATABASE_URL: database.url,
        INDEX_SERVICE_ADDR: '127.0.0.1:1',
        WORKER_ENABLED: 'false',
        LOG_LEVEL: 'silent',
        WEBHOOK_ALLOWED_HOSTS: 'localhost',
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_LEASE_MS: '4000',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_POLL_MS: '50',
      },
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  };
  const waitFor = async (condition: () => boolean | Promise<boolean>, what: string) => {
    for (const deadline = Date.now() + 20_000; !(await condition()); await new Promise((r) => setTimeout(r, 25))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  };

  it('redelivers the in-flight delivery, with the same id, after a restart', async () => {
    const client = createClient(loadProto().proto.vus.task.v1.TaskService, api.address);
    const ctx = () => ({ orgId, requestId: 'test', deadline: new Date(Date.now() + 10_000) });
    try {
      const endpoint = await callUnary<WebhookEndpoint>(
        (md, opts, cb) => client.CreateWebhookEndpoint({ url: receiver.url('/slow'), event_types: ['index.task.ready'] }, md, opts, cb),
        ctx(),
      );
      receiver.hang('/slow');
      const first = startDispatcher();
      await bus.publish([
        buildEvent<TaskStatusChangedPayload>('task.status-changed', 'task-k', orgId, {
          task_id: 'task-k',
          index_id: 'idx',
          video_id: 'vid',
          status: 'ready',
          previous_status: 'indexing',
          failure: null,
        }),
      ]);
      await waitFor(() => receiver.requests('/slow').length === 1, 'the first attempt to arrive');
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      receiver.answer('/slow');

      startDispatcher();
      const log = () =>
        callUnary<ListWebhookDeliveriesResponse>(
          (md, opts, cb) => client.ListWebhookDeliveries({ webhook_endpoint_id: endpoint.id }, md, opts, cb),
          ctx(),
        );
      await waitFor(async () => (await log()).data[0]?.status === 'succeeded', 'the redelivery to succeed');
      const [delivery] = (await log()).data;
      const ids = receiver.requests('/slow').map((r) => r.headers['vus-webhook-id']);
      expect(ids).toEqual([delivery!.id, delivery!.id]);
      expect([...receiver.succeeded('/slow')]).toEqual([delivery!.id]);
      // The killed attempt never finished, so it was never recorded.
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, last_response_status: 200 });
    } finally {
      client.close();
    }
  });
});
