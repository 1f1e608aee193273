/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * The indexing worker inside task-service (PGlite, in-process bus), driven through the gRPC API:
 * the user's transcription file, CLIP and Whisper on the project's tiny models, media minutes charged
 * through the Meter (and refused past the limit), bounded concurrency.
 */
import { FileBlobStore, type BlobStore } from '@vus/blob';
import { createLogger, newId } from '@vus/core';
import { InProcessEventBus } from '@vus/events';
import { callUnary, createClient, loadProto } from '@vus/grpc';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { VideoArtifacts } from '@vus/grpc/types/index/v1/VideoArtifacts';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { memoryLimiters, Meter, staticLimits, UsageCounters, type SpendRecord } from '@vus/limits';
import { createModelRegistry, type ModelRegistry } from '@vus/models';
import { subtitledVideo, textScenesVideo } from '@vus/testing';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startTaskService, type RunningTaskService } from '../src/main';

// The project's generator of tiny CLIP and Whisper models (transformers.js layout, random weights).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tinyModels = require('../../../scripts/models/make-tiny-models.js') as { makeTinyModels(dir: string): { clip: string; whisper: string } };

const logger = createLogger({ service: 'worker-test', level: 'silent' });
const LIMITED_ORG = newId();

let dir: string;
let blobs: BlobStore;
let bus: InProcessEventBus;
let models: ModelRegistry;
let indexService: RunningIndexService;
let taskService: RunningTaskService;
let indexes: IndexServiceClient;
let tasks: TaskServiceClient;
const spend: (SpendRecord & { orgId: string })[] = [];
let counters: UsageCounters;
const limits = staticLimits([{ category: 'index', dimension: 'DPH', limit: 1 }]);
let busiest = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vus-worker-'));
  blobs = await FileBlobStore.open(join(dir, 'blobs'));
  bus = new InProcessEventBus();
  const tiny = tinyModels.makeTinyModels(join(dir, 'models'));
  models = createModelRegistry({ modelsDir: join(dir, 'models'), allowDownload: false, clipModel: tiny.clip, whisperModel: tiny.whisper });
  counters = new UsageCounters(memoryLimiters());
  const meter = new Meter(counters, limits, { recordSpend: async (orgId, record) => void spend.push({ ...record, orgId }) });
  indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, bus, logger, blobs });
  taskService = await startTaskService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus,
    logger,
    indexServiceAddress: indexService.address,
    blobs,
    worker: { blobs, models, meter, workRoot: join(dir, 'work'), concurrency: 1, pollMs: 200 },
  });
  indexes = createClient(loadProto().proto.vus.index.v1.IndexService, indexService.address);
  tasks = createClient(loadProto().proto.vus.task.v1.TaskService, taskService.address);
  const watch = setInterval(() => (busiest = Math.max(busiest, taskService.worker!.worker.activeTasks().length)), 20);
  watch.unref();
}, 60_000);

afterAll(async () => {
  indexes?.close();
  tasks?.close();
  await taskService?.stop();
  await indexService?.stop();
  await models?.dispose();
  await bus?.close();
  rmSync(dir, { recursive: true, force: true });
});

const rpc = <T>(orgId: string, invoke: Parameters<typeof callUnary<T>>[0]) => callUnary<T>(invoke, { orgId });

async function createIndex(orgId: string, options: string[]): Promise<string> {
  const index = await rpc<{ id: string }>(orgId, (md, opts, cb) =>
    indexes.CreateIndex({ name: `i-${newId()}`, models: [{ name: 'marengo2.6', options }], addons: [] }, md, opts, cb),
  );
  return index.id;
}

async function upload(path: string): Promise<string> {
  const key = `uploads/${newId()}/video_file-0`;
  await blobs.put(key, createReadStream(path));
  return key;
}

async function finished(orgId: string, taskId: string): Promise<Task> {
  for (;;) {
    const task = await rpc<Task>(orgId, (md, opts, cb) => tasks.GetTask({ task_id: taskId }, md, opts, cb));
    if (task.status === 'ready' || task.status === 'failed') return task;
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('takes the user’s transcription file over the subtitle track, and embeds keyframes when CLIP is installed', async () => {
  const org = newId();
  const indexId = await createIndex(org, ['visual', 'conversation']);
  const srt = 'transcripts/mine.srt';
  await blobs.put(srt, Readable.from([Buffer.from('1\n00:00:01,000 --> 00:00:02,500\nMy own words.\n\n2\n00:00:04,000 --> 00:00:05,000\nSecond line.\n')]));
  const created = await rpc<Task>(org, (md, opts, cb) =>
    tasks.CreateTask({ index_id: indexId, video_blob_key: '', transcription_blob_key: srt, filename: 'talk.mp4' }, md, opts, cb),
  ).catch((e: unknown) => e);
  // A blob key is required when no URL is given.
  expect(created).toMatchObject({ code: 'parameter_invalid' });

  const task = await rpc<Task>(org, async (md, opts, cb) =>
    tasks.CreateTask({ index_id: indexId, video_blob_key: await upload((await subtitledVideo()).path), transcription_blob_key: srt, filename: 'talk.mp4' }, md, opts, cb),
  );
  const done = await finished(org, task.id);
  expect(done).toMatchObject({ status: 'ready', system_metadata: { filename: 'talk.mp4', width: 640, height: 480 } });
  expect(done.extractors_run).toEqual(expect.arrayContaining(['visual', 'clip', 'transcription_file']));
  expect(done.extractors_skipped).toEqual([]);
  const artifacts = await rpc<VideoArtifacts>(org, (md, opts, cb) =>
    indexes.GetVideoArtifacts({ index_id: indexId, video_id: done.video_id, kinds: ['transcription'] }, md, opts, cb),
  );
  expect(artifacts.transcription.map(({ start, end, value }) => ({ start, end, value }))).toEqual([
    { start: 1, end: 2.5, value: 'My own words.' },
    { start: 4, end: 5, value: 'Second line.' },
  ]);
}, 60_000);

it('transcribes with Whisper a video that has no subtitles (the tiny model’s planted transcript)', async () => {
  const org = newId();
  const indexId = await createIndex(org, ['conversation']);
  const task = await rpc<Task>(org, async (md, opts, cb) =>
    tasks.CreateTask({ index_id: indexId, video_blob_key: await upload((await textScenesVideo()).path), filename: 'tone.mp4' }, md, opts, cb),
  );
  const done = await finished(org, task.id);
  expect(done).toMatchObject({ status: 'ready', extractors_run: ['whisper'], extractors_skipped: [] });
  const artifacts = await rpc<VideoArtifacts>(org, (md, opts, cb) =>
    indexes.GetVideoArtifacts({ index_id: indexId, video_id: done.video_id, kinds: ['transcription'] }, md, opts, cb),
  );
  expect(artifacts.transcription.map(({ start, end, value }) => ({ start, end, value }))).toEqual([{ start: 0, end: 1, value: 'blacksmith' }]);
}, 60_000);

it('charges the media minutes once per task, and fails a video longer than the minutes left with the 429 reason', async () => {
  const indexId = await createIndex(LIMITED_ORG, ['conversation']);
  const video = (await subtitledVideo()).path;
  const first = await rpc<Task>(LIMITED_ORG, async (md, opts, cb) => tasks.CreateTask({ index_id: indexId, video_blob_key: await upload(video) }, md, opts, cb));
  expect((await finished(LIMITED_ORG, first.id)).status).toBe('ready');
  expect(spend.filter((s) => s.orgId === LIMITED_ORG)).toEqual([
    expect.objectContaining({ idempotencyKey: `task:${first.id}`, unitKind: 'video_second', quantity: expect.closeTo(10, 0) }),
  ]);

  // 10 s used of the hour's minute; spend 45 s more elsewhere: a 10 s video no longer fits.
  await counters.reserve(LIMITED_ORG, 'index', 'duration', 45, await limits.limitsFor(LIMITED_ORG));
  const second = await rpc<Task>(LIMITED_ORG, async (md, opts, cb) => tasks.CreateTask({ index_id: indexId, video_blob_key: await upload(video) }, md, opts, cb));
  const refused = await finished(LIMITED_ORG, second.id);
  expect(refused).toMatchObject({ status: 'failed', failure: { code: 'too_many_requests', message: expect.stringMatching(/DPH:1\/hour/) } });
  expect(refused.status_history.map((h) => h.status)).toEqual(['validating', 'pending', 'failed']);
}, 60_000);

it('never works on more tasks at once than its concurrency', () => {
  expect(busiest).toBe(1);
});
