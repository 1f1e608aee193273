import type { EventEnvelope } from '@vus/events';
import type { TaskStatus } from './status';
import type { ExtractorReport, SystemMetadata, TaskFailure, TaskHls, TaskRecord } from './tasks';

/**
 * Work on a task is done under a lease: a worker claims the task until `leaseExpiresAt` and
 * renews the lease while it works. A worker that dies stops renewing; once the lease has expired
 * any worker may claim the task again and carry on from its status. Every write checks that the
 * writer still holds the lease, so a worker that lost it (paused, partitioned) changes nothing.
 */
export interface ClaimedTask extends TaskRecord {
  leaseOwner: string;
  leaseExpiresAt: Date;
  /** Claims so far, this one included. */
  attempts: number;
  /** The media minutes were reserved with the Meter (done once per task). */
  mediaReserved: boolean;
  /**
   * A worker began reserving the media minutes (recorded before it asks the Meter). Set while
   * `mediaReserved` is not: that worker died or failed in between, and may have debited the
   * usage counters already.
   */
  mediaReserveStarted: boolean;
}

/** Fields the worker fills in as the task moves on. */
export interface TaskChanges {
  mediaBlobKey?: string;
  system?: SystemMetadata;
  progress?: number;
  failure?: TaskFailure;
  mediaReserved?: boolean;
  mediaReserveStarted?: boolean;
  extractors?: ExtractorReport;
  hls?: TaskHls;
}

export interface TaskUpdate {
  /** A status change; refused (undefined result) unless the task is still in `from`. */
  status?: { from: TaskStatus; to: TaskStatus };
  changes?: TaskChanges;
}

export interface TaskLeaseStore {
  /**
   * Takes the oldest task in one of `statuses` that no live lease holds, leases it to `owner`
   * until `now + leaseMs` and counts the attempt. Concurrent claimers never get the same task.
   */
  claim(owner: string, statuses: readonly TaskStatus[], now: Date, leaseMs: number): Promise<ClaimedTask | undefined>;
  /** Extends the lease; false when `owner` no longer holds it. */
  renew(id: string, owner: string, now: Date, leaseMs: number): Promise<boolean>;
  /**
   * Applies the update if `owner` still holds a live lease, writing a status change to the history
   * and the events built from the updated task in the same transaction. Undefined when refused.
   */
  update(id: string, owner: string, now: Date, update: TaskUpdate, events: (task: TaskRecord) => EventEnvelope[]): Promise<TaskRecord | undefined>;
  /** Gives the task up; nobody claims it again before `retryAt`. */
  release(id: string, owner: string, retryAt: Date): Promise<void>;
}

/** How long to leave a task alone after a retryable failure: 5 s, 20 s, 80 s … at most 10 min. */
export function retryDelayMs(attempts: number): number {
  return Math.min(600_000, 5_000 * 4 ** Math.max(0, attempts - 1));
}
