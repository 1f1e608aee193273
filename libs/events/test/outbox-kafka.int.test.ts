import { createLogger } from '@vus/core';
import { migrate } from '@vus/db';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { buildEvent, enqueueEvents, EVENTS_MIGRATIONS, handleOnce, KafkaEventBus, OutboxRelay, type SubscriptionHandle } from '../src';
import { startTestKafka, type TestKafka } from '../src/testing';
import { waitFor } from './wait';

const logger = createLogger({ service: 'test', level: 'silent' });

/**
 * The outbox through a broker outage: events written while the broker is down wait in the outbox
 * and arrive after it comes back, each once, in order per key. Needs the mock broker (it is the
 * one that can be taken down); against KAFKA_BROKERS this suite is skipped.
 */
const describeWithMock = process.env.KAFKA_BROKERS ? describe.skip : describe;

describeWithMock('outbox relay to Kafka through a broker outage', () => {
  let kafka: TestKafka;
  let database: ThrowawayDatabase;
  let producerBus: KafkaEventBus;
  let consumerBus: KafkaEventBus;
  let relay: OutboxRelay;
  let member: SubscriptionHandle;
  const handled: string[] = [];

  beforeAll(async () => {
    kafka = await startTestKafka(undefined);
    database = await createThrowawayDatabase();
    await migrate(database.db, EVENTS_MIGRATIONS);
    const options = { brokers: kafka.brokers, logger, sessionTimeoutMs: 6000, maxWaitTimeMs: 200, requestTimeoutMs: 2000 };
    producerBus = new KafkaEventBus({ ...options, clientId: 'outbox-relay' });
    consumerBus = new KafkaEventBus({ ...options, clientId: 'outbox-consumer' });
    member = await consumerBus.subscribe({
      group: 'outbox-outage',
      types: ['task.status-changed'],
      handler: handleOnce(database.db, 'outbox-outage', async (event) => {
        handled.push(`${event.key}:${event.payload.n as number}`);
        return 'done';
      }),
    });
    relay = new OutboxRelay({ db: database.db, bus: producerBus, logger, pollMs: 50, maxBackoffMs: 400 });
    relay.start();
  });
  afterAll(async () => {
    await relay.stop();
    await member.stop();
    await producerBus.close();
    await consumerBus.close();
    await kafka.stop();
    await database.drop();
  });

  const write = async (from: number, to: number) => {
    for (let n = from; n < to; n++) {
      await database.db.withTx((tx) => enqueueEvents(tx, [buildEvent('task.status-changed', `task-${n % 4}`, 'org-1', { n })]));
      relay.wake();
    }
  };
  const failedAttempts = async () =>
    Number((await database.db.query<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE last_error IS NOT NULL')).rows[0]!.n);

  it('keeps every event through the outage and delivers each once, in order per key', async () => {
    await write(0, 20);
    await waitFor(() => handled.length >= 20, 'the events written before the outage');

    await kafka.outage!.down();
    await write(20, 60);
    // The relay really met the outage: publishes failed and the rows stayed unsent.
    await waitFor(async () => (await failedAttempts()) > 0, 'a failed publish');
    await kafka.outage!.up();

    await waitFor(() => handled.length >= 60, 'every event after the broker came back', 60_000);
    expect(new Set(handled).size).toBe(60);
    expect(handled).toHaveLength(60);
    for (let key = 0; key < 4; key++) {
      const ns = handled.filter((h) => h.startsWith(`task-${key}:`)).map((h) => Number(h.split(':')[1]));
      expect(ns).toEqual([...Array(60).keys()].filter((n) => n % 4 === key));
    }
    const unsent = await database.db.query('SELECT 1 FROM outbox WHERE published_at IS NULL');
    expect(unsent.rowCount).toBe(0);
  }, 90_000);
});
