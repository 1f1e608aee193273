import { createLogger } from '@vus/core';
import { migrate } from '@vus/db';
import { createMemoryDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { randomBytes } from 'node:crypto';
import {
  buildEvent,
  EVENTS_MIGRATIONS,
  handleOnce,
  InProcessEventBus,
  KafkaEventBus,
  type DeadLetter,
  type EventBus,
  type EventEnvelope,
  type EventHandler,
  type SubscriptionHandle,
} from '../src';
import { startTestKafka, type TestKafka } from '../src/testing';
import { waitFor } from './wait';

/**
 * The EventBus contract: every adapter must pass these. Kafka runs against the Debian mock broker
 * started for this suite, or the broker named by KAFKA_BROKERS. A Kafka group join costs ~3 s on
 * the mock, so each test joins as few members as it can.
 */
const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'silent' });
const MAX_ATTEMPTS = 3;
// Group joins take about 3 s each on the mock broker (5 s for a second member), several per test,
// and more on a busy machine; a consumer that crashed while joining costs a session timeout more.
jest.setTimeout(90_000);

interface Fixture {
  /** The bus one replica of a service holds (in-process: every replica shares the one bus). */
  replica(): EventBus;
  close(): Promise<void>;
}

const ADAPTERS: [string, () => Promise<Fixture>][] = [
  [
    'in-process',
    async () => {
      const bus = new InProcessEventBus({ maxAttempts: MAX_ATTEMPTS, retryDelayMs: 1 });
      return { replica: () => bus, close: () => bus.close() };
    },
  ],
  [
    'kafka',
    async () => {
      const kafka: TestKafka = await startTestKafka(process.env.KAFKA_BROKERS);
      const buses: KafkaEventBus[] = [];
      return {
        replica() {
          const bus = new KafkaEventBus({
            brokers: kafka.brokers,
            clientId: 'contract-test',
            logger,
            maxAttempts: MAX_ATTEMPTS,
            retryDelayMs: 10,
            sessionTimeoutMs: 6000,
            maxWaitTimeMs: 200,
          });
          buses.push(bus);
          return bus;
        },
        async close() {
          for (const bus of buses) await bus.close();
          await kafka.stop();
        },
      };
    },
  ],
];

describe.each(ADAPTERS)('EventBus contract: %s', (_name, createFixture) => {
  let fixture: Fixture;
  let publisher: EventBus;
  let database: ThrowawayDatabase;
  /** Topics outlive a test: each test's events carry its run id and handlers skip the others. */
  let run: string;
  let groups = 0;

  beforeAll(async () => {
    fixture = await createFixture();
    publisher = fixture.replica();
    database = await createMemoryDatabase();
    await migrate(database.db, EVENTS_MIGRATIONS);
  });
  afterAll(async () => {
    await fixture.close();
    await database.drop();
  });
  beforeEach(() => {
    run = randomBytes(4).toString('hex');
  });

  const group = () => `contract-${run}-${++groups}`;
  const event = (key: string, n: number) => buildEvent('task.status-changed', key, 'org-1', { run, n });
  const ours = (e: EventEnvelope) => e.payload.run === run;
  const n = (e: EventEnvelope) => e.payload.n as number;
  /** Records each delivery of this test's events as `member:key:n`. */
  const recorder =
    (member: string, seen: string[], inner: EventHandler = async () => 'done'): EventHandler =>
    async (e) => {
      if (!ours(e)) return 'skipped';
      seen.push(`${member}:${e.key}:${n(e)}`);
      return inner(e);
    };
  const keysOf = (seen: string[], key: string) => seen.filter((s) => s.split(':')[1] === key).map((s) => Number(s.split(':')[2]));

  it('delivers one key’s events in publish order, across publishes and interleaved keys', async () => {
    const seen: string[] = [];
    const member = await fixture.replica().subscribe({ group: group(), types: ['task.status-changed'], handler: recorder('a', seen) });
    for (let i = 0; i < 10; i++) await publisher.publish([event('task-x', i), event('task-y', i), event('task-z', i)]);
    await waitFor(() => seen.length >= 30, 'all 30 events');
    for (const key of ['task-x', 'task-y', 'task-z']) expect(keysOf(seen, key)).toEqual([...Array(10).keys()]);
    await member.stop();
  });

  it('shares partitions between two members of one group: each event handled once, keys in order', async () => {
    const seen: string[] = [];
    const g = group();
    const a = await fixture.replica().subscribe({ group: g, types: ['task.status-changed'], handler: recorder('a', seen) });
    const b = await fixture.replica().subscribe({ group: g, types: ['task.status-changed'], handler: recorder('b', seen) });
    const keys = Array.from({ length: 12 }, (_, k) => `task-${k}`);
    const nOf = (s: string) => Number(s.split(':')[2]);
    // A join settles through rebalances, and on the mock broker a consumer that crashed while
    // joining stays a member, holding partitions, until its session times out. Probe with the
    // measured keys (so their partitions), round r as n = -r, until one round has been handled
    // whole and both members handled probes: every partition then has a live owner. Then measure.
    let rounds = 0;
    const probed = (round: number) => new Set(seen.filter((s) => nOf(s) === -round).map((s) => s.split(':')[1])).size;
    await waitFor(
      async () => {
        rounds += 1;
        await publisher.publish(keys.map((key) => event(key, -rounds)));
        await new Promise((r) => setTimeout(r, 300));
        const members = new Set(seen.filter((s) => nOf(s) < 0).map((s) => s[0]));
        return members.size === 2 && Array.from({ length: rounds }, (_, r) => probed(r + 1)).includes(keys.length);
      },
      'both members to own partitions, and every partition an owner',
      45_000,
    );
    seen.length = 0;
    for (let i = 0; i < 5; i++) await publisher.publish(keys.map((key) => event(key, i)));
    const measured = () => seen.filter((s) => nOf(s) >= 0);
    await waitFor(() => measured().length >= 60, 'all 60 events');
    await new Promise((r) => setTimeout(r, 200)); // a duplicate would show up now
    expect(measured()).toHaveLength(60);
    for (const key of keys) {
      expect(keysOf(measured(), key)).toEqual([0, 1, 2, 3, 4]);
      // One key, one partition, one member.
      expect(
        new Set(
          measured()
            .filter((s) => s.split(':')[1] === key)
            .map((s) => s[0]),
        ).size,
      ).toBe(1);
    }
    expect(measured().some((s) => s.startsWith('a:'))).toBe(true);
    expect(measured().some((s) => s.startsWith('b:'))).toBe(true);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('delivers again an event whose member crashed before committing it', async () => {
    const seen: string[] = [];
    const g = group();
    // The first delivery never finishes: that member "crashes" while handling it.
    const hangFirst: EventHandler = () => (seen.length === 1 ? new Promise(() => undefined) : Promise.resolve('done'));
    const members: Record<string, SubscriptionHandle> = {
      a: await fixture.replica().subscribe({ group: g, types: ['task.status-changed'], handler: recorder('a', seen, hangFirst) }),
      b: await fixture.replica().subscribe({ group: g, types: ['task.status-changed'], handler: recorder('b', seen, hangFirst) }),
    };
    await publisher.publish([event('task-crash', 1)]);
    await waitFor(() => seen.length === 1, 'the first delivery');
    const crashed = seen[0]![0]!;
    await members[crashed]!.abandon();
    await waitFor(() => seen.length === 2, 'the redelivery');
    const survivor = crashed === 'a' ? 'b' : 'a';
    expect(seen).toEqual([`${crashed}:task-crash:1`, `${survivor}:task-crash:1`]);
    await members[survivor]!.stop();
  });

  it('lets a member that stops cleanly finish its event, which is then not delivered again', async () => {
    const seen: string[] = [];
    const finished: number[] = [];
    const g = group();
    let release: () => void = () => undefined;
    const slow: EventHandler = async (e) => {
      if (n(e) === 1) await new Promise<void>((r) => (release = r));
      finished.push(n(e));
      return 'done';
    };
    const first = await fixture.replica().subscribe({ group: g, types: ['task.status-changed'], handler: recorder('a', seen, slow) });
    await publisher.publish([event('task-stop', 1)]);
    await waitFor(() => seen.length === 1, 'the delivery');
    const stopping = first.stop();
    release();
    await stopping;
    expect(finished).toEqual([1]);
    // The next member of the group starts after the committed event.
    const next = await fixture.replica().subscribe({ group: g, types: ['task.status-changed'], handler: recorder('b', seen, slow) });
    await publisher.publish([event('task-stop', 2)]);
    await waitFor(() => finished.length === 2, 'the later event');
    expect(seen).toEqual(['a:task-stop:1', 'b:task-stop:2']);
    await next.stop();
  });

  it('has the effect of a redelivered event once (handled ids in the consumer’s database)', async () => {
    await database.db.query('CREATE TABLE IF NOT EXISTS effects (event_id text NOT NULL, n integer NOT NULL)');
    const consumer = group();
    let deliveries = 0;
    const handler = handleOnce(database.db, consumer, async (e, tx) => {
      await tx.query('INSERT INTO effects (event_id, n) VALUES ($1, $2)', [e.id, n(e)]);
      return 'done';
    });
    const member = await fixture.replica().subscribe({
      group: consumer,
      types: ['task.status-changed'],
      handler: async (e) => (ours(e) ? (deliveries++, handler(e)) : 'skipped'),
    });
    const once = event('task-dup', 7);
    // A relay that published and then crashed before marking the row sent publishes it again.
    await publisher.publish([once]);
    await publisher.publish([once, event('task-dup', 8)]);
    await waitFor(() => deliveries >= 3, 'three deliveries');
    const { rows } = await database.db.query<{ event_id: string; n: number }>('SELECT event_id, n FROM effects ORDER BY n');
    expect(rows.filter((r) => r.event_id === once.id)).toHaveLength(1);
    expect(rows.map((r) => r.n)).toEqual([7, 8]);
    await member.stop();
  });

  it('dead-letters an event after bounded retries, with its error, and moves on', async () => {
    const seen: string[] = [];
    let attempts = 0;
    const failing: EventHandler = async (e) => {
      if (n(e) === 1) {
        attempts++;
        throw new Error('downstream refused');
      }
      return 'done';
    };
    const g = group();
    const member = await fixture.replica().subscribe({ group: g, types: ['task.status-changed'], handler: recorder('a', seen, failing) });
    await publisher.publish([event('task-dlq', 1), event('task-dlq', 2)]);
    const deadLetters: DeadLetter[] = [];
    const reader = await fixture.replica().subscribeDeadLetters({
      group: `${g}-dlq`,
      types: ['task.status-changed'],
      handler: async (d) => void (ours(d.event) && deadLetters.push(d)),
    });
    await waitFor(() => deadLetters.length === 1 && seen.includes('a:task-dlq:2'), 'the dead letter and the next event');
    expect(attempts).toBe(MAX_ATTEMPTS);
    expect(deadLetters[0]).toMatchObject({
      group: g,
      error: 'downstream refused',
      attempts: MAX_ATTEMPTS,
      event: { key: 'task-dlq', payload: { n: 1 } },
    });
    await Promise.all([member.stop(), reader.stop()]);
  });
});
