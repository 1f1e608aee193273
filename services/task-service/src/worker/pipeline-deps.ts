import type { BlobStore } from '@vus/blob';
import type { Clock, Logger } from '@vus/core';
import type { FetchPolicy } from '@vus/fetch';
import type { ModelRegistry } from '@vus/models';
import type { IndexClient } from '../index-client';
import type { TaskLeaseStore } from '../tasks/leases';
import type { ClipVectorClient } from './extract/clip-vectors';
import type { SegmentSink } from './segments';

/**
 * Reserves a task's media minutes against the organization's duration budgets (billing-service's
 * ReserveUsage: the worker never touches the rate-limit counters); refuses with
 * `too_many_requests`. Idempotent by key. The spend is the task's `usage.recorded` event.
 */
export interface MediaMeter {
  reserveMediaSeconds(orgId: string, category: 'index', seconds: number, idempotencyKey: string): Promise<void>;
}

/** What a task run uses; each stage takes the part it needs. */
export interface PipelineDeps {
  leases: TaskLeaseStore;
  blobs: BlobStore;
  index: Pick<IndexClient, 'getIndex' | 'getVideo' | 'createVideo' | 'putVideoArtifacts'>;
  models: Pick<ModelRegistry, 'find' | 'status'>;
  /** search-service's ingest; without it segments are not stored (the video cannot be searched). */
  segments?: SegmentSink | undefined;
  /** embed-service, the model server: clip vectors; without it videos are indexed without them (recorded as skipped). */
  clipVectors?: ClipVectorClient | undefined;
  meter?: MediaMeter | undefined;
  fetchPolicy: FetchPolicy;
  /** Transcription files are small: fetched whole within this many bytes. */
  maxTranscriptionBytes: number;
  /** Folder for the worker's temporary files (one subfolder per task run). */
  workRoot: string;
  clock: Clock;
  logger: Logger;
  /** Nudges the outbox relay after a commit that wrote events. */
  eventsWritten: () => void;
  frames: { fps: number; width: number; maxThumbnails: number };
  /** Claims of one task before it is failed (each worker death costs one). */
  maxAttempts: number;
}
