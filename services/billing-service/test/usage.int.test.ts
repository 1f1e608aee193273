/*
 * Usage over the bus: a producer's outbox holds `usage.recorded` events while billing-service is
 * down; once billing-service is back (started through the kit, consuming the bus), each usage is in
 * the ledger exactly once — a second event for the same usage and a redelivery count nothing.
 */
import { createLogger, newId } from '@vus/core';
import { migrate } from '@vus/db';
import { createMemoryDatabase, createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import {
  enqueueEvents,
  EVENTS_MIGRATIONS,
  InProcessEventBus,
  OutboxRelay,
  payloadOf,
  usageRecorded,
  type EventEnvelope,
} from '@vus/events';
import { createBillingClient, type BillingClient } from '@vus/clients';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PRICES } from '../src/billing';
import { startBillingService, type RunningBillingService } from '../src/main';

const logger = createLogger({ service: 'usage-test', level: 'silent' });

describe('the usage.recorded schema', () => {
  const valid = { kind: 'media_seconds', quantity: 60, idempotency_key: 'k', occurred_at: '2026-01-10T12:00:00.000Z' };
  it.each([
    ['a valid payload', valid, true],
    ['requests', { ...valid, kind: 'requests', category: 'embed_text' }, true],
    ['an unknown kind', { ...valid, kind: 'carrots' }, false],
    ['a category that is not a string', { ...valid, category: 7 }, false],
    ['a negative quantity', { ...valid, quantity: -1 }, false],
    ['a quantity that is not a number', { ...valid, quantity: '60' }, false],
    ['an empty idempotency key', { ...valid, idempotency_key: '' }, false],
    ['a date that is not one', { ...valid, occurred_at: 'yesterday' }, false],
  ])('%s', (_name, payload, expected) => {
    expect(payloadOf('usage.recorded', { payload }) !== undefined).toBe(expected);
  });
});

describe('usage.recorded across a billing-service outage', () => {
  let billingDb: ThrowawayDatabase;
  let producer: ThrowawayDatabase;
  let bus: InProcessEventBus;
  let relay: OutboxRelay;
  let mailDir: string;
  let running: RunningBillingService | undefined;

  const startBilling = async () => {
    running = await startBillingService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: billingDb.url },
      bus,
      logger,
      mail: { kind: 'folder', dir: mailDir, from: 'billing@test' },
    });
    return running;
  };

  beforeAll(async () => {
    billingDb = await createThrowawayDatabase();
    producer = await createMemoryDatabase();
    await migrate(producer.db, EVENTS_MIGRATIONS);
    mailDir = mkdtempSync(join(tmpdir(), 'vus-usage-mail-'));
    bus = new InProcessEventBus({ logger, retryDelayMs: 10 });
    relay = new OutboxRelay({ db: producer.db, bus, logger });
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await bus?.close();
    await producer?.drop();
    await billingDb?.drop();
    if (mailDir) rmSync(mailDir, { recursive: true, force: true });
  });

  it('counts each usage once when billing-service comes back', async () => {
    const orgId = newId();
    // Billing-service has run before (its consumer group exists), then goes down.
    await (await startBilling()).stop();
    running = undefined;

    const now = new Date();
    const events: EventEnvelope[] = [
      usageRecorded(orgId, { kind: 'media_seconds', quantity: 59.2, idempotencyKey: 'task-1/media', occurredAt: now }),
      usageRecorded(orgId, { kind: 'output_tokens', quantity: 1_000, idempotencyKey: 'gen-1', occurredAt: now }),
      // A retried task reports its media again: another event, the same usage.
      usageRecorded(orgId, { kind: 'media_seconds', quantity: 59.2, idempotencyKey: 'task-1/media', occurredAt: now }),
    ];
    await producer.db.withTx((tx) => enqueueEvents(tx, events));
    expect(await relay.relayOnce()).toBe(3);
    await bus.drain();

    const billing: BillingClient = createBillingClient((await startBilling()).address);
    try {
      const expected = 60 * DEFAULT_PRICES.video_second! + 1_000 * DEFAULT_PRICES.output_token!;
      const monthSpend = async () => Number((await billing.getPlan(orgId)).month_spend_micros);
      for (const deadline = Date.now() + 10_000; (await monthSpend()) < expected; await new Promise((r) => setTimeout(r, 25))) {
        if (Date.now() > deadline) throw new Error(`month spend ${await monthSpend()}, expected ${expected}`);
      }
      await bus.drain();
      expect(await monthSpend()).toBe(expected);

      // The relay publishes a batch again when its commit failed: the same events, delivered twice.
      await bus.publish(events);
      await bus.drain();
      expect(await monthSpend()).toBe(expected);
      expect(bus.deadLetters).toEqual([]);
    } finally {
      billing.close();
    }
  }, 60_000);
});
