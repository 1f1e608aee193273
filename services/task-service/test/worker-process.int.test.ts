/**
 * The worker-only process as the chart's indexing-worker Deployment runs it (`dist/worker/main.js`;
 * `npm test` builds first): it answers gRPC health checks on GRPC_BIND, and with KAFKA_BROKERS a
 * new task wakes it at once — its poll is set far beyond the test's time, so only the bus can.
 * task-service's API runs in this process, without a worker, publishing through the same broker.
 */
import { FileBlobStore } from '@vus/blob';
import { createLogger, newId } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db';
import { KafkaEventBus, startTestKafka, type TestKafka } from '@vus/events';
import { callUnary, checkHealth, createClient, loadProto } from '@vus/grpc';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { textScenesVideo } from '@vus/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTaskService, type RunningTaskService } from '../src/main';

const WORKER_MAIN = join(__dirname, '..', 'dist', 'worker', 'main.js');
const logger = createLogger({ service: 'worker-process-test', level: 'silent' });
// Kafka group joins take seconds on the mock broker (the worker's, and task-service's subscribers).
jest.setTimeout(120_000);

let kafka: TestKafka;
let bus: KafkaEventBus;
let database: ThrowawayDatabase;
let dir: string;
let indexService: RunningIndexService;
let taskService: RunningTaskService;
let indexes: IndexServiceClient;
let tasks: TaskServiceClient;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  if (!existsSync(WORKER_MAIN)) throw new Error(`${WORKER_MAIN} is missing: build first (npx tsc -b services/task-service)`);
  kafka = await startTestKafka(process.env.KAFKA_BROKERS);
  bus = new KafkaEventBus({ brokers: kafka.brokers, clientId: 'worker-process-test', logger, sessionTimeoutMs: 6000, maxWaitTimeMs: 200 });
  database = await createThrowawayDatabase();
  dir = mkdtempSync(join(tmpdir(), 'vus-worker-process-'));
  const blobs = await FileBlobStore.open(join(dir, 'blobs'));
  indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger, blobs });
  // The API only (as with WORKER_ENABLED=false): indexing happens in the child process.
  taskService = await startTaskService({
    bind: '127.0.0.1:0',
    database: { kind: 'postgres', url: database.url },
    bus,
    logger,
    indexServiceAddress: indexService.address,
  });
  indexes = createClient(loadProto().proto.vus.index.v1.IndexService, indexService.address);
  tasks = createClient(loadProto().proto.vus.task.v1.TaskService, taskService.address);
});

afterAll(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
  indexes?.close();
  tasks?.close();
  await taskService?.stop();
  await indexService?.stop();
  await bus?.close();
  await kafka?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the worker process; resolves with its health address once its log says it listens. */
function startWorker(): Promise<{ healthAddress: string; output: () => string }> {
  let output = '';
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: database.url,
      INDEX_SERVICE_ADDR: indexService.address,
      BLOB_DIR: join(dir, 'blobs'),
      WORK_DIR: join(dir, 'work'),
      MODELS_DIR: join(dir, 'no-models'),
      KAFKA_BROKERS: kafka.brokers.join(','),
      GRPC_BIND: '127.0.0.1:0',
      // Far beyond this test: a task found in time was found because task.created woke the worker.
      WORKER_POLL_MS: '3600000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker = child;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /"address":"([^"]+)"[^\n]*"msg":"gRPC server listening"/.exec(output);
      if (listening) resolve({ healthAddress: listening[1]!, output: () => output });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}):\n${output}`)));
  });
}

const rpc = <T>(orgId: string, invoke: Parameters<typeof callUnary<T>>[0]) => callUnary<T>(invoke, { orgId });

it('answers health checks, and a new task published on Kafka wakes it to index', async () => {
  const started = await startWorker();
  expect(await checkHealth(started.healthAddress, '')).toBe(true);

  const org = newId();
  const index = await rpc<{ id: string }>(org, (md, opts, cb) =>
    indexes.CreateIndex({ name: `i-${newId()}`, models: [{ name: 'marengo2.6', options: ['visual'] }], addons: [] }, md, opts, cb),
  );
  const blobs = await FileBlobStore.open(join(dir, 'blobs'));
  const key = `uploads/${newId()}/video_file-0`;
  await blobs.put(key, createReadStream((await textScenesVideo()).path));
  const task = await rpc<Task>(org, (md, opts, cb) => tasks.CreateTask({ index_id: index.id, video_blob_key: key, filename: 'scenes.mp4' }, md, opts, cb));

  let status = task.status;
  while (status !== 'ready' && status !== 'failed') {
    await new Promise((r) => setTimeout(r, 200));
    status = (await rpc<Task>(org, (md, opts, cb) => tasks.GetTask({ task_id: task.id }, md, opts, cb))).status;
  }
  expect([status, started.output()]).toEqual(['ready', started.output()]);

  // SIGTERM: a clean stop (health server, worker, bus, database).
  const exited = new Promise<number | null>((resolve) => worker!.once('exit', resolve));
  worker!.kill('SIGTERM');
  expect(await exited).toBe(0);
});
