import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { createLogger, loadConfig, logLevel, envPort, envAddress, runMain, systemClock, type Clock, type Logger } from '@vus/core';
import { Database, migrate, type DatabaseTarget } from '@vus/db';
import { BILLING_SERVICE_NAME, checkHealth, INDEX_SERVICE_NAME, SEARCH_SERVICE_NAME, TASK_SERVICE_NAME } from '@vus/grpc';
import {
  cachedLimits,
  connectRedis,
  createBillingClient,
  limitTableOf,
  memoryLimiters,
  type LimiterSource,
  redisLimiters,
  staticLimits,
  UsageCounters,
} from '@vus/limits';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { createApp } from './app';
import { createIndexClient, createSearchClient, createTaskClient } from './clients';
import { createThumbnailSigner } from './http/signed-urls';
import { createKeyService, type KeyService } from './keys';
import { DEFAULT_PROVIDERS, type ProviderSettings } from './providers';
import { createKeyStore } from './store';

export const MIGRATIONS = { dir: join(__dirname, '..', 'migrations'), table: 'pgmigrations' };

export interface GatewayOptions {
  host: string;
  port: number;
  database: DatabaseTarget;
  indexServiceAddress: string;
  /** task-service (indexing tasks); without it the task endpoints answer 501. */
  taskServiceAddress?: string | undefined;
  /** search-service; without it the search endpoints answer 501. */
  searchServiceAddress?: string | undefined;
  /** Where POST /tasks streams uploads: the blob store the indexing worker reads. */
  blobs?: BlobStore | undefined;
  /** Largest video upload accepted (bytes); default 2 GiB. */
  uploadMaxBytes?: number | undefined;
  /** Effective limits per organization; without it every organization has the Free plan's. */
  billingServiceAddress?: string | undefined;
  /** Shared rate-limit counters; without it they live in this process (embedded mode). */
  redisUrl?: string | undefined;
  /**
   * The counters' store, when the caller shares it (embedded mode: the indexing worker's Meter
   * debits media minutes from the same budgets the gateway reports). Overrides `redisUrl`.
   */
  limiters?: LimiterSource | undefined;
  /** How long an organization's limits are cached: a tier change takes effect within this. */
  limitsCacheMs?: number;
  /** How long a valid API key is remembered: a revocation reaches other replicas within this. */
  authCacheMs?: number;
  logger: Logger;
  adminToken?: string | undefined;
  bodyLimitBytes?: number;
  requestTimeoutMs?: number;
  migrateOnStart?: boolean;
  /**
   * Key of the HMAC that signs thumbnail URLs; every replica needs the same one. Unset: a random
   * key per process (URLs then die with the process and work only on the replica that made them).
   */
  urlSigningSecret?: string | undefined;
  /** How long a thumbnail URL stays valid. */
  thumbnailUrlTtlSeconds?: number;
  /** Origin of the URLs the gateway hands out (behind a proxy); default: the request's own. */
  publicUrl?: string | undefined;
  /** YouTube and S3 base URLs for the import endpoints, and how long to wait for their answer. */
  providers?: Partial<ProviderSettings> | undefined;
  clock?: Clock;
}

export interface RunningGateway {
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  port: number;
  keys: KeyService;
  stop(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { logger } = options;
  const db = await Database.open(options.database);
  if (options.migrateOnStart ?? true) await migrate(db, MIGRATIONS);
  const clock = options.clock ?? systemClock;
  const keys = createKeyService(createKeyStore(db), clock, { authCacheMs: options.authCacheMs });
  if (!options.urlSigningSecret) logger.warn('URL_SIGNING_SECRET is not set: thumbnail URLs are signed with a random per-process key');
  const signer = createThumbnailSigner(options.urlSigningSecret ?? randomBytes(32).toString('hex'));
  const index = createIndexClient(options.indexServiceAddress);
  const task = options.taskServiceAddress ? createTaskClient(options.taskServiceAddress) : undefined;
  const search = options.searchServiceAddress ? createSearchClient(options.searchServiceAddress) : undefined;
  const billing = options.billingServiceAddress ? createBillingClient(options.billingServiceAddress) : undefined;
  const redis = !options.limiters && options.redisUrl ? connectRedis(options.redisUrl, logger) : undefined;
  const counters = new UsageCounters(options.limiters ?? (redis ? redisLimiters(redis) : memoryLimiters()));
  const limitsSource = billing
    ? cachedLimits(async (orgId) => limitTableOf(await billing.getPlan(orgId)), { logger, ttlMs: options.limitsCacheMs })
    : staticLimits();

  const app = createApp({
    keys,
    clients: { index, task, search },
    uploads: { blobs: options.blobs, maxBytes: options.uploadMaxBytes ?? 2 * 1024 ** 3 },
    limits: { counters, source: limitsSource },
    billing,
    logger,
    adminToken: options.adminToken,
    bodyLimits: { json: options.bodyLimitBytes ?? 1024 * 1024, field: options.bodyLimitBytes ?? 1024 * 1024 },
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    thumbnails: { signer, clock, ttlMs: (options.thumbnailUrlTtlSeconds ?? 3600) * 1000, publicUrl: options.publicUrl },
    providers: { ...DEFAULT_PROVIDERS, ...options.providers },
    readiness: async () => ({
      database: await db.ping(),
      'index-service': await checkHealth(options.indexServiceAddress, INDEX_SERVICE_NAME),
      ...(options.taskServiceAddress ? { 'task-service': await checkHealth(options.taskServiceAddress, TASK_SERVICE_NAME) } : {}),
      ...(options.searchServiceAddress ? { 'search-service': await checkHealth(options.searchServiceAddress, SEARCH_SERVICE_NAME) } : {}),
      // Redis is not a readiness condition: without it limits are per process (see README).
      ...(options.billingServiceAddress ? { 'billing-service': await checkHealth(options.billingServiceAddress, BILLING_SERVICE_NAME) } : {}),
    }),
  });

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port, options.host, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  logger.info({ url }, 'gateway listening');

  return {
    url,
    port,
    keys,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      index.close();
      task?.close();
      billing?.close();
      if (redis?.isReady) await redis.close();
      else redis?.destroy();
      await db.close();
    },
  };
}

const configSchema = z.object({
  HOST: z.string().default('0.0.0.0'),
  PORT: envPort.default(8080),
  DATABASE_URL: z.string().url(),
  INDEX_SERVICE_ADDR: envAddress,
  TASK_SERVICE_ADDR: envAddress.optional(),
  SEARCH_SERVICE_ADDR: envAddress.optional(),
  ...blobEnvShape,
  UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(2 * 1024 ** 3),
  BILLING_SERVICE_ADDR: envAddress.optional(),
  REDIS_URL: z.string().url().optional(),
  LIMITS_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  AUTH_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  VUS_ADMIN_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  URL_SIGNING_SECRET: z.string().min(32, 'use at least 32 characters').optional(),
  THUMBNAIL_URL_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  PUBLIC_URL: z.string().url().optional(),
  /** Where POST /tasks/external-provider asks for a YouTube video (a mirror, or the default). */
  YOUTUBE_BASE_URL: z.string().url().default(DEFAULT_PROVIDERS.youtubeUrl),
  /** S3 endpoint of POST /tasks/transfers (MinIO and other S3-compatible stores: path-style). */
  S3_BASE_URL: z.string().url().default(DEFAULT_PROVIDERS.s3Url),
  /** How long those endpoints wait for the provider before answering 503. */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_PROVIDERS.timeoutMs),
  LOG_LEVEL: logLevel,
});

/** Cluster mode: configured from the environment (the Helm chart's form). */
if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(configSchema);
    return startGateway({
      host: config.HOST,
      port: config.PORT,
      database: { kind: 'postgres', url: config.DATABASE_URL },
      indexServiceAddress: config.INDEX_SERVICE_ADDR,
      taskServiceAddress: config.TASK_SERVICE_ADDR,
      searchServiceAddress: config.SEARCH_SERVICE_ADDR,
      // The volume the indexing worker reads uploads from.
      blobs: config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined,
      uploadMaxBytes: config.UPLOAD_MAX_BYTES,
      billingServiceAddress: config.BILLING_SERVICE_ADDR,
      redisUrl: config.REDIS_URL,
      limitsCacheMs: config.LIMITS_CACHE_MS,
      authCacheMs: config.AUTH_CACHE_MS,
      logger: createLogger({ service: 'gateway', level: config.LOG_LEVEL }),
      adminToken: config.VUS_ADMIN_TOKEN,
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      urlSigningSecret: config.URL_SIGNING_SECRET,
      thumbnailUrlTtlSeconds: config.THUMBNAIL_URL_TTL_SECONDS,
      publicUrl: config.PUBLIC_URL,
      providers: { youtubeUrl: config.YOUTUBE_BASE_URL, s3Url: config.S3_BASE_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS },
    });
  });
}
