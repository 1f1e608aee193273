import { jitteredBackoff } from '@vus/core';

/** Pure rules of the job queue: states, retries, fairness. No I/O, no clock. */

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** What happens to a job; each is refused (null) from a state it cannot come from. */
export type JobEvent = 'claim' | 'takeover' | 'succeed' | 'fail' | 'retry' | 'hand-back' | 'cancel';

/**
 * The job's state machine:
 *
 *   queued ──claim──→ running ──succeed──→ succeeded
 *      ↑                │  ↺ takeover       fail──→ failed
 *      └─retry/hand-back┘                  cancel (from queued or running) → cancelled
 *
 * A running job whose lease expired is taken over (claimed again) without passing through queued.
 */
export function nextJobState(state: JobState, event: JobEvent): JobState | null {
  switch (event) {
    case 'claim':
      return state === 'queued' ? 'running' : null;
    case 'takeover':
      return state === 'running' ? 'running' : null;
    case 'succeed':
      return state === 'running' ? 'succeeded' : null;
    case 'fail':
      return state === 'running' ? 'failed' : null;
    case 'retry':
    case 'hand-back':
      return state === 'running' ? 'queued' : null;
    case 'cancel':
      return state === 'queued' || state === 'running' ? 'cancelled' : null;
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
export function retryAt(now: Date, attempts: number, maxAttempts: number, policy: RetryPolicy, random: () => number = Math.random): Date | null {
  if (attempts >= maxAttempts) return null;
  return new Date(now.getTime() + retryDelayMs(policy, attempts, random));
}

/**
 * Organizations that may not take this runner's next free slot: when only one slot is left, every
 * organization already running a job here. So with two slots or more, one organization never
 * holds all of them, and another organization's job starts without waiting for its jobs to end.
 * (With one slot there is nothing to keep back.)
 */
export function orgsKeptOut(runningOrgs: readonly string[], concurrency: number): string[] {
  const free = concurrency - runningOrgs.length;
  if (concurrency < 2 || free !== 1) return [];
  return [...new Set(runningOrgs)].sort();
}
