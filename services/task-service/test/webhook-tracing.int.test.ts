/*
 * A webhook delivery joins the trace of the status change it announces: the event written inside
 * a request's span is consumed by the fan-out (a child of its producer span), the delivery job it
 * queues carries that trace, and the job's run is a span of it.
 */
import { SpanKind } from '@opentelemetry/api';
import { createLogger, newId, SecretBox } from '@vus/core';
import { buildEvent, InProcessEventBus, type TaskStatusChangedPayload } from '@vus/events';
import { parseAllowList } from '@vus/fetch';
import { callUnary, createClient, loadProto, type OutgoingContext } from '@vus/grpc';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import type { WebhookEndpoint } from '@vus/grpc/types/task/v1/WebhookEndpoint';
import { inSpan } from '@vus/telemetry';
import { recordSpans, type ReadableSpan, type RecordedSpans } from '@vus/telemetry/testing';
import { startTaskService, type RunningTaskService } from '../src/main';
import { WEBHOOK_DELIVERY_JOB } from '../src/webhooks/store';
import { startReceiver, type Receiver } from './receiver';

const logger = createLogger({ service: 'test', level: 'silent' });
const orgId = newId();

let recorded: RecordedSpans;
let bus: InProcessEventBus;
let service: RunningTaskService;
let client: TaskServiceClient;
let receiver: Receiver;

beforeAll(async () => {
  recorded = recordSpans();
  bus = new InProcessEventBus({ logger });
  receiver = await startReceiver();
  service = await startTaskService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus,
    logger,
    indexServiceAddress: '127.0.0.1:1',
    webhooks: {
      secrets: SecretBox.fromKey(SecretBox.newKey(), 'WEBHOOK_SECRET_KEY'),
      allowList: parseAllowList('localhost'),
      dispatcher: { timeoutMs: 2000, retryBaseMs: 20, maxDelayMs: 100, maxAttempts: 5, pollMs: 50 },
    },
  });
  client = createClient(loadProto().proto.vus.task.v1.TaskService, service.address);
});
afterAll(async () => {
  client?.close();
  await service?.stop();
  await bus?.close();
  await receiver?.stop();
  await recorded?.stop();
});

it("runs the delivery as a span of the status change's trace", async () => {
  const ctx: OutgoingContext = { orgId, requestId: 'trace', deadline: new Date(Date.now() + 10_000) };
  await callUnary<WebhookEndpoint>(
    (md, opts, cb) => client.CreateWebhookEndpoint({ url: receiver.url('/traced'), event_types: ['index.task.ready'] }, md, opts, cb),
    ctx,
  );
  const payload: TaskStatusChangedPayload = {
    task_id: 'task-t',
    index_id: 'idx',
    video_id: 'vid',
    status: 'ready',
    previous_status: 'indexing',
    failure: null,
  };
  const traceId = await inSpan('request', {}, async (span) => {
    await bus.publish([buildEvent<TaskStatusChangedPayload>('task.status-changed', 'task-t', orgId, payload)]);
    return span.spanContext().traceId;
  });
  const delivery = () => recorded.spans().find((s) => s.name === `job ${WEBHOOK_DELIVERY_JOB}` && s.spanContext().traceId === traceId);
  for (
    const deadline = Date.now() + 20_000;
    !delivery() || receiver.requests('/traced').length === 0;
    await new Promise((r) => setTimeout(r, 25))
  ) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the traced delivery');
  }
  const trace = recorded.spans().filter((s) => s.spanContext().traceId === traceId);
  const byId = new Map(trace.map((s) => [s.spanContext().spanId, s]));
  const ancestry = (span: ReadableSpan): string[] => {
    const parent = span.parentSpanContext && byId.get(span.parentSpanContext.spanId);
    return parent ? [...ancestry(parent), parent.name] : [];
  };
  expect(ancestry(delivery()!)).toEqual(['request', 'vus.task.status-changed publish', 'vus.task.status-changed process']);
  expect(delivery()!.attributes['vus.job.outcome']).toBe('succeeded');
  expect(trace.find((s) => s.name === 'vus.task.status-changed process')!.kind).toBe(SpanKind.CONSUMER);
});
