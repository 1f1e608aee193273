import type { BlobStore } from '@vus/blob';
import { systemClock, type Clock, type Logger } from '@vus/core';
import { Database, type DatabaseTarget } from '@vus/db';
import { createBillingClient } from '@vus/clients';
import {
  cachedLimits,
  connectRedis,
  limitTableOf,
  memoryLimiters,
  redisLimiters,
  staticLimits,
  UsageCounters,
  type LimiterSource,
} from '@vus/limits';
import { migrateService } from '@vus/service';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createApp } from './app';
import { peersReady, type PeerAddresses } from './readiness';
import type { ServedRoute } from './app';
import {
  createAnalyzeClient,
  createClassifyClient,
  createEmbedClient,
  createIndexClient,
  createSearchClient,
  createTaskClient,
} from './clients';
import { createThumbnailSigner } from './http/signed-urls';
import { createKeyService, type KeyService } from './keys';
import { DEFAULT_PROVIDERS, type ProviderSettings } from './providers';
import { createKeyStore } from './store';

const MIGRATIONS_DIR = join(__dirname, '..', 'migrations');

/** The services the gateway calls (readiness.ts PeerAddresses): each optional one's endpoints answer 501 without it. */
export interface GatewayOptions extends PeerAddresses {
  host: string;
  port: number;
  database: DatabaseTarget;
  /** Where POST /tasks streams uploads: the blob store the indexing worker reads. */
  blobs?: BlobStore | undefined;
  /** Largest video upload accepted (bytes); default 2 GiB. */
  uploadMaxBytes?: number | undefined;
  /** Shared rate-limit counters; without it they live in this process (embedded mode). */
  redisUrl?: string | undefined;
  /**
   * The counters' store, when the caller shares it (embedded mode: billing-service debits the
   * minutes and tokens budgets the gateway admits with, as usage is recorded). Overrides `redisUrl`.
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
  /** The endpoints it serves (method, path pattern): the fuzz suite requests each. */
  routes: ServedRoute[];
  stop(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { logger } = options;
  const db = await Database.open(options.database);
  if (options.migrateOnStart ?? true) await migrateService(db, { migrations: MIGRATIONS_DIR });
  const clock = options.clock ?? systemClock;
  const keys = createKeyService(createKeyStore(db), clock, { authCacheMs: options.authCacheMs });
  if (!options.urlSigningSecret) logger.warn('URL_SIGNING_SECRET is not set: thumbnail URLs are signed with a random per-process key');
  const signer = createThumbnailSigner(options.urlSigningSecret ?? randomBytes(32).toString('hex'));
  const index = createIndexClient(options.indexServiceAddress);
  const task = options.taskServiceAddress ? createTaskClient(options.taskServiceAddress) : undefined;
  const search = options.searchServiceAddress ? createSearchClient(options.searchServiceAddress) : undefined;
  const analyze = options.analyzeServiceAddress ? createAnalyzeClient(options.analyzeServiceAddress) : undefined;
  const embed = options.embedServiceAddress ? createEmbedClient(options.embedServiceAddress) : undefined;
  const classify = options.classifyServiceAddress ? createClassifyClient(options.classifyServiceAddress) : undefined;
  const billing = options.billingServiceAddress ? createBillingClient(options.billingServiceAddress) : undefined;
  const redis = !options.limiters && options.redisUrl ? connectRedis(options.redisUrl, logger) : undefined;
  const counters = new UsageCounters(options.limiters ?? (redis ? redisLimiters(redis) : memoryLimiters()));
  const limitsSource = billing
    ? cachedLimits(async (orgId) => limitTableOf(await billing.getPlan(orgId)), { logger, ttlMs: options.limitsCacheMs })
    : staticLimits();

  const { app, routes } = createApp({
    keys,
    clients: { index, task, search, analyze, embed, classify },
    uploads: { blobs: options.blobs, maxBytes: options.uploadMaxBytes ?? 2 * 1024 ** 3 },
    limits: { counters, source: limitsSource },
    billing,
    logger,
    adminToken: options.adminToken,
    bodyLimits: { json: options.bodyLimitBytes ?? 1024 * 1024, field: options.bodyLimitBytes ?? 1024 * 1024 },
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    thumbnails: { signer, clock, ttlMs: (options.thumbnailUrlTtlSeconds ?? 3600) * 1000, publicUrl: options.publicUrl },
    providers: { ...DEFAULT_PROVIDERS, ...options.providers },
    // Redis is not a readiness condition: without it limits are per process (see README).
    readiness: async () => ({ database: await db.ping(), ...(await peersReady(options)) }),
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
    routes,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      index.close();
      task?.close();
      search?.close();
      analyze?.close();
      embed?.close();
      classify?.close();
      billing?.close();
      if (redis?.isReady) await redis.close();
      else redis?.destroy();
      await db.close();
    },
  };
}
