/**
 * A worker process killed in the middle of indexing (SIGKILL: no clean-up, its lease stays) must
 * not lose the task nor make two videos: once another worker runs, the lease expires, the task is
 * taken over and ends `ready` with exactly one video.
 *
 * The workers are real child processes running the built worker (`dist/worker/main.js`; `npm test`
 * builds first). index-service and task-service's API run in this process.
 */
import { FileBlobStore } from '@vus/blob';
import { createLogger } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db';
import { callUnary, createClient, loadProto } from '@vus/grpc';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { ListVideosResponse } from '@vus/grpc/types/index/v1/ListVideosResponse';
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
const ORG = '6528dde58f9cd95a98cbd075';
const logger = createLogger({ service: 'kill-test', level: 'silent' });

let database: ThrowawayDatabase;
let blobDir: string;
let indexService: RunningIndexService;
let taskService: RunningTaskService;
let indexes: IndexServiceClient;
let tasks: TaskServiceClient;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(WORKER_MAIN)) throw new Error(`${WORKER_MAIN} is missing: build first (npx tsc -b services/task-service)`);
  database = await createThrowawayDatabase();
  blobDir = mkdtempSync(join(tmpdir(), 'vus-kill-'));
  const blobs = await FileBlobStore.open(join(blobDir, 'blobs'));
  indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger, blobs });
  // The API only: indexing happens in the child processes.
  taskService = await startTaskService({ bind: '127.0.0.1:0', database: { kind: 'postgres', url: database.url }, logger, indexServiceAddress: indexService.address, blobs });
  indexes = createClient(loadProto().proto.vus.index.v1.IndexService, indexService.address);
  tasks = createClient(loadProto().proto.vus.task.v1.TaskService, taskService.address);
  await blobs.put('uploads/kill-test/video_file-0', createReadStream((await textScenesVideo()).path));
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  indexes?.close();
  tasks?.close();
  await taskService?.stop();
  await indexService?.stop();
  await database?.drop();
  rmSync(blobDir, { recursive: true, force: true });
});

function startWorker(): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: database.url,
      INDEX_SERVICE_ADDR: indexService.address,
      BLOB_DIR: join(blobDir, 'blobs'),
      WORK_DIR: join(blobDir, 'work'),
      MODELS_DIR: join(blobDir, 'no-models'),
      WORKER_LEASE_MS: '1500',
      WORKER_POLL_MS: '200',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  children.push(child);
  return { child, output: () => output };
}

const rpc = <T>(invoke: Parameters<typeof callUnary<T>>[0]) => callUnary<T>(invoke, { orgId: ORG });
const getTask = (id: string) => rpc<Task>((md, opts, cb) => tasks.GetTask({ task_id: id }, md, opts, cb));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, diagnostics: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${diagnostics()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('finishes a task whose worker was killed mid-indexing, with exactly one video', async () => {
  const index = await rpc<{ id: string }>((md, opts, cb) =>
    indexes.CreateIndex({ name: 'kill', models: [{ name: 'marengo2.6', options: ['visual', 'text_in_video'] }], addons: [] }, md, opts, cb),
  );
  const task = await rpc<Task>((md, opts, cb) =>
    tasks.CreateTask({ index_id: index.id, video_blob_key: 'uploads/kill-test/video_file-0', filename: 'scenes.mp4' }, md, opts, cb),
  );

  const first = startWorker();
  await waitFor('indexing', async () => (await getTask(task.id)).status === 'indexing', 60_000, first.output);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  expect(first.child.signalCode).toBe('SIGKILL');
  expect((await getTask(task.id)).status).toBe('indexing');

  const second = startWorker();
  await waitFor('ready', async () => ['ready', 'failed'].includes((await getTask(task.id)).status), 90_000, second.output);
  const finished = await getTask(task.id);
  expect(finished).toMatchObject({ status: 'ready', failure: null });
  expect(finished.extractors_run).toEqual(expect.arrayContaining(['text_in_video', 'visual']));
  // No CLIP in MODELS_DIR: recorded as skipped, with the registry's reason.
  expect(finished.extractors_skipped).toEqual([{ name: 'clip', reason: expect.stringMatching(/not in MODELS_DIR/) }]);

  const videos = await rpc<ListVideosResponse>((md, opts, cb) => indexes.ListVideos({ index_id: index.id }, md, opts, cb));
  expect(videos.data.map((v) => v.id)).toEqual([task.video_id]);
  // Two claims: the killed worker's, and the one that took over after its lease ran out.
  const { rows } = await database.db.query<{ attempts: number }>('SELECT attempts FROM tasks WHERE id = $1', [task.id]);
  expect(rows[0]!.attempts).toBe(2);
  second.child.kill('SIGTERM');
  await new Promise((resolve) => second.child.once('exit', resolve));
}, 180_000);
