import { createLogger, loadConfig, logLevel, envPort, runMain, type Logger } from '@vus/core';
import { InProcessEventBus } from '@vus/events';
import { startBillingService } from '@vus/billing-service';
import { startGateway } from '@vus/gateway';
import { startIndexService } from '@vus/index-service';
import { startSearchService } from '@vus/search-service';
import { mediaMeter, parseAllowList, startTaskService, workerEnvShape } from '@vus/task-service';
import { memoryLimiters } from '@vus/limits';
import { FileBlobStore } from '@vus/blob';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema } from '@vus/models';
import { formatMediaToolsReport, mediaToolsReport } from '@vus/media';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/**
 * Embedded mode (`npm start`): every built service and the gateway in this one process, on
 * loopback, each service on its own PGlite data folder, with the in-process event bus.
 */
const configSchema = z.object({
  DATA_DIR: z.string().default('./.data'),
  PORT: envPort.default(8080),
  HOST: z.string().default('127.0.0.1'),
  VUS_BOOTSTRAP_API_KEY: z.string().optional(),
  VUS_ADMIN_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  // Quiet by default: the console shows the base URL and key, not request logs.
  LOG_LEVEL: logLevel.default('warn'),
  /** Private hosts webhooks may reach (e.g. `localhost` for a receiver on this machine). */
  WEBHOOK_ALLOWED_HOSTS: z.string().optional(),
  // Indexing: MODELS_DIR (CLIP, Whisper), tasks indexed at once, private hosts video_url may reach.
  ...modelsEnvSchema.shape,
  WORKER_CONCURRENCY: workerEnvShape.WORKER_CONCURRENCY,
  FETCH_ALLOW_HOSTS: workerEnvShape.FETCH_ALLOW_HOSTS,
});

/** Written for the `keys` CLI, which talks to the running server's admin API. */
export const EMBEDDED_STATE_FILE = 'embedded.json';

export interface EmbeddedState {
  base_url: string;
  admin_token: string;
  pid: number;
}

/** One PGlite folder cannot be opened by two processes: refuse to start a second server on it. */
function lockDataDir(dataDir: string): () => void {
  const lockFile = join(dataDir, 'server.pid');
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, 'utf8'));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new Error(`Another server (pid ${pid}) is using ${dataDir}. Stop it or set DATA_DIR.`);
    }
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The admin token: the operator's, or one generated on first start and kept in the data folder. */
function adminToken(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = join(dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token, { mode: 0o600 });
  return token;
}

export async function startEmbedded(env: Record<string, string | undefined> = process.env, logger?: Logger) {
  const config = loadConfig(configSchema, env);
  const log = logger ?? createLogger({ service: 'embedded', level: config.LOG_LEVEL });
  const dataDir = resolve(config.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  const bus = new InProcessEventBus({ logger: log });
  const stops: (() => Promise<void>)[] = [];
  try {
    // Uploads, fetched videos and thumbnails: written by the gateway and the worker, read by index-service.
    const blobs = await FileBlobStore.open(join(dataDir, 'blobs'));
    const models = createModelRegistry(modelsConfigFromEnv(config));
    stops.push(() => models.dispose());
    const index = await startIndexService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: join(dataDir, 'index-service') },
      bus,
      logger: log.child({ service: 'index-service' }),
      blobs,
    });
    stops.push(() => index.stop());
    // No SMTP in embedded mode: plan e-mails are written as .eml files under DATA_DIR/mail.
    const billing = await startBillingService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: join(dataDir, 'billing-service') },
      logger: log.child({ service: 'billing-service' }),
      mail: { kind: 'folder', dir: join(dataDir, 'mail'), from: 'VUS billing <billing@localhost>' },
    });
    stops.push(() => billing.stop());
    // Searchable segments: pgvector is loaded into its PGlite, so CLIP vectors are searched when present.
    const search = await startSearchService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: join(dataDir, 'search-service') },
      indexServiceAddress: index.address,
      bus,
      models,
      logger: log.child({ service: 'search-service' }),
      fetchAllowHosts: config.FETCH_ALLOW_HOSTS,
    });
    stops.unshift(() => search.stop());
    // Media minutes are metered as in the cluster: each probed video is reserved against the
    // organization's duration budgets (its plan's, from billing-service) and recorded there as
    // spend. The budgets are counted in this process's memory, in the same counters the gateway
    // admits requests with (as Redis is shared in the cluster). Unshifted before task-service, so
    // it is closed after the worker has stopped.
    const limiters = memoryLimiters();
    const meter = mediaMeter(billing.address, limiters, log.child({ service: 'task-service' }));
    stops.unshift(async () => meter.close());
    // Indexing tasks with their worker, and webhooks: task events come through the same bus.
    const task = await startTaskService({
      bind: '127.0.0.1:0',
      database: { kind: 'pglite', dataDir: join(dataDir, 'task-service') },
      bus,
      logger: log.child({ service: 'task-service' }),
      indexServiceAddress: index.address,
      webhooks: { allowList: parseAllowList(config.WEBHOOK_ALLOWED_HOSTS) },
      blobs,
      worker: {
        blobs,
        models,
        workRoot: join(dataDir, 'work'),
        concurrency: config.WORKER_CONCURRENCY,
        fetch: { allowHosts: config.FETCH_ALLOW_HOSTS },
        searchServiceAddress: search.address,
        meter: meter.meter,
      },
    });
    stops.unshift(() => task.stop());
    const token = adminToken(dataDir, config.VUS_ADMIN_TOKEN);
    const gateway = await startGateway({
      host: config.HOST,
      port: config.PORT,
      database: { kind: 'pglite', dataDir: join(dataDir, 'gateway') },
      indexServiceAddress: index.address,
      taskServiceAddress: task.address,
      searchServiceAddress: search.address,
      blobs,
      // Rate-limit counters stay in this process (no Redis in embedded mode), shared with the Meter.
      limiters,
      billingServiceAddress: billing.address,
      logger: log.child({ service: 'gateway' }),
      adminToken: token,
    });
    stops.unshift(() => gateway.stop());
    const newKey = await gateway.keys.bootstrap(config.VUS_BOOTSTRAP_API_KEY);
    const state: EmbeddedState = { base_url: gateway.url, admin_token: token, pid: process.pid };
    writeFileSync(join(dataDir, EMBEDDED_STATE_FILE), JSON.stringify(state, null, 2), { mode: 0o600 });
    return {
      url: gateway.url,
      newKey,
      dataDir,
      async stop() {
        for (const stop of stops) await stop();
        await bus.close();
        rmSync(join(dataDir, EMBEDDED_STATE_FILE), { force: true });
        unlock();
      },
    };
  } catch (error) {
    for (const stop of stops) await stop().catch(() => undefined);
    unlock();
    throw error;
  }
}

if (require.main === module) {
  runMain(async () => {
    const running = await startEmbedded();
    process.stdout.write(`Base URL: ${running.url}\n`);
    if (running.newKey) process.stdout.write(`API key: ${running.newKey}\n`);
    process.stdout.write(`Data: ${running.dataDir} (Ctrl-C to stop)\n`);
    process.stdout.write(`Media: ${await mediaToolsReport().then(formatMediaToolsReport, (error: Error) => `unavailable: ${error.message}`)}\n`);
    return running;
  });
}
