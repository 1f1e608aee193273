import { ApiError } from '@vus/core';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClientType } from 'redis';
import { DIMENSION_RULES, limitsOf, rateLimitMessage, type Category, type Dimension, type DimensionKind, type RateLimit } from './policy';

/** Where one dimension of one (organization, category) stands, in counter units. */
export interface DimensionState {
  dimension: Dimension;
  /** The published limit (requests, minutes, thousands of tokens). */
  limit: number;
  /** Counter units left in the window (requests, seconds, tokens); never negative. */
  remainingUnits: number;
  resetAt: Date;
}

export type Admission =
  { admitted: true; states: DimensionState[] } | { admitted: false; states: DimensionState[]; exceeded: DimensionState };

/**
 * Makes one limiter per (dimension, points). Counters are keyed by dimension and
 * `<org>:<category>`, not by points, so a plan change keeps the window's count.
 */
export interface LimiterSource {
  limiter(dimension: Dimension, points: number): RateLimiterAbstract;
}

const KEY_PREFIX = 'vus:rl';

/** Embedded mode and tests: counters in this process (a changed limit starts new windows). */
export function memoryLimiters(): LimiterSource {
  return cached(
    (dimension, points) =>
      new RateLimiterMemory({ keyPrefix: `${KEY_PREFIX}:${dimension}`, points, duration: DIMENSION_RULES[dimension].windowSeconds }),
  );
}

/**
 * Cluster mode: counters shared in Redis. When Redis is unreachable each process falls back to
 * its own memory counters with the same limits (the documented "per-process limits" policy), and
 * returns to Redis once the client reconnects.
 */
export function redisLimiters(client: RedisClientType): LimiterSource {
  return cached((dimension, points) => {
    const options = { keyPrefix: `${KEY_PREFIX}:${dimension}`, points, duration: DIMENSION_RULES[dimension].windowSeconds };
    return new RateLimiterRedis({
      ...options,
      storeClient: client,
      useRedisPackage: true,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  });
}

function cached(make: (dimension: Dimension, points: number) => RateLimiterAbstract): LimiterSource {
  const limiters = new Map<string, RateLimiterAbstract>();
  return {
    limiter(dimension, points) {
      const id = `${dimension}:${points}`;
      let limiter = limiters.get(id);
      if (!limiter) {
        limiter = make(dimension, points);
        limiters.set(id, limiter);
      }
      return limiter;
    },
  };
}

function limitsOfKind(limits: readonly RateLimit[], category: Category, kind: DimensionKind): RateLimit[] {
  return limits.filter((l) => l.category === category && DIMENSION_RULES[l.dimension].kind === kind);
}

function unitsOf(limit: RateLimit): number {
  return Math.round(limit.limit * DIMENSION_RULES[limit.dimension].unitsPerLimitUnit);
}

function counterKey(orgId: string, category: Category): string {
  return `${orgId}:${category}`;
}

function stateOf(limit: RateLimit, res: RateLimiterRes | null, now: number): DimensionState {
  const units = unitsOf(limit);
  const used = res?.consumedPoints ?? 0;
  const windowMs = DIMENSION_RULES[limit.dimension].windowSeconds * 1000;
  return {
    dimension: limit.dimension,
    limit: limit.limit,
    remainingUnits: Math.max(0, units - used),
    resetAt: new Date(now + (res ? Math.max(0, res.msBeforeNext) : windowMs)),
  };
}

/** rate-limiter-flexible rejects with a RateLimiterRes; anything else is a store failure. */
async function settle(promise: Promise<RateLimiterRes>): Promise<{ ok: boolean; res: RateLimiterRes }> {
  try {
    return { ok: true, res: await promise };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { ok: false, res: error };
    throw error;
  }
}

/** The reset the client must wait for when several dimensions are exhausted: the latest one. */
function latestReset(states: DimensionState[]): DimensionState {
  return states.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
}

export function tooManyRequests(state: DimensionState): ApiError {
  return new ApiError('too_many_requests', rateLimitMessage(state.dimension, state.limit, state.resetAt));
}

/**
 * The usage counters of SPEC §8 for one deployment. Request dimensions are consumed when a
 * request arrives; duration and token dimensions are budgets: a request is admitted while any
 * budget is left, and what it used is debited once known (after probing, after generation).
 */
export class UsageCounters {
  constructor(private readonly source: LimiterSource) {}

  private limiterOf(limit: RateLimit): RateLimiterAbstract {
    return this.source.limiter(limit.dimension, unitsOf(limit));
  }

  /**
   * Checks every applicable dimension of a category and takes `units` requests (1; more for a
   * request that does the work of several, see requestUnits) from each request dimension. A
   * rejected request takes nothing: whatever was consumed is refunded.
   */
  async admitRequest(orgId: string, category: Category, limits: readonly RateLimit[], units = 1): Promise<Admission> {
    const key = counterKey(orgId, category);
    const applicable = limitsOf(limits, category);
    const now = Date.now();
    const outcomes = await Promise.all(
      applicable.map(async (limit) => {
        const limiter = this.limiterOf(limit);
        if (DIMENSION_RULES[limit.dimension].kind === 'request') {
          const { ok, res } = await settle(limiter.consume(key, units));
          const state = stateOf(limit, res, now);
          // Where the window stands once these units are given back (a refusal takes nothing).
          const refunded = { ...state, remainingUnits: Math.max(0, unitsOf(limit) - Math.max(0, res.consumedPoints - units)) };
          return { limit, limiter, consumed: true, ok, state, refunded };
        }
        const res = await limiter.get(key);
        const state = stateOf(limit, res, now);
        return { limit, limiter, consumed: false, ok: state.remainingUnits > 0, state, refunded: state };
      }),
    );
    const states = outcomes.map((o) => o.state);
    const rejected = outcomes.filter((o) => !o.ok);
    if (rejected.length === 0) return { admitted: true, states };

    // Rejected consumes still count in rate-limiter-flexible, so every consume is given back.
    await Promise.all(outcomes.filter((o) => o.consumed).map((o) => o.limiter.reward(key, units)));
    return { admitted: false, states: outcomes.map((o) => o.refunded), exceeded: latestReset(rejected.map((o) => o.state)) };
  }

  /** Gives back the requests an admitted request took (its sibling category, or its later weight, was refused). */
  async refundRequest(orgId: string, category: Category, limits: readonly RateLimit[], units = 1): Promise<void> {
    const key = counterKey(orgId, category);
    await Promise.all(limitsOfKind(limits, category, 'request').map((l) => this.limiterOf(l).reward(key, units)));
  }

  /**
   * Refuses `units` of a budget (seconds of media, output tokens) that exceed what is left in
   * any window, else debits them. For a video longer than the minutes left, say.
   */
  async reserve(
    orgId: string,
    category: Category,
    kind: Exclude<DimensionKind, 'request'>,
    units: number,
    limits: readonly RateLimit[],
  ): Promise<void> {
    const key = counterKey(orgId, category);
    const now = Date.now();
    const states = await Promise.all(
      limitsOfKind(limits, category, kind).map(async (l) => stateOf(l, await this.limiterOf(l).get(key), now)),
    );
    const short = states.filter((s) => s.remainingUnits < units);
    if (short.length > 0) throw tooManyRequests(latestReset(short));
    await this.debit(orgId, category, kind, units, limits);
  }

  /** Debits what a request used once it is known; never rejects (the request already ran). */
  async debit(
    orgId: string,
    category: Category,
    kind: Exclude<DimensionKind, 'request'>,
    units: number,
    limits: readonly RateLimit[],
  ): Promise<void> {
    if (units <= 0) return;
    const key = counterKey(orgId, category);
    await Promise.all(limitsOfKind(limits, category, kind).map((l) => this.limiterOf(l).penalty(key, Math.ceil(units))));
  }
}
