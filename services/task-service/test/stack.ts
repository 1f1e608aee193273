/**
 * index-service and task-service on loopback for task-service's integration suites, sharing one
 * blob folder: gRPC clients, an org-scoped `rpc`, polling a task until it settles, worker child
 * processes, and one `stop()` that undoes it all in reverse.
 */
import { FileBlobStore, type BlobStore } from '@vus/blob';
import { createLogger, newId } from '@vus/core';
import { type DatabaseTarget } from '@vus/db';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { startEmbedService } from '@vus/embed-service';
import type { EventBus } from '@vus/events';
import { callUnary, createClient, loadProto, type UnaryInvoker, internalSecret } from '@vus/grpc';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { createModelRegistry } from '@vus/models';
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTaskService, type RunningTaskService, type TaskServiceOptions } from '../src/main';

type WorkerOptions = NonNullable<TaskServiceOptions['worker']>;

const WORKER_MAIN = join(__dirname, '..', 'dist', 'worker', 'main.js');

export interface TaskStackOptions {
  /** Names the temporary folder (`vus-<name>-…`). */
  name: string;
  /** The bus both services publish on; `stop()` closes it. Without one, events wait in the outboxes. */
  bus?: EventBus;
  /** task-service's database: PGlite in memory, or a throwaway PostgreSQL one (which worker processes can share). */
  database?: 'pglite' | 'postgres';
  /**
   * Runs the indexing worker in task-service: these settings over the stack's (its blobs, `<dir>/work`,
   * one task at a time, a 200 ms poll, no CLIP or Whisper). `stop()` disposes its models.
   */
  worker?: (stack: { dir: string; blobs: BlobStore }) => Partial<WorkerOptions>;
  /** Starts embed-service (the model server) on the worker's registry and points the worker at it: clip vectors. */
  embed?: boolean;
  /** The last word on task-service's options, for what a suite leaves out on purpose. */
  taskService?: Partial<Parameters<typeof startTaskService>[0]>;
}

export interface WaitOptions {
  /** Default: the task settled (ready or failed). */
  until?: (task: Task) => boolean;
  timeoutMs?: number;
  /** Added to the timeout's error (a worker process's log, say). */
  diagnostics?: () => string;
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Its stdout and stderr so far. */
  output: () => string;
}

export interface TaskStack {
  dir: string;
  blobs: BlobStore;
  indexService: RunningIndexService;
  taskService: RunningTaskService;
  /** task-service's database, when it is PostgreSQL. */
  database: ThrowawayDatabase | undefined;
  indexes: IndexServiceClient;
  tasks: TaskServiceClient;
  rpc<T>(orgId: string, invoke: UnaryInvoker<T>): Promise<T>;
  /** A new Marengo index with these model options; returns its id. */
  createIndex(orgId: string, options: string[]): Promise<string>;
  /** Stores the file as an upload; returns its blob key. */
  upload(path: string): Promise<string>;
  getTask(orgId: string, taskId: string): Promise<Task>;
  waitForTask(orgId: string, taskId: string, options?: WaitOptions): Promise<Task>;
  /** The built worker (`dist/worker/main.js`) as a child process on the stack's PostgreSQL database; `env` adds to its settings. */
  spawnWorker(env: Record<string, string>): WorkerProcess;
  stop(): Promise<void>;
}

const settled = (task: Task) => task.status === 'ready' || task.status === 'failed';

export async function startTaskStack(options: TaskStackOptions): Promise<TaskStack> {
  // What has started, undone last first; a failed start undoes what it got to.
  const undo: (() => unknown)[] = [];
  const stop = async () => {
    for (const step of undo.splice(0).reverse()) await step();
  };
  try {
    return await start(options, undo, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

async function start(options: TaskStackOptions, undo: (() => unknown)[], stop: () => Promise<void>): Promise<TaskStack> {
  const logger = createLogger({ service: `${options.name}-test`, level: 'silent' });
  const dir = mkdtempSync(join(tmpdir(), `vus-${options.name}-`));
  undo.push(() => rmSync(dir, { recursive: true, force: true }));
  const { bus } = options;
  if (bus) undo.push(() => bus.close());
  const blobs = await FileBlobStore.open(join(dir, 'blobs'));
  const database = options.database === 'postgres' ? await createThrowawayDatabase() : undefined;
  if (database) undo.push(() => database.drop());
  const target: DatabaseTarget = database ? { kind: 'postgres', url: database.url } : { kind: 'pglite', dataDir: 'memory://' };

  const settings = options.worker?.({ dir, blobs });
  let worker: WorkerOptions | undefined;
  if (settings) {
    const models =
      settings.models ??
      createModelRegistry({
        modelsDir: join(dir, 'no-models'),
        allowDownload: false,
        clipModel: 'none/clip',
        whisperModel: 'none/whisper',
      });
    undo.push(() => models.dispose());
    worker = { blobs, workRoot: join(dir, 'work'), concurrency: 1, pollMs: 200, preloadModels: false, ...settings, models };
    if (options.embed) {
      const embed = await startEmbedService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger, models });
      undo.push(() => embed.stop());
      worker.embedServiceAddress = embed.address;
    }
  }

  const indexService = await startIndexService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus,
    logger,
    blobs,
  });
  undo.push(() => indexService.stop());
  const taskService = await startTaskService({
    bind: '127.0.0.1:0',
    database: target,
    bus,
    logger,
    indexServiceAddress: indexService.address,
    blobs,
    worker,
    ...options.taskService,
  });
  undo.push(() => taskService.stop());
  const indexes = createClient(loadProto().proto.vus.index.v1.IndexService, indexService.address);
  const tasks = createClient(loadProto().proto.vus.task.v1.TaskService, taskService.address);
  undo.push(() => {
    indexes.close();
    tasks.close();
  });

  const rpc = <T>(orgId: string, invoke: UnaryInvoker<T>) => callUnary<T>(invoke, { orgId });
  const getTask = (orgId: string, taskId: string) => rpc<Task>(orgId, (md, opts, cb) => tasks.GetTask({ task_id: taskId }, md, opts, cb));
  return {
    dir,
    blobs,
    indexService,
    taskService,
    database,
    indexes,
    tasks,
    rpc,
    getTask,
    async createIndex(orgId, modelOptions) {
      const index = await rpc<{ id: string }>(orgId, (md, opts, cb) =>
        indexes.CreateIndex({ name: `i-${newId()}`, models: [{ name: 'marengo2.6', options: modelOptions }], addons: [] }, md, opts, cb),
      );
      return index.id;
    },
    async upload(path) {
      const key = `uploads/${newId()}/video_file-0`;
      await blobs.put(key, createReadStream(path));
      return key;
    },
    async waitForTask(orgId, taskId, { until = settled, timeoutMs = 60_000, diagnostics = () => '' } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const task = await getTask(orgId, taskId);
        if (until(task)) return task;
        if (Date.now() > deadline) throw new Error(`task ${taskId} is still ${task.status} after ${timeoutMs} ms\n${diagnostics()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    spawnWorker(env) {
      if (!database) throw new Error('a worker process needs the stack on PostgreSQL (database: postgres)');
      if (!existsSync(WORKER_MAIN)) throw new Error(`${WORKER_MAIN} is missing: build first (npx tsc -b services/task-service)`);
      let output = '';
      const child = spawn(process.execPath, [WORKER_MAIN], {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: database.url,
          INDEX_SERVICE_ADDR: indexService.address,
          // This process's secret: the services it started refuse calls without it.
          INTERNAL_GRPC_SECRET: internalSecret(),
          BLOB_DIR: join(dir, 'blobs'),
          WORK_DIR: join(dir, 'work'),
          MODELS_DIR: join(dir, 'no-models'),
          LOG_LEVEL: 'info',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      undo.push(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      return { child, output: () => output };
    },
    stop,
  };
}
