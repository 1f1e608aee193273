import type { BlobStore } from '@vus/blob';
import { envAddress, envBoolean, isApiError, type Logger } from '@vus/core';
import { createBillingClient } from '@vus/clients';
import type { ModelRegistry } from '@vus/models';
import { z } from 'zod';
import type { MediaMeter } from './pipeline-deps';
import type { IndexingWorkerConfig } from './start';

/** The worker's environment, to merge into a process's config schema. */
export const workerEnvShape = {
  /** Run the indexing worker in the task-service process. */
  WORKER_ENABLED: envBoolean.default(true),
  /** Tasks indexed at once (CPU: ffmpeg and the models). */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /** video_url downloads at once, in slots of their own (I/O: a slow download never holds an indexing slot). */
  WORKER_FETCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** At most this many downloads of one organization at once by all workers together. */
  WORKER_FETCH_ORG_LIMIT: z.coerce.number().int().min(1).default(2),
  WORKER_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
  WORKER_POLL_MS: z.coerce.number().int().min(100).default(5_000),
  WORKER_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(3),
  /**
   * At most this many tasks of one organization indexed at once by all workers together; unset: no
   * cap. (Without it, a worker with two slots or more still gives its last free slot to another
   * organization's due task first.)
   */
  WORKER_ORG_LIMIT: z.coerce.number().int().min(1).optional(),
  WORKER_FRAMES_PER_SECOND: z.coerce.number().positive().max(30).default(1),
  WORK_DIR: z.string().min(1).optional(),
  /**
   * Hosts (names or IP literals, comma-separated) that video_url / transcription_url may reach even
   * on private or loopback addresses. For tests and trusted in-cluster sources only.
   */
  FETCH_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    ),
  FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 ** 3),
  /** The whole download of a video_url / transcription_url (default 1 h). */
  FETCH_OVERALL_TIMEOUT_MS: z.coerce.number().int().min(1_000).optional(),
  /** The slowest download accepted, averaged over 30 s (default 32 KiB/s; 0 turns the floor off). */
  FETCH_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).optional(),
  SEARCH_SERVICE_ADDR: envAddress.optional(),
  /** embed-service, the model server: clip vectors (unset: videos are indexed without them). */
  EMBED_SERVICE_ADDR: envAddress.optional(),
  /** Media minutes are reserved against the organization's limits (SPEC §8) in billing-service. */
  BILLING_SERVICE_ADDR: envAddress.optional(),
};

export const workerEnvSchema = z.object(workerEnvShape);
export type WorkerEnv = z.infer<typeof workerEnvSchema>;

/**
 * The worker's configuration from a parsed environment. Media minutes are reserved (SPEC §8) when
 * billing-service is configured; their spend is the task's usage event either way.
 */
export function workerConfigFromEnv(
  env: WorkerEnv,
  blobs: BlobStore,
  models: ModelRegistry,
  logger: Logger,
): Omit<IndexingWorkerConfig, 'indexServiceAddress'> {
  return {
    blobs,
    models,
    meter: env.BILLING_SERVICE_ADDR ? mediaMeter(env.BILLING_SERVICE_ADDR, logger).meter : undefined,
    searchServiceAddress: env.SEARCH_SERVICE_ADDR,
    embedServiceAddress: env.EMBED_SERVICE_ADDR,
    fetch: {
      allowHosts: env.FETCH_ALLOW_HOSTS,
      maxBytes: env.FETCH_MAX_BYTES,
      ...(env.FETCH_OVERALL_TIMEOUT_MS !== undefined ? { overallTimeoutMs: env.FETCH_OVERALL_TIMEOUT_MS } : {}),
      ...(env.FETCH_MIN_BYTES_PER_SECOND !== undefined ? { minBytesPerSecond: env.FETCH_MIN_BYTES_PER_SECOND } : {}),
    },
    workRoot: env.WORK_DIR,
    concurrency: env.WORKER_CONCURRENCY,
    fetchConcurrency: env.WORKER_FETCH_CONCURRENCY,
    fetchPerOrgLimit: env.WORKER_FETCH_ORG_LIMIT,
    leaseMs: env.WORKER_LEASE_MS,
    pollMs: env.WORKER_POLL_MS,
    maxAttempts: env.WORKER_MAX_ATTEMPTS,
    perOrgLimit: env.WORKER_ORG_LIMIT,
    framesPerSecond: env.WORKER_FRAMES_PER_SECOND,
  };
}

export interface MediaMeterHandle {
  meter: MediaMeter;
  /** Closes the billing-service client. */
  close(): void;
}

/**
 * Reservations in billing-service, which debits the budgets the gateway admits requests with. A
 * refusal fails the task; while billing-service cannot answer, the video is indexed unreserved
 * (requests keep flowing, as the gateway's limits fall back when billing is down) and its minutes
 * are debited when billing-service consumes the task's usage event.
 */
export function reservingMeter(
  reserve: (orgId: string, reservation: { idempotencyKey: string; category: 'index'; seconds: number }) => Promise<unknown>,
  logger: Logger,
): MediaMeter {
  return {
    async reserveMediaSeconds(orgId, category, seconds, idempotencyKey) {
      try {
        await reserve(orgId, { idempotencyKey, category, seconds });
      } catch (error) {
        if (isApiError(error) && error.code === 'too_many_requests') throw error;
        logger.warn({ err: error, orgId, idempotencyKey }, 'billing-service could not reserve the media minutes: indexed unreserved');
      }
    },
  };
}

/** The worker's MediaMeter on billing-service at `billingAddress`. */
export function mediaMeter(billingAddress: string, logger: Logger): MediaMeterHandle {
  const billing = createBillingClient(billingAddress);
  return {
    meter: reservingMeter((orgId, reservation) => billing.reserveMediaSeconds(orgId, reservation), logger),
    close: () => billing.close(),
  };
}
