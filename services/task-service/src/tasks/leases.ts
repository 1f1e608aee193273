import type { EventEnvelope } from '@vus/events';
import type { ClaimedJob } from '@vus/jobs';
import type { TaskStatus } from './status';
import type { ExtractorReport, SystemMetadata, TaskFailure, TaskHls, TaskRecord } from './tasks';

/**
 * The jobs (libs/jobs) that carry a task through the worker, one stage each. A `video_url` task
 * starts with its fetch-task job: the download into the blob store, I/O that runs in the fetch
 * stage's own slots; the same transaction that stores the download's key queues its index-task
 * job. An upload starts with its index-task job: validate, reserve, index (CPU: the indexing
 * slots). So a slow download never holds a slot indexing needs. At most one of them is unfinished.
 */
export const FETCH_TASK_JOB = 'fetch-task';
export const INDEX_TASK_JOB = 'index-task';
export const TASK_JOB_KINDS: readonly string[] = [FETCH_TASK_JOB, INDEX_TASK_JOB];

/** The job a new task starts with: a URL is fetched first, an upload is already stored (an image's still is CPU: an index-task's). */
export function firstJobKind(source: { kind: 'upload' | 'url' | 'image' }): string {
  return source.kind === 'url' ? FETCH_TASK_JOB : INDEX_TASK_JOB;
}

/**
 * Work on a task is done under the lease of its job (of either kind): a worker claims the job until `leaseExpiresAt` and
 * renews the lease while it works. A worker that dies stops renewing; once the lease has expired
 * any worker may claim the job again and carry on from the task's status. Every write checks that
 * the writer still holds the lease, so a worker that lost it (paused, partitioned) changes nothing.
 */
export interface ClaimedTask extends TaskRecord {
  leaseOwner: string;
  leaseExpiresAt: Date;
  /** Claims so far, this one included. */
  attempts: number;
  /** The media minutes were reserved in billing-service and the usage event written (once per task). */
  mediaReserved: boolean;
}

/** Fields the worker fills in as the task moves on. */
export interface TaskChanges {
  mediaBlobKey?: string;
  system?: SystemMetadata;
  progress?: number;
  failure?: TaskFailure;
  mediaReserved?: boolean;
  extractors?: ExtractorReport;
  hls?: TaskHls;
}

export interface TaskUpdate {
  /** A status change; refused (undefined result) unless the task is still in `from`. */
  status?: { from: TaskStatus; to: TaskStatus };
  changes?: TaskChanges;
  /** Queues the task's job of this kind in the same transaction: the next stage takes the task over. */
  nextJob?: typeof INDEX_TASK_JOB;
}

export interface TaskLeaseStore {
  /** The task of a claimed job, with the job's lease; undefined when the task is gone. */
  load(job: ClaimedJob): Promise<ClaimedTask | undefined>;
  /**
   * Applies the update if `owner` still holds a live lease on the task's job, writing a status
   * change to the history and the events built from the updated task in the same transaction.
   * Undefined when refused.
   */
  update(
    id: string,
    owner: string,
    now: Date,
    update: TaskUpdate,
    events: (task: TaskRecord) => EventEnvelope[],
  ): Promise<TaskRecord | undefined>;
}
