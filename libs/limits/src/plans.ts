import type { Logger } from '@vus/core';
import type { Plan } from '@vus/grpc/types/billing/v1/Plan';
import { FREE_PLAN_LIMITS, isCategory, isDimension, type LimitTable, type RateLimit } from './policy';

/** Plan limits from the wire; pairs this build does not know are dropped rather than guessed. */
export function limitTableOf(plan: Plan): LimitTable {
  return plan.limits.flatMap((l): RateLimit[] =>
    isCategory(l.category) && isDimension(l.dimension) ? [{ category: l.category, dimension: l.dimension, limit: Number(l.limit) }] : [],
  );
}

/** An organization's effective limits (its plan's, or its Enterprise contract's). */
export interface LimitsSource {
  limitsFor(orgId: string): Promise<LimitTable>;
}

export function staticLimits(table: LimitTable = FREE_PLAN_LIMITS): LimitsSource {
  return { limitsFor: () => Promise.resolve(table) };
}

export interface CachedLimitsOptions {
  /** How long a plan's limits are used before asking again: a tier change takes effect within this. */
  ttlMs?: number;
  logger: Logger;
  now?: () => number;
}

/**
 * Limits fetched from billing-service and kept briefly per organization. While billing is
 * unreachable, the last known limits are used, else the Free plan's: requests keep flowing, and
 * no organization gets more than it had.
 */
export function cachedLimits(fetch: (orgId: string) => Promise<LimitTable>, options: CachedLimitsOptions): LimitsSource {
  const ttlMs = options.ttlMs ?? 5_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { table: LimitTable; fetchedAt: number }>();
  const inFlight = new Map<string, Promise<LimitTable>>();

  const refresh = (orgId: string): Promise<LimitTable> => {
    const pending = inFlight.get(orgId);
    if (pending) return pending;
    const request = fetch(orgId)
      .then((table) => {
        cache.set(orgId, { table, fetchedAt: now() });
        return table;
      })
      .catch((error: unknown) => {
        options.logger.warn({ err: String(error), orgId }, 'billing-service unreachable: using the last known or Free limits');
        return cache.get(orgId)?.table ?? FREE_PLAN_LIMITS;
      })
      .finally(() => inFlight.delete(orgId));
    inFlight.set(orgId, request);
    return request;
  };

  return {
    limitsFor(orgId) {
      const cached = cache.get(orgId);
      if (cached && now() - cached.fetchedAt < ttlMs) return Promise.resolve(cached.table);
      return refresh(orgId);
    },
  };
}
