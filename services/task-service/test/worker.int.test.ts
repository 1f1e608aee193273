/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * The indexing worker inside task-service (PGlite, in-process bus), driven through the gRPC API:
 * the user's transcription file, CLIP and Whisper on the project's tiny models, media minutes reserved
 * (as billing-service does, on the limits Meter; refused past the limit) and reported as one usage
 * event per task, bounded concurrency.
 */
import { newId } from '@vus/core';
import { InProcessEventBus, type EventEnvelope } from '@vus/events';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { VideoArtifacts } from '@vus/grpc/types/index/v1/VideoArtifacts';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { memoryLimiters, Meter, staticLimits, UsageCounters } from '@vus/limits';
import { createModelRegistry } from '@vus/models';
import { serveFiles, subtitledVideo, textScenesVideo, waitFor } from '@vus/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { MediaMeter } from '../src/worker/pipeline-deps';
import { startTaskStack, type TaskStack } from './stack';

// The project's generator of tiny CLIP and Whisper models (transformers.js layout, random weights).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tinyModels = require('../../../scripts/models/make-tiny-models.js') as {
  makeTinyModels(dir: string): { clip: string; whisper: string };
};

const LIMITED_ORG = newId();

let stack: TaskStack;
/** The usage.recorded events the worker wrote (as billing-service consumes them). */
const usage: EventEnvelope[] = [];
let counters: UsageCounters;
const limits = staticLimits([{ category: 'index', dimension: 'DPH', limit: 1 }]);
let busiest = 0;

beforeAll(async () => {
  counters = new UsageCounters(memoryLimiters());
  // billing-service's ReserveUsage, without its once-per-key record: a second reservation would show in the counters.
  const budgets = new Meter(counters, limits);
  const meter: MediaMeter = { reserveMediaSeconds: (orgId, category, seconds) => budgets.reserveMediaSeconds(orgId, category, seconds) };
  const bus = new InProcessEventBus();
  await bus.subscribe({ group: 'test.usage', types: ['usage.recorded'], handler: async (event) => (usage.push(event), 'done') });
  stack = await startTaskStack({
    name: 'worker',
    bus,
    // Clip vectors come from embed-service, on the same registry (its tiny CLIP), as in embedded mode.
    embed: true,
    worker: ({ dir }) => {
      const tiny = tinyModels.makeTinyModels(join(dir, 'models'));
      return {
        models: createModelRegistry({
          modelsDir: join(dir, 'models'),
          allowDownload: false,
          clipModel: tiny.clip,
          whisperModel: tiny.whisper,
        }),
        meter,
        // video_url from the loopback server of the playlist test.
        fetch: { allowHosts: ['127.0.0.1'] },
      };
    },
  });
  const watch = setInterval(() => (busiest = Math.max(busiest, stack.taskService.worker!.worker.indexingTasks().length)), 20);
  watch.unref();
}, 60_000);

afterAll(() => stack?.stop());

it('takes the user’s transcription file over the subtitle track, and embeds keyframes when CLIP is installed', async () => {
  const org = newId();
  const indexId = await stack.createIndex(org, ['visual', 'conversation']);
  const srt = 'transcripts/mine.srt';
  await stack.blobs.put(
    srt,
    Readable.from([Buffer.from('1\n00:00:01,000 --> 00:00:02,500\nMy own words.\n\n2\n00:00:04,000 --> 00:00:05,000\nSecond line.\n')]),
  );
  const created = await stack
    .rpc<Task>(org, (md, opts, cb) =>
      stack.tasks.CreateTask({ index_id: indexId, video_blob_key: '', transcription_blob_key: srt, filename: 'talk.mp4' }, md, opts, cb),
    )
    .catch((e: unknown) => e);
  // A blob key is required when no URL is given.
  expect(created).toMatchObject({ code: 'parameter_invalid' });

  const task = await stack.rpc<Task>(org, async (md, opts, cb) =>
    stack.tasks.CreateTask(
      {
        index_id: indexId,
        video_blob_key: await stack.upload((await subtitledVideo()).path),
        transcription_blob_key: srt,
        filename: 'talk.mp4',
      },
      md,
      opts,
      cb,
    ),
  );
  const done = await stack.waitForTask(org, task.id);
  expect(done).toMatchObject({ status: 'ready', system_metadata: { filename: 'talk.mp4', width: 640, height: 480 } });
  expect(done.extractors_run).toEqual(expect.arrayContaining(['visual', 'clip', 'transcription_file']));
  expect(done.extractors_skipped).toEqual([]);
  const artifacts = await stack.rpc<VideoArtifacts>(org, (md, opts, cb) =>
    stack.indexes.GetVideoArtifacts({ index_id: indexId, video_id: done.video_id, kinds: ['transcription'] }, md, opts, cb),
  );
  expect(artifacts.transcription.map(({ start, end, value }) => ({ start, end, value }))).toEqual([
    { start: 1, end: 2.5, value: 'My own words.' },
    { start: 4, end: 5, value: 'Second line.' },
  ]);
}, 60_000);

it('transcribes with Whisper a video that has no subtitles (the tiny model’s planted transcript)', async () => {
  const org = newId();
  const indexId = await stack.createIndex(org, ['conversation']);
  const task = await stack.rpc<Task>(org, async (md, opts, cb) =>
    stack.tasks.CreateTask(
      { index_id: indexId, video_blob_key: await stack.upload((await textScenesVideo()).path), filename: 'tone.mp4' },
      md,
      opts,
      cb,
    ),
  );
  const done = await stack.waitForTask(org, task.id);
  expect(done).toMatchObject({ status: 'ready', extractors_run: ['whisper'], extractors_skipped: [] });
  const artifacts = await stack.rpc<VideoArtifacts>(org, (md, opts, cb) =>
    stack.indexes.GetVideoArtifacts({ index_id: indexId, video_id: done.video_id, kinds: ['transcription'] }, md, opts, cb),
  );
  expect(artifacts.transcription.map(({ start, end, value }) => ({ start, end, value }))).toEqual([
    { start: 0, end: 1, value: 'blacksmith' },
  ]);
  // The language the recogniser reported is kept with the video.
  const video = await stack.rpc<Video>(org, (md, opts, cb) =>
    stack.indexes.GetVideo({ index_id: indexId, video_id: done.video_id }, md, opts, cb),
  );
  expect(video.speech_language).toBe('en');
}, 60_000);

it('charges the media minutes once per task, and fails a video longer than the minutes left with the 429 reason', async () => {
  const indexId = await stack.createIndex(LIMITED_ORG, ['conversation']);
  const video = (await subtitledVideo()).path;
  const first = await stack.rpc<Task>(LIMITED_ORG, async (md, opts, cb) =>
    stack.tasks.CreateTask({ index_id: indexId, video_blob_key: await stack.upload(video) }, md, opts, cb),
  );
  expect((await stack.waitForTask(LIMITED_ORG, first.id)).status).toBe('ready');
  const usageOf = (org: string) => usage.filter((e) => e.org_id === org).map((e) => e.payload);
  await waitFor(() => usageOf(LIMITED_ORG).length > 0, 'the task’s usage event');
  expect(usageOf(LIMITED_ORG)).toEqual([
    expect.objectContaining({
      idempotency_key: `task:${first.id}`,
      kind: 'media_seconds',
      category: 'index',
      quantity: expect.closeTo(10, 0),
    }),
  ]);

  // 10 s used of the hour's minute; spend 45 s more elsewhere: a 10 s video no longer fits.
  await counters.reserve(LIMITED_ORG, 'index', 'duration', 45, await limits.limitsFor(LIMITED_ORG));
  const second = await stack.rpc<Task>(LIMITED_ORG, async (md, opts, cb) =>
    stack.tasks.CreateTask({ index_id: indexId, video_blob_key: await stack.upload(video) }, md, opts, cb),
  );
  const refused = await stack.waitForTask(LIMITED_ORG, second.id);
  expect(refused).toMatchObject({
    status: 'failed',
    failure: { code: 'too_many_requests', message: expect.stringMatching(/DPH:1\/hour/) },
  });
  expect(refused.status_history.map((h) => h.status)).toEqual(['validating', 'pending', 'failed']);
  expect(usageOf(LIMITED_ORG)).toHaveLength(1); // the refused video reports no usage
}, 60_000);

it('fails a "video" that is a playlist or manifest, uploaded or by video_url, without opening what it lists (issue 15, defect 1)', async () => {
  const org = newId();
  const indexId = await stack.createIndex(org, ['visual']);
  // What the playlists name: another organization's video, here on a loopback server that must see no request.
  const listed = await serveFiles({ 'secret.mp4': (await subtitledVideo()).path, 'secret.ts': (await subtitledVideo()).path });
  const dash = `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
 <Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="100000" width="640" height="480" codecs="avc1.64001e">
  <BaseURL>${listed.url('secret.mp4')}</BaseURL><SegmentBase/>
 </Representation></AdaptationSet></Period>
</MPD>
`;
  const hls = `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n${listed.url('secret.ts')}\n#EXT-X-ENDLIST\n`;
  const files = { 'dash.mp4': join(stack.dir, 'dash.mp4'), 'hls.mp4': join(stack.dir, 'hls.mp4') };
  await writeFile(files['dash.mp4'], dash);
  await writeFile(files['hls.mp4'], hls);
  const source = await serveFiles(files);
  try {
    const tasks = [
      ...(await Promise.all(Object.values(files).map(async (path) => ({ video_blob_key: await stack.upload(path) })))),
      ...Object.keys(files).map((name) => ({ video_url: source.url(name) })),
    ];
    for (const video of tasks) {
      const task = await stack.rpc<Task>(org, (md, opts, cb) =>
        stack.tasks.CreateTask({ index_id: indexId, filename: 'clip.mp4', ...video }, md, opts, cb),
      );
      const done = await stack.waitForTask(org, task.id);
      expect([video, done.status, done.failure?.code]).toEqual([video, 'failed', 'unsupported_file_type']);
    }
    expect(listed.requests).toEqual([]);
  } finally {
    await listed.close();
    await source.close();
  }
}, 60_000);

// A URL task's download runs beside in a fetch slot of its own (issue 28 item 10): it is not counted here.
it('never indexes more tasks at once than its concurrency', () => {
  expect(busiest).toBe(1);
});
