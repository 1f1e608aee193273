import { createLogger, withCaller } from '@vus/core';
import { migrate } from '@vus/db';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import {
  buildEvent,
  enqueueEvents,
  EVENTS_MIGRATIONS,
  InProcessEventBus,
  markHandled,
  OutboxRelay,
  parseEnvelope,
  type EventBus,
  type EventEnvelope,
  type SubscriptionHandle,
} from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });

/**
 * A bus that fails while `down` is set, like a broker outage. The relay only publishes, so
 * subscribing is refused rather than faked: a relay that started to subscribe would fail here.
 */
class FlakyBus implements EventBus {
  down = false;
  readonly published: EventEnvelope[] = [];
  async publish(events: readonly EventEnvelope[]) {
    if (this.down) throw new Error('broker unreachable');
    this.published.push(...events);
  }
  async subscribe(): Promise<SubscriptionHandle> {
    throw new Error('FlakyBus: the outbox relay only publishes');
  }
  async subscribeDeadLetters(): Promise<SubscriptionHandle> {
    throw new Error('FlakyBus: the outbox relay only publishes');
  }
  async close() {}
}

describe.each(DATABASE_KINDS)('outbox on %s', (_kind, create) => {
  let database: ThrowawayDatabase;

  beforeAll(async () => {
    database = await create();
    await migrate(database.db, EVENTS_MIGRATIONS);
  });
  afterAll(() => database.drop());
  beforeEach(() => database.db.query('TRUNCATE outbox, handled_events'));

  it('publishes committed events in order and marks them sent', async () => {
    const bus = new FlakyBus();
    const events = Array.from({ length: 5 }, (_, n) => buildEvent('task.status-changed', 'task-1', null, { n }));
    await database.db.withTx((tx) => enqueueEvents(tx, events));
    const relay = new OutboxRelay({ db: database.db, bus, logger });
    expect(await relay.relayOnce()).toBe(5);
    expect(await relay.relayOnce()).toBe(0);
    expect(bus.published.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(bus.published[0]).toEqual(events[0]);
  });

  it('carries the request id of the call it was written for to the bus', async () => {
    const bus = new FlakyBus();
    const onBehalf = withCaller({ requestId: 'req-7' }, () => buildEvent('task.status-changed', 'task-1', null, {}));
    const own = buildEvent('task.status-changed', 'task-1', null, {});
    await database.db.withTx((tx) => enqueueEvents(tx, [onBehalf, own]));
    await new OutboxRelay({ db: database.db, bus, logger }).relayOnce();
    expect(bus.published.map((e) => e.request_id)).toEqual(['req-7', undefined]);
    expect(parseEnvelope(JSON.stringify(bus.published[0])).request_id).toBe('req-7');
  });

  it('writes nothing when the transaction rolls back', async () => {
    await expect(
      database.db.withTx(async (tx) => {
        await enqueueEvents(tx, [buildEvent('index.deleted', 'i', null, {})]);
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    const { rows } = await database.db.query('SELECT count(*)::int AS n FROM outbox');
    expect(rows[0]!.n).toBe(0);
  });

  it('keeps events through an outage and sends each once afterwards', async () => {
    const bus = new FlakyBus();
    const relay = new OutboxRelay({ db: database.db, bus, logger });
    bus.down = true;
    await database.db.withTx((tx) => enqueueEvents(tx, [buildEvent('index.created', 'a', null, { n: 1 })]));
    await expect(relay.relayOnce()).rejects.toThrow('broker unreachable');
    await database.db.withTx((tx) => enqueueEvents(tx, [buildEvent('index.created', 'a', null, { n: 2 })]));
    bus.down = false;
    await relay.relayOnce();
    expect(bus.published.map((e) => e.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    const { rows } = await database.db.query('SELECT attempts, last_error FROM outbox ORDER BY seq');
    expect(rows[0]).toMatchObject({ attempts: 2, last_error: 'broker unreachable' });
  });

  it('runs on its own once started and reaches in-process subscribers', async () => {
    const bus = new InProcessEventBus();
    const received: string[] = [];
    await bus.subscribe({ group: 'g', types: ['index.deleted'], handler: async (e) => (received.push(e.key), 'done') });
    const relay = new OutboxRelay({ db: database.db, bus, logger, pollMs: 20 });
    relay.start();
    await database.db.withTx((tx) => enqueueEvents(tx, [buildEvent('index.deleted', 'idx-9', null, {})]));
    relay.wake();
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await relay.stop();
    await bus.drain();
    expect(received).toEqual(['idx-9']);
  });

  it('is safe with two replicas: each event published once, in order', async () => {
    /** A slow broker, so that the replicas' polls overlap. */
    class SlowBus extends FlakyBus {
      override async publish(events: readonly EventEnvelope[]) {
        await new Promise((r) => setTimeout(r, 5));
        await super.publish(events);
      }
    }
    const bus = new SlowBus();
    const events = Array.from({ length: 60 }, (_, n) => buildEvent('task.status-changed', `task-${n % 3}`, null, { n }));
    const replicas = [1, 2].map(() => new OutboxRelay({ db: database.db, bus, logger, batchSize: 7 }));
    // Both replicas relay while the events are still being written, and until 20 idle polls after
    // the last write (counting idle polls from the start let a busy machine's slow writes arrive after
    // both replicas had stopped: 6 of 60 events published, CI on 2026-11-29).
    let writing = true;
    const relaying = replicas.map(async (relay) => {
      for (let idle = 0; idle < 20;) idle = (await relay.relayOnce()) === 0 && !writing ? idle + 1 : 0;
    });
    for (let i = 0; i < events.length; i += 10) await database.db.withTx((tx) => enqueueEvents(tx, events.slice(i, i + 10)));
    writing = false;
    await Promise.all(relaying);
    await Promise.all(replicas.map((relay) => relay.relayOnce()));
    expect(bus.published.map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('remembers handled events', async () => {
    expect(await markHandled(database.db, 'consumer', 'e1')).toBe(true);
    expect(await markHandled(database.db, 'consumer', 'e1')).toBe(false);
    expect(await markHandled(database.db, 'other', 'e1')).toBe(true);
  });
});
