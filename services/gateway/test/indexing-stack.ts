/**
 * The indexing path on loopback, for tests: gateway + index-service + task-service (with the
 * indexing worker in its process, when asked) sharing one blob folder, each on its own database.
 */
import { FileBlobStore, type BlobStore } from '@vus/blob';
import { createLogger } from '@vus/core';
import { type DatabaseTarget } from '@vus/db';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { InProcessEventBus } from '@vus/events';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { startSearchService, type RunningSearchService } from '@vus/search-service';
import { startAnalyzeService, type AnalyzeServiceOptions, type GenerationProvider, type RunningAnalyzeService } from '@vus/analyze-service';
import { startEmbedService, type RunningEmbedService } from '@vus/embed-service';
import { startClassifyService, type RunningClassifyService } from '@vus/classify-service';
import { startBillingService, type RunningBillingService } from '@vus/billing-service';
import { memoryLimiters } from '@vus/limits';
import { cocoDetectorProvider, createModelRegistry, ModelRegistry, paddleOcrProvider, type PocketSphinxConfig } from '@vus/models';
import { startTaskService, type RunningTaskService, type TaskServiceOptions } from '@vus/task-service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../src/main';

export interface IndexingStack {
  url: string;
  gateway: RunningGateway;
  indexService: RunningIndexService;
  taskService: RunningTaskService;
  searchService: RunningSearchService;
  analyzeService: RunningAnalyzeService | undefined;
  embedService: RunningEmbedService | undefined;
  classifyService: RunningClassifyService | undefined;
  billingService: RunningBillingService | undefined;
  blobs: BlobStore;
  blobDir: string;
  /** The task-service database (postgres only), for a worker in another process. */
  taskDatabaseUrl: string | undefined;
  models: ModelRegistry | undefined;
  newOrg(): Promise<{ orgId: string; key: string }>;
  stop(): Promise<void>;
}

export interface IndexingStackOptions {
  database?: 'postgres' | 'pglite';
  /** Run the indexing worker inside task-service. */
  worker?: boolean;
  /** Worker settings (lease, poll …) when it runs. */
  workerOptions?: Partial<NonNullable<TaskServiceOptions['worker']>>;
  uploadMaxBytes?: number;
  /** The gateway's limit on a request's JSON or text (default 1 MiB). */
  bodyLimitBytes?: number;
  /** The key the gateway signs thumbnail and stream URLs with (default: a random one). */
  urlSigningSecret?: string;
  /** Start analyze-service (text generation) and route the gateway's /gist … /analyze to it. */
  analyze?: boolean;
  /** Its generation provider (default: the bundled extractive one). */
  analyzeProvider?: GenerationProvider;
  /** An OpenAI-compatible server for it to answer with, as LLM_BASE_URL/LLM_MODEL configure one. */
  analyzeLlm?: AnalyzeServiceOptions['llm'];
  /** Start embed-service (the bundled concept embedding) and route the gateway's /embed and /embed-v2 to it. */
  embed?: boolean;
  /** Start classify-service and route the gateway's /classify to it. */
  classify?: boolean;
  /** The worker recognises speech with the bundled PocketSphinx (default: no speech recogniser). */
  pocketsphinx?: PocketSphinxConfig;
  /**
   * Start billing-service: the gateway's limits come from it, and it debits the usage events of
   * analyze-service and embed-service (on the stack's bus) from the gateway's counters (in memory).
   */
  billing?: boolean;
  /** task-service's webhook settings (destinations allowed, dispatcher timing), as startTaskService takes them. */
  webhooks?: TaskServiceOptions['webhooks'];
  /** A CLIP model for the worker's registry (which embed-service serves): its MODELS_DIR and id (default: none). */
  clip?: { modelsDir: string; clipModel: string };
}

export async function startIndexingStack(options: IndexingStackOptions = {}): Promise<IndexingStack> {
  // TEST_LOG_LEVEL=info shows the services' logs (the worker's stages and failures).
  const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const databases: ThrowawayDatabase[] = [];
  const target = async (): Promise<DatabaseTarget> => {
    if (options.database === 'pglite') return { kind: 'pglite', dataDir: 'memory://' };
    const database = await createThrowawayDatabase();
    databases.push(database);
    return { kind: 'postgres', url: database.url };
  };
  const blobDir = mkdtempSync(join(tmpdir(), 'vus-indexing-blobs-'));
  const blobs = await FileBlobStore.open(blobDir);
  const bus = new InProcessEventBus();
  // The gateway's rate-limit counters, shared with billing-service when it runs (as Redis is in a cluster).
  const limiters = memoryLimiters();
  const billingService = options.billing
    ? await startBillingService({
        bind: '127.0.0.1:0',
        database: await target(),
        bus,
        logger,
        mail: { kind: 'folder', dir: join(blobDir, 'mail'), from: 'billing@test' },
        limiters,
      })
    : undefined;
  const indexService = await startIndexService({ bind: '127.0.0.1:0', database: await target(), bus, logger, blobs });
  // No CLIP or Whisper files in tests: MODELS_DIR points at an empty folder (absence is recorded).
  const models = options.worker
    ? createModelRegistry({
        modelsDir: options.clip?.modelsDir ?? join(blobDir, 'no-models'),
        allowDownload: false,
        clipModel: options.clip?.clipModel ?? 'none/clip',
        whisperModel: 'none/whisper',
        pocketsphinx: options.pocketsphinx,
      })
    : undefined;
  // The bundled detector and OCR only (no MODELS_DIR in tests); media URLs on 127.0.0.1 allowed.
  const embedModels = options.embed ? new ModelRegistry([cocoDetectorProvider(), paddleOcrProvider()]) : undefined;
  // embed-service is the model server of search and the worker: with a worker, on the worker's registry (as in embedded mode).
  const servedModels = embedModels ?? models;
  const embedService = servedModels
    ? await startEmbedService({
        bind: '127.0.0.1:0',
        database: await target(),
        bus,
        logger,
        models: servedModels,
        fetchAllowHosts: ['127.0.0.1'],
        blobs,
        taskPollMs: 200,
      })
    : undefined;
  const late: { taskServiceAddress?: string } = {};
  const searchService = await startSearchService({
    bind: '127.0.0.1:0',
    database: await target(),
    indexServiceAddress: indexService.address,
    embedServiceAddress: embedService?.address,
    bus,
    logger,
    fetchAllowHosts: ['127.0.0.1'],
    // Entity search's reference faces: task-service starts below (its worker needs this service's address).
    taskServiceAddress: () => late.taskServiceAddress,
  });
  const analyzeService = options.analyze
    ? await startAnalyzeService({
        bind: '127.0.0.1:0',
        database: await target(),
        indexServiceAddress: indexService.address,
        searchServiceAddress: searchService.address,
        provider: options.analyzeProvider,
        llm: options.analyzeLlm,
        bus,
        logger,
      })
    : undefined;
  const classifyService = options.classify
    ? await startClassifyService({
        bind: '127.0.0.1:0',
        database: await target(),
        indexServiceAddress: indexService.address,
        searchServiceAddress: searchService.address,
        logger,
      })
    : undefined;
  const taskTarget = await target();
  const taskService = await startTaskService({
    bind: '127.0.0.1:0',
    database: taskTarget,
    bus,
    logger,
    indexServiceAddress: indexService.address,
    blobs,
    webhooks: options.webhooks,
    worker: models
      ? {
          blobs,
          models,
          workRoot: join(blobDir, 'work'),
          fetch: { allowHosts: ['127.0.0.1'] },
          pollMs: 500,
          searchServiceAddress: searchService.address,
          embedServiceAddress: embedService?.address,
          ...options.workerOptions,
        }
      : undefined,
  });
  late.taskServiceAddress = taskService.address;
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    database: await target(),
    indexServiceAddress: indexService.address,
    taskServiceAddress: taskService.address,
    searchServiceAddress: searchService.address,
    analyzeServiceAddress: analyzeService?.address,
    // The gateway's embeddings API only when asked for (otherwise its endpoints answer 501).
    embedServiceAddress: options.embed ? embedService?.address : undefined,
    classifyServiceAddress: classifyService?.address,
    blobs,
    uploadMaxBytes: options.uploadMaxBytes,
    bodyLimitBytes: options.bodyLimitBytes,
    urlSigningSecret: options.urlSigningSecret,
    billingServiceAddress: billingService?.address,
    limiters,
    logger,
  });
  let orgs = 0;
  return {
    url: gateway.url,
    gateway,
    indexService,
    taskService,
    searchService,
    analyzeService,
    embedService,
    classifyService,
    billingService,
    blobs,
    blobDir,
    taskDatabaseUrl: taskTarget.kind === 'postgres' ? taskTarget.url : undefined,
    models,
    async newOrg() {
      const org = await gateway.keys.createOrganization(`org-${++orgs}-${Math.random().toString(36).slice(2)}`);
      return { orgId: org.id, key: (await gateway.keys.createKey(org.id, 'test')).secret };
    },
    async stop() {
      await gateway.stop();
      await taskService.stop();
      await analyzeService?.stop();
      await embedService?.stop();
      await classifyService?.stop();
      await billingService?.stop();
      await embedModels?.dispose();
      await searchService.stop();
      await indexService.stop();
      await models?.dispose();
      await bus.close();
      for (const database of databases) await database.drop();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}
