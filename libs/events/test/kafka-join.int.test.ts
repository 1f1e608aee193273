import { createLogger } from '@vus/core';
import { randomBytes } from 'node:crypto';
import { buildEvent, JOIN_ATTEMPTS, KafkaEventBus } from '../src';
import { startTestKafka, type TestKafka } from '../src/testing';
import { waitFor } from './wait';

const logger = createLogger({ service: 'test', level: 'silent' });
/** Kafka API keys and error codes: the mock broker answers a late follower's SyncGroup with INVALID_REQUEST. */
const HEARTBEAT = 12;
const SYNC_GROUP = 14;
const REBALANCE_IN_PROGRESS = 27;
const INVALID_REQUEST = 42;

/**
 * A consumer that crashes while joining its group: kafkajs does not retry some errors (the Debian
 * mock broker answers a follower's SyncGroup that arrives after the leader's with INVALID_REQUEST)
 * and stops the consumer. `subscribe` used to wait for the join forever; now a fresh consumer
 * joins, and after JOIN_ATTEMPTS crashes `subscribe` fails with the reason. Needs the mock broker
 * (it injects the error); against KAFKA_BROKERS this suite is skipped.
 */
const describeWithMock = process.env.KAFKA_BROKERS ? describe.skip : describe;

// The crashed consumers stay in the group until their session times out (6 s), and each new
// member costs a rebalance (5 s on the mock).
jest.setTimeout(90_000);

describeWithMock('Kafka group join', () => {
  let kafka: TestKafka;
  let bus: KafkaEventBus;

  beforeAll(async () => {
    kafka = await startTestKafka(undefined);
    bus = new KafkaEventBus({ brokers: kafka.brokers, clientId: 'join-test', logger, sessionTimeoutMs: 6000, maxWaitTimeMs: 200 });
  });
  afterAll(async () => {
    await bus.close();
    await kafka.stop();
  });

  const group = () => `join-${randomBytes(4).toString('hex')}`;

  /** A member of a new group that notes the `n` of this run's events in `seen`. */
  const subscribeRun = (run: string, seen: number[]) =>
    bus.subscribe({
      group: group(),
      types: ['task.status-changed'],
      handler: async (e) => {
        if (e.payload.run !== run) return 'skipped';
        seen.push(e.payload.n as number);
        return 'done';
      },
    });

  it('joins again with a fresh consumer when the consumer crashes while joining, and then takes events', async () => {
    const run = randomBytes(4).toString('hex');
    const seen: number[] = [];
    await kafka.failNextRequest!(SYNC_GROUP, INVALID_REQUEST);
    const member = await subscribeRun(run, seen);
    await bus.publish([buildEvent('task.status-changed', 'task-join', 'org-1', { run, n: 1 })]);
    await waitFor(() => seen.length > 0, 'the event', 45_000);
    expect(seen).toEqual([1]);
    await member.stop();
  });

  it('replaces a consumer that crashes for good in a later rebalance: the member takes events again', async () => {
    const run = randomBytes(4).toString('hex');
    const seen: number[] = [];
    const member = await subscribeRun(run, seen);
    // kafkajs logs each crash; the event is published only after it, so the old consumer cannot take it.
    const crashes: string[] = [];
    const spy = jest.spyOn(logger, 'error').mockImplementation((_fields: unknown, message?: string) => {
      if (message?.startsWith('kafka: Crash')) crashes.push(message);
    });
    try {
      // The group asks the member to rejoin, and its SyncGroup in that rebalance is refused.
      await kafka.failNextRequest!(HEARTBEAT, REBALANCE_IN_PROGRESS);
      await kafka.failNextRequest!(SYNC_GROUP, INVALID_REQUEST);
      await waitFor(() => crashes.length > 0, 'the consumer to crash', 30_000);
      await bus.publish([buildEvent('task.status-changed', 'task-rejoin', 'org-1', { run, n: 2 })]);
      await waitFor(() => seen.length > 0, 'the event', 45_000);
    } finally {
      spy.mockRestore();
    }
    expect(seen).toEqual([2]);
    await member.stop();
  });

  it('fails subscribe with the crash once every attempt crashed', async () => {
    for (let i = 0; i < JOIN_ATTEMPTS; i++) await kafka.failNextRequest!(SYNC_GROUP, INVALID_REQUEST);
    await expect(bus.subscribe({ group: group(), types: ['task.status-changed'], handler: async () => 'done' })).rejects.toThrow(
      /crashed while joining: This most likely occurs because of a request being malformed/,
    );
  });
});
