import { jitteredBackoff } from '@vus/core';

/** Pure rules of the job queue: the end of a run, retries, fairness. No I/O, no clock. */

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/**
 * The job's states:
 *
 *   queued ──claim──→ running ──→ succeeded | failed          (endOfRun)
 *      ↑                │  ↺ takeover: claimed again once its lease expired
 *      └── requeue ─────┘ (a retry, or handed back by a runner that stops)
 *   queued | running ──cancel──→ cancelled
 */
export type JobOutcome =
  | { kind: 'succeeded' }
  | { kind: 'failed'; error: string }
  /** A passing problem: queued again at the retry time, or failed when no attempt is left. */
  | { kind: 'retry'; error: string }
  /** The run lost its lease or was aborted: whoever holds the job now carries on. */
  | { kind: 'lost' };

/** What the runner writes once a run ended. */
export type RunEnd =
  | { write: 'finish'; state: 'succeeded' }
  | { write: 'finish'; state: 'failed'; error: string }
  | { write: 'requeue'; runAt: Date; error?: string }
  /** Nothing: the job is someone else's now (or will be, once its lease expires). */
  | { write: 'nothing' };

/**
 * The end of a run: `retryAt` is the kind's retry time (null when the attempt was the last);
 * `stopping` says the runner is shutting down, so a run it aborted is handed back at `now`.
 */
export function endOfRun(outcome: JobOutcome, retryAt: Date | null, stopping: boolean, now: Date): RunEnd {
  switch (outcome.kind) {
    case 'succeeded':
      return { write: 'finish', state: 'succeeded' };
    case 'failed':
      return { write: 'finish', state: 'failed', error: outcome.error };
    case 'retry':
      return retryAt
        ? { write: 'requeue', runAt: retryAt, error: outcome.error }
        : { write: 'finish', state: 'failed', error: outcome.error };
    case 'lost':
      return stopping ? { write: 'requeue', runAt: now } : { write: 'nothing' };
  }
}

/**
 * When a failed attempt is tried again. The one retry policy of the project's background work:
 * exponential from `baseMs` (doubling per attempt, capped at `maxMs`), jittered over the upper half
 * so replicas do not retry in step (libs/core `jitteredBackoff`, which the Poller uses too).
 */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
}

/** The delay after attempt `attempts` (1 = the first) failed: base, 2×base, 4×base … (each 50–100%). */
export function retryDelayMs(policy: RetryPolicy, attempts: number, random: () => number = Math.random): number {
  return jitteredBackoff(policy.baseMs, policy.maxMs, Math.max(0, attempts - 1), random);
}

/** When to try again after attempt `attempts` failed; null when it was the last one allowed. */
export function retryAt(
  now: Date,
  attempts: number,
  maxAttempts: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): Date | null {
  if (attempts >= maxAttempts) return null;
  return new Date(now.getTime() + retryDelayMs(policy, attempts, random));
}

/**
 * Organizations that take this runner's next free slot only when no other organization has a job
 * due: when only one slot is left, every organization already running a job here. Work-conserving
 * fairness: one organization's queue fills every slot while nobody else waits (a core idle helps no
 * one), and another organization's job that comes later takes the next slot that frees, since the
 * claim order (nextToClaim) puts the organization with fewer running jobs first. With one slot there
 * is nobody to put after anyone.
 */
export function orgsAfterOthers(runningOrgs: readonly string[], concurrency: number): string[] {
  const free = concurrency - runningOrgs.length;
  if (concurrency < 2 || free !== 1) return [];
  return [...new Set(runningOrgs)].sort();
}

/** One organization's first due job of a kind, as a claim sees it. */
export interface ClaimCandidate {
  id: string;
  orgId: string;
  runAt: Date;
  /** Jobs of the organization running now (the claim's kinds, in every runner). */
  running: number;
  /** When a job of the organization (this kind) was last claimed; null: never, or so long ago that it was pruned. */
  lastClaimedAt: Date | null;
}

export interface ClaimLimits {
  /** Organizations whose jobs go only when no other organization's is due (the runner's last free slot; see orgsAfterOthers). */
  afterOthers?: readonly string[] | undefined;
  /** At most this many running jobs per organization. */
  perOrgLimit?: number | undefined;
}

/**
 * The job a claim takes, round robin between organizations: the organization with the fewest jobs
 * running, then the one whose turn came longest ago (never first), then the job due first. So a
 * second organization's job is next once the current one ends, however many jobs the first one
 * queued before it (a FIFO would run all of those first). Organizations `afterOthers` come only
 * when no other organization has a candidate; an organization at `perOrgLimit` not at all.
 */
export function nextToClaim(candidates: readonly ClaimCandidate[], limits: ClaimLimits = {}): ClaimCandidate | undefined {
  const afterOthers = new Set(limits.afterOthers ?? []);
  const allowed = candidates.filter((c) => limits.perOrgLimit === undefined || c.running < limits.perOrgLimit);
  const others = allowed.filter((c) => !afterOthers.has(c.orgId));
  return firstInClaimOrder(others) ?? firstInClaimOrder(allowed);
}

function firstInClaimOrder(candidates: readonly ClaimCandidate[]): ClaimCandidate | undefined {
  return candidates.reduce<ClaimCandidate | undefined>((best, c) => (!best || claimOrder(c, best) < 0 ? c : best), undefined);
}

/** Negative when `a` goes before `b` (see nextToClaim). */
function claimOrder(a: ClaimCandidate, b: ClaimCandidate): number {
  const turn = (c: ClaimCandidate) => (c.lastClaimedAt === null ? Number.NEGATIVE_INFINITY : c.lastClaimedAt.getTime());
  const compare = (x: number | string, y: number | string) => (x < y ? -1 : x > y ? 1 : 0);
  return compare(a.running, b.running) || compare(turn(a), turn(b)) || compare(a.runAt.getTime(), b.runAt.getTime()) || compare(a.id, b.id);
}
