/**
 * A worker process killed in the middle of indexing (SIGKILL: no clean-up, its lease stays) must
 * not lose the task nor make two videos: once another worker runs, the lease expires, the task is
 * taken over and ends `ready` with exactly one video.
 *
 * The workers are real child processes running the built worker (`dist/worker/main.js`; `npm test`
 * builds first). index-service and task-service's API run in this process.
 */
import type { ListVideosResponse } from '@vus/grpc/types/index/v1/ListVideosResponse';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { textScenesVideo } from '@vus/testing';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTaskStack, type TaskStack } from './stack';

const ORG = '6528dde58f9cd95a98cbd075';

let stack: TaskStack;
let upload: string;

beforeAll(async () => {
  // The API only: indexing happens in the child processes.
  stack = await startTaskStack({ name: 'kill', database: 'postgres' });
  upload = await stack.upload((await textScenesVideo()).path);
}, 60_000);

afterAll(() => stack?.stop());

// A short lease for a quick takeover, but long enough that a loaded machine's slow heartbeat (model
// inference blocks the worker's loop) does not let the second worker's own lease lapse mid-run.
const startWorker = () => stack.spawnWorker({ WORKER_LEASE_MS: '4000', WORKER_POLL_MS: '200' });

it('finishes a task whose worker was killed mid-indexing, with exactly one video', async () => {
  const indexId = await stack.createIndex(ORG, ['visual', 'text_in_video']);
  const task = await stack.rpc<Task>(ORG, (md, opts, cb) =>
    stack.tasks.CreateTask({ index_id: indexId, video_blob_key: upload, filename: 'scenes.mp4' }, md, opts, cb),
  );

  // A folder a dead worker left for a task that is gone: the first worker sweeps it when it starts.
  const stale = join(stack.dir, 'work', 'task-000000000000000000000000-stale');
  mkdirSync(stale, { recursive: true });
  const first = startWorker();
  await stack.waitForTask(ORG, task.id, { until: (t) => t.status === 'indexing', diagnostics: first.output });
  expect(existsSync(stale)).toBe(false);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  expect(first.child.signalCode).toBe('SIGKILL');
  expect((await stack.getTask(ORG, task.id)).status).toBe('indexing');
  // The killed claim's scratch folder (a copy of the upload) stays behind…
  const scratchOf = () => readdirSync(join(stack.dir, 'work')).filter((name) => name.startsWith(`task-${task.id}-`));
  const leftovers = scratchOf();
  expect(leftovers).toHaveLength(1);

  const second = startWorker();
  const finished = await stack.waitForTask(ORG, task.id, { timeoutMs: 90_000, diagnostics: second.output });
  expect(finished).toMatchObject({ status: 'ready', failure: null });
  // …until the claim that takes the task over removes it (its own goes when that claim ends).
  expect(scratchOf()).not.toContain(leftovers[0]);
  expect(second.output()).toContain('removed the scratch folders of an earlier claim');
  expect(finished.extractors_run).toEqual(expect.arrayContaining(['text_in_video', 'visual']));
  // No embed-service (the model server) for these workers: clip vectors are recorded as skipped, saying why.
  expect(finished.extractors_skipped).toEqual([{ name: 'clip', reason: expect.stringMatching(/no embed-service is configured/) }]);

  const videos = await stack.rpc<ListVideosResponse>(ORG, (md, opts, cb) => stack.indexes.ListVideos({ index_id: indexId }, md, opts, cb));
  expect(videos.data.map((v) => v.id)).toEqual([task.video_id]);
  // Two claims: the killed worker's, and the one that took over after its lease ran out.
  const { rows } = await stack.database!.db.query<{ attempts: number }>(
    "SELECT attempts FROM jobs WHERE kind = 'index-task' AND subject_id = $1",
    [task.id],
  );
  expect(rows[0]!.attempts).toBe(2);
  second.child.kill('SIGTERM');
  await new Promise((resolve) => second.child.once('exit', resolve));
}, 180_000);
