/**
 * The minutes and tokens budgets of SPEC §8 (DPH/DPD, TPM/TPD), debited as usage is recorded.
 * The gateway admits requests on the usage counters (libs/limits) and counts the requests itself;
 * what a request used is known only later (a probed video, a finished generation), reported by its
 * producer as a `usage.recorded` event, and debited here, once per usage, from the same counters.
 * A video is reserved before it is indexed (ReserveUsage: a video longer than the minutes left is
 * refused); its event then debits nothing twice.
 */
import { isCategory, type Category, type Meter } from '@vus/limits';
import type { UsageKind } from '@vus/events';

/** Which usage keys had their minutes reserved. */
export interface ReservationStore {
  /**
   * Runs `debit` once per (organization, key): false, running nothing, when the key was reserved
   * before; a `debit` that throws (a refusal) leaves no reservation.
   */
  reserveOnce(orgId: string, reservation: Reservation, debit: () => Promise<void>): Promise<boolean>;
  isReserved(orgId: string, idempotencyKey: string): Promise<boolean>;
}

export interface Reservation {
  idempotencyKey: string;
  category: Category;
  seconds: number;
  reservedAt: Date;
}

/** The counters' budget a usage kind is debited from; requests are counted by the gateway as they arrive. */
const BUDGET_OF: Readonly<Record<UsageKind, 'duration' | 'output_token' | undefined>> = {
  media_seconds: 'duration',
  output_tokens: 'output_token',
  requests: undefined,
};

export interface RecordedUsage {
  idempotencyKey: string;
  kind: UsageKind;
  quantity: number;
  category?: string | undefined;
}

export function createUsageBudgets(deps: { meter: Meter | undefined; reservations: ReservationStore; now: () => Date }) {
  const { meter, reservations } = deps;
  return {
    /** Whether this deployment has counters to debit (Redis in a cluster; the gateway's memory in embedded mode). */
    enabled: meter !== undefined,

    /** Refuses (too_many_requests) a video longer than the minutes left, else debits it; once per key. */
    async reserve(orgId: string, input: Omit<Reservation, 'reservedAt'>): Promise<{ duplicate: boolean }> {
      if (!meter) return { duplicate: false };
      const reserved = await reservations.reserveOnce(orgId, { ...input, reservedAt: deps.now() }, () =>
        meter.reserveMediaSeconds(orgId, input.category, input.seconds),
      );
      return { duplicate: !reserved };
    },

    /**
     * Debits a usage the ledger took for the first time (a duplicate was debited with its first
     * copy), unless its minutes were reserved already or it names no category with budgets.
     */
    async debitRecorded(orgId: string, usage: RecordedUsage): Promise<void> {
      const budget = BUDGET_OF[usage.kind];
      if (!meter || !budget || !usage.category || !isCategory(usage.category) || usage.quantity <= 0) return;
      if (budget === 'duration' && (await reservations.isReserved(orgId, usage.idempotencyKey))) return;
      await meter.debit(orgId, usage.category, budget, usage.quantity);
    },
  };
}

export type UsageBudgets = ReturnType<typeof createUsageBudgets>;
