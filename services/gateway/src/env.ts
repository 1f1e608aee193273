import { blobEnvShape, openBlobStore } from '@vus/blob';
import { envAddress, envPort, logLevel, type Logger } from '@vus/core';
import { internalSecretEnv } from '@vus/service';
import { z } from 'zod';
import type { GatewayOptions } from './gateway';
import { DEFAULT_PROVIDERS } from './providers';

/** Cluster mode's configuration (the Helm chart's and compose's form). */
export const gatewayEnv = z.object({
  /** Loopback unless configured, as the services' GRPC_BIND: compose and the chart set 0.0.0.0. */
  HOST: z.string().default('127.0.0.1'),
  PORT: envPort.default(8080),
  DATABASE_URL: z.string().url(),
  INDEX_SERVICE_ADDR: envAddress,
  TASK_SERVICE_ADDR: envAddress.optional(),
  SEARCH_SERVICE_ADDR: envAddress.optional(),
  ANALYZE_SERVICE_ADDR: envAddress.optional(),
  EMBED_SERVICE_ADDR: envAddress.optional(),
  CLASSIFY_SERVICE_ADDR: envAddress.optional(),
  ...blobEnvShape,
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 ** 3),
  BILLING_SERVICE_ADDR: envAddress.optional(),
  REDIS_URL: z.string().url().optional(),
  LIMITS_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  AUTH_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  VUS_ADMIN_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
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
  /** The deployment's secret for calls to the services (they refuse calls without it). */
  INTERNAL_GRPC_SECRET: internalSecretEnv,
  LOG_LEVEL: logLevel,
});

/** The gateway's options from its parsed environment. */
export async function gatewayOptionsFromEnv(config: z.infer<typeof gatewayEnv>, logger: Logger): Promise<GatewayOptions> {
  return {
    host: config.HOST,
    port: config.PORT,
    database: { kind: 'postgres', url: config.DATABASE_URL },
    indexServiceAddress: config.INDEX_SERVICE_ADDR,
    taskServiceAddress: config.TASK_SERVICE_ADDR,
    searchServiceAddress: config.SEARCH_SERVICE_ADDR,
    analyzeServiceAddress: config.ANALYZE_SERVICE_ADDR,
    embedServiceAddress: config.EMBED_SERVICE_ADDR,
    classifyServiceAddress: config.CLASSIFY_SERVICE_ADDR,
    // The volume the indexing worker reads uploads from.
    blobs: config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined,
    uploadMaxBytes: config.UPLOAD_MAX_BYTES,
    billingServiceAddress: config.BILLING_SERVICE_ADDR,
    redisUrl: config.REDIS_URL,
    limitsCacheMs: config.LIMITS_CACHE_MS,
    authCacheMs: config.AUTH_CACHE_MS,
    logger,
    adminToken: config.VUS_ADMIN_TOKEN,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    urlSigningSecret: config.URL_SIGNING_SECRET,
    thumbnailUrlTtlSeconds: config.THUMBNAIL_URL_TTL_SECONDS,
    publicUrl: config.PUBLIC_URL,
    providers: { youtubeUrl: config.YOUTUBE_BASE_URL, s3Url: config.S3_BASE_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS },
  };
}
