/*
 * The minutes and tokens budgets as billing-service debits them from usage: which ledger unit a
 * usage is priced as, a reservation once per key, and an event debited unless reserved before.
 */
import { isApiError } from '@vus/core';
import { memoryLimiters, Meter, staticLimits, UsageCounters, type LimitTable } from '@vus/limits';
import { createUsageBudgets, type Reservation, type ReservationStore } from '../src/budgets';
import { unitKindOf } from '../src/usage';

describe('unitKindOf', () => {
  it.each([
    ['media_seconds', 'index', 'video_second'],
    ['media_seconds', undefined, 'video_second'],
    ['media_seconds', 'analyze', 'analyze_second'],
    ['media_seconds', 'embed_audio', 'embed_second'],
    ['media_seconds', 'embed_video', 'embed_second'],
    ['output_tokens', 'analyze', 'output_token'],
    ['requests', 'embed_text', 'request'],
  ] as const)('%s in %s is priced as %s', (kind, category, unit) => {
    expect(unitKindOf(kind, category)).toBe(unit);
  });
});

/** Reservations on memory, as store.ts keeps them in a transaction: a refused debit leaves none. */
function memoryReservations(): ReservationStore & { rows: Map<string, Reservation> } {
  const rows = new Map<string, Reservation>();
  return {
    rows,
    async reserveOnce(orgId, reservation, debit) {
      const key = `${orgId}/${reservation.idempotencyKey}`;
      if (rows.has(key)) return false;
      await debit();
      rows.set(key, reservation);
      return true;
    },
    isReserved: async (orgId, key) => rows.has(`${orgId}/${key}`),
  };
}

const LIMITS: LimitTable = [
  { category: 'index', dimension: 'DPH', limit: 1 },
  { category: 'analyze', dimension: 'TPM', limit: 1 },
  { category: 'analyze', dimension: 'DPH', limit: 1 },
];

describe('usage budgets', () => {
  const ORG = 'org-1';
  const setup = () => {
    const counters = new UsageCounters(memoryLimiters());
    const reservations = memoryReservations();
    const budgets = createUsageBudgets({
      meter: new Meter(counters, staticLimits(LIMITS)),
      reservations,
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
    const left = async (category: 'index' | 'analyze') =>
      (await counters.admitRequest(ORG, category, LIMITS)).states.map((s) => [s.dimension, s.remainingUnits]);
    return { budgets, reservations, left };
  };

  it('reserves a video once per key, and refuses one longer than the minutes left without keeping it', async () => {
    const { budgets, reservations, left } = setup();
    expect(await budgets.reserve(ORG, { idempotencyKey: 'task:1', category: 'index', seconds: 40 })).toEqual({ duplicate: false });
    expect(await budgets.reserve(ORG, { idempotencyKey: 'task:1', category: 'index', seconds: 40 })).toEqual({ duplicate: true });
    const refused: unknown = await budgets
      .reserve(ORG, { idempotencyKey: 'task:2', category: 'index', seconds: 30 })
      .catch((e: unknown) => e);
    expect(isApiError(refused) && refused.code).toBe('too_many_requests');
    expect([...reservations.rows.keys()]).toEqual([`${ORG}/task:1`]);
    expect(await left('index')).toEqual([['DPH', 20]]);
  });

  it('debits a recorded usage from its category’s budget, unless its minutes were reserved', async () => {
    const { budgets, left } = setup();
    await budgets.reserve(ORG, { idempotencyKey: 'task:1', category: 'index', seconds: 10 });
    await budgets.debitRecorded(ORG, { idempotencyKey: 'task:1', kind: 'media_seconds', quantity: 10, category: 'index' });
    expect(await left('index')).toEqual([['DPH', 50]]);

    await budgets.debitRecorded(ORG, { idempotencyKey: 'gen:1', kind: 'output_tokens', quantity: 700, category: 'analyze' });
    await budgets.debitRecorded(ORG, { idempotencyKey: 'gen:1/video', kind: 'media_seconds', quantity: 25, category: 'analyze' });
    expect(Object.fromEntries(await left('analyze'))).toEqual({ TPM: 300, DPH: 35 });
  });

  it.each([
    ['requests (the gateway counts them)', { kind: 'requests', quantity: 1, category: 'analyze' }],
    ['no category', { kind: 'output_tokens', quantity: 700 }],
    ['an unknown category', { kind: 'output_tokens', quantity: 700, category: 'carrots' }],
  ] as const)('debits nothing for %s', async (_name, usage) => {
    const { budgets, left } = setup();
    await budgets.debitRecorded(ORG, { idempotencyKey: 'k', ...usage });
    expect(Object.fromEntries(await left('analyze'))).toEqual({ TPM: 1000, DPH: 60 });
  });

  it('without counters (no Redis configured) reserves and debits nothing', async () => {
    const budgets = createUsageBudgets({ meter: undefined, reservations: memoryReservations(), now: () => new Date() });
    expect(budgets.enabled).toBe(false);
    expect(await budgets.reserve(ORG, { idempotencyKey: 'task:1', category: 'index', seconds: 1e6 })).toEqual({ duplicate: false });
  });
});
