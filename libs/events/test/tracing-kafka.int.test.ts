/*
 * Trace context over Kafka: an event written inside a span is consumed inside a span that is the
 * child of the producer span that wrote it (the traceparent travels in the envelope and in the
 * message's W3C `traceparent` header); a message that carries it in its header only (a producer
 * of another stack) is continued too.
 */
import { SpanKind, context, trace } from '@opentelemetry/api';
import { createLogger } from '@vus/core';
import { inSpan } from '@vus/telemetry';
import { recordSpans, type RecordedSpans } from '@vus/telemetry/testing';
import { Kafka, logLevel } from 'kafkajs';
import { buildEvent, KafkaEventBus, topicOf, type EventEnvelope, type SubscriptionHandle } from '../src';
import { startTestKafka, type TestKafka } from '../src/testing';
import { waitFor } from './wait';

const logger = createLogger({ service: 'test', level: 'silent' });
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

let recorded: RecordedSpans;
let kafka: TestKafka;
let bus: KafkaEventBus;
let member: SubscriptionHandle;
const received: { event: EventEnvelope; traceId: string | undefined }[] = [];

beforeAll(async () => {
  recorded = recordSpans();
  kafka = await startTestKafka(process.env.KAFKA_BROKERS);
  bus = new KafkaEventBus({
    brokers: kafka.brokers,
    clientId: 'tracing',
    logger,
    sessionTimeoutMs: 6000,
    maxWaitTimeMs: 200,
    requestTimeoutMs: 2000,
  });
  member = await bus.subscribe({
    group: `tracing-${Date.now()}`,
    types: ['index.created'],
    handler: async (event) => {
      received.push({ event, traceId: activeTraceId() });
      return 'done';
    },
  });
});
afterAll(async () => {
  await member?.stop();
  await bus?.close();
  await kafka?.stop();
  await recorded?.stop();
});

function activeTraceId(): string | undefined {
  return trace.getSpan(context.active())?.spanContext().traceId;
}

it("makes the consumer span the child of the producer span, in the writer's trace", async () => {
  const event = await inSpan('request', {}, async () => buildEvent('index.created', 'idx-traced', 'org-1', { n: 1 }));
  await bus.publish([event]);
  await waitFor(() => received.some((r) => r.event.id === event.id), 'the event');
  const spans = recorded.spans();
  const request = spans.find((s) => s.name === 'request')!;
  const producer = spans.find((s) => s.kind === SpanKind.PRODUCER && s.name === `${topicOf('index.created')} publish`)!;
  const consumer = spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['messaging.message.id'] === event.id)!;
  expect(producer.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
  expect(consumer.spanContext().traceId).toBe(request.spanContext().traceId);
  // The handler runs inside the consumer span.
  expect(received.find((r) => r.event.id === event.id)!.traceId).toBe(request.spanContext().traceId);
});

it('continues a traceparent that only the message header carries', async () => {
  const event = { ...buildEvent('index.created', 'idx-header', 'org-1', { n: 2 }) };
  delete event.traceparent;
  const producer = new Kafka({ clientId: 'other-stack', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    await producer.send({
      topic: topicOf('index.created'),
      messages: [{ key: event.key, value: JSON.stringify(event), headers: { traceparent: `00-${TRACE}-${SPAN}-01` } }],
    });
  } finally {
    await producer.disconnect();
  }
  await waitFor(() => received.some((r) => r.event.id === event.id), 'the event');
  const consumer = recorded.spans().find((s) => s.kind === SpanKind.CONSUMER && s.attributes['messaging.message.id'] === event.id)!;
  expect(consumer.spanContext().traceId).toBe(TRACE);
  expect(consumer.parentSpanContext?.spanId).toBe(SPAN);
});
