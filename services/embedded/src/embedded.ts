import { analyzeService } from '@vus/analyze-service';
import { classifyService } from '@vus/classify-service';
import { billingService } from '@vus/billing-service';
import { embedService } from '@vus/embed-service';
import { FileBlobStore } from '@vus/blob';
import { createLogger, envPort, loadConfig, logLevel, SecretBox, type Logger } from '@vus/core';
import { removeLeftoverSockets } from '@vus/db';
import { InProcessEventBus } from '@vus/events';
import { gatewayEnv, startGateway } from '@vus/gateway';
import { indexService } from '@vus/index-service';
import { memoryLimiters } from '@vus/limits';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { searchService } from '@vus/search-service';
import { inProcessServices } from '@vus/service';
import { mediaMeter, parseAllowList, taskService, workerEnvShape } from '@vus/task-service';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { adminToken, lockDataDir, makeDataDirPrivate, webhookSecretKey, writeOwnerOnly, writeState } from './data-dir';

const embeddedEnv = z.object({
  DATA_DIR: z.string().default('./.data'),
  PORT: envPort.default(8080),
  HOST: z.string().default('127.0.0.1'),
  VUS_BOOTSTRAP_API_KEY: z.string().optional(),
  VUS_ADMIN_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  // Quiet by default: the console shows the base URL and key, not request logs.
  LOG_LEVEL: logLevel.default('warn'),
  /** Private hosts webhooks may reach (e.g. `localhost` for a receiver on this machine). */
  WEBHOOK_ALLOWED_HOSTS: z.string().optional(),
  /** Encrypts webhook signing secrets at rest; generated and kept in DATA_DIR when unset. */
  WEBHOOK_SECRET_KEY: z.string().optional(),
  // Indexing: MODELS_DIR (CLIP, Whisper), tasks indexed at once, private hosts video_url may reach.
  ...modelsEnvSchema.shape,
  WORKER_CONCURRENCY: workerEnvShape.WORKER_CONCURRENCY,
  FETCH_ALLOW_HOSTS: workerEnvShape.FETCH_ALLOW_HOSTS,
  // The gateway's: time a request may take downstream (a slow local model answering /responses or /analyze).
  REQUEST_TIMEOUT_MS: gatewayEnv.shape.REQUEST_TIMEOUT_MS,
});

/**
 * Embedded mode (`npm start`): every service (through its kit definition) and the gateway in this
 * one process, on loopback, each service on its own PGlite folder, with the in-process event bus
 * and an internal secret generated for this process.
 */
export async function startEmbedded(env: Readonly<Record<string, string | undefined>>, logger?: Logger) {
  const config = loadConfig(embeddedEnv, env);
  const log = logger ?? createLogger({ service: 'embedded', level: config.LOG_LEVEL });
  const dataDir = resolve(config.DATA_DIR);
  // Owner-only, as is everything written in it: its databases take no password (on unix sockets
  // in DATA_DIR/.db-sockets, see @vus/db), and it holds the admin token and every organization's data.
  const restoreUmask = writeOwnerOnly();
  let unlock: () => void;
  try {
    makeDataDirPrivate(dataDir);
    unlock = lockDataDir(dataDir);
  } catch (error) {
    restoreUmask();
    throw error;
  }
  // This process alone uses the folder now: sockets a crashed one left behind go.
  removeLeftoverSockets(dataDir);
  const bus = new InProcessEventBus({ logger: log });
  const services = inProcessServices({ dataDir, bus, logger: log });
  try {
    // Uploads, fetched videos and thumbnails: written by the gateway and the worker, read by index-service.
    const blobs = await FileBlobStore.open(join(dataDir, 'blobs'));
    const models = createModelRegistry(modelsConfigFromEnv(config));
    services.onStop(() => models.dispose());
    // Services start in waves, each wave at once (a PGlite each, migrated: seconds apiece), each
    // service after those whose addresses it needs.
    // Rate-limit counters stay in this process (no Redis in embedded mode): the gateway admits
    // requests on them, billing-service debits the minutes and tokens of usage events from them.
    const limiters = memoryLimiters();
    const [index, billing, embed] = await together(
      services.start(indexService, { blobs }),
      // No SMTP in embedded mode: plan e-mails are written as .eml files under DATA_DIR/mail.
      services.start(billingService, {
        mail: { kind: 'folder', dir: join(dataDir, 'mail'), from: 'VUS billing <billing@localhost>' },
        limiters,
      }),
      // Embeddings (the bundled concept embedding), on the same detector and OCR as indexing.
      services.start(embedService, { models, fetchAllowHosts: config.FETCH_ALLOW_HOSTS, blobs }),
    );
    const late: { taskServiceAddress?: string } = {};
    // Searchable segments: pgvector is loaded into its PGlite, so CLIP vectors (from embed-service) are searched when present.
    const search = await services.start(searchService, {
      indexServiceAddress: index.address,
      embedServiceAddress: embed.address,
      fetchAllowHosts: config.FETCH_ALLOW_HOSTS,
      // Entity search asks task-service for reference faces; it starts below (its worker needs this service).
      taskServiceAddress: () => late.taskServiceAddress,
    });
    // Media minutes are metered as in the cluster: each probed video is reserved in billing-service
    // against the organization's duration budgets, and its spend is the task's usage event;
    // the client is closed after the worker has stopped.
    const meter = mediaMeter(billing.address, log.child({ service: 'task-service' }));
    services.onStop(async () => meter.close());
    const [analyze, classify, task] = await together(
      // Text generation from what indexing found (the bundled extractive provider: no model download).
      services.start(analyzeService, { indexServiceAddress: index.address, searchServiceAddress: search.address }),
      // Classification: each prompt a search over the videos, scored; its own result pages.
      services.start(classifyService, { indexServiceAddress: index.address, searchServiceAddress: search.address }),
      // Indexing tasks with their worker, and webhooks: task events come through the same bus.
      services.start(taskService, {
        indexServiceAddress: index.address,
        webhooks: {
          allowList: parseAllowList(config.WEBHOOK_ALLOWED_HOSTS),
          secrets: SecretBox.fromKey(webhookSecretKey(dataDir, config.WEBHOOK_SECRET_KEY), 'WEBHOOK_SECRET_KEY'),
        },
        blobs,
        worker: {
          blobs,
          models,
          workRoot: join(dataDir, 'work'),
          concurrency: config.WORKER_CONCURRENCY,
          fetch: { allowHosts: config.FETCH_ALLOW_HOSTS },
          searchServiceAddress: search.address,
          embedServiceAddress: embed.address,
          meter: meter.meter,
        },
      }),
    );
    late.taskServiceAddress = task.address;
    const token = adminToken(dataDir, config.VUS_ADMIN_TOKEN);
    const gateway = await startGateway({
      host: config.HOST,
      port: config.PORT,
      database: { kind: 'pglite', dataDir: join(dataDir, 'gateway') },
      indexServiceAddress: index.address,
      taskServiceAddress: task.address,
      searchServiceAddress: search.address,
      analyzeServiceAddress: analyze.address,
      embedServiceAddress: embed.address,
      classifyServiceAddress: classify.address,
      blobs,
      limiters,
      billingServiceAddress: billing.address,
      logger: log.child({ service: 'gateway' }),
      adminToken: token,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    });
    services.onStop(() => gateway.stop());
    const newKey = await gateway.keys.bootstrap(config.VUS_BOOTSTRAP_API_KEY);
    const removeState = writeState(dataDir, { base_url: gateway.url, admin_token: token, pid: process.pid });
    return {
      url: gateway.url,
      newKey,
      dataDir,
      async stop() {
        await services.stop();
        await bus.close();
        removeState();
        unlock();
        restoreUmask();
      },
    };
  } catch (error) {
    await services.stop().catch(() => undefined);
    unlock();
    restoreUmask();
    throw error;
  }
}

/**
 * Awaits every start, then fails with the first failure: a service still starting when another
 * fails is running by then, so the caller's stop() stops it too (Promise.all would leave it behind).
 */
async function together<T extends unknown[]>(...starts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as T;
}
