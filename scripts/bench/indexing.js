#!/usr/bin/env node
/**
 * Indexing benchmark: seconds of video indexed per wall-clock second on the generated 60 s 720p
 * fixture (a new scene every 5 s), per extractor and all together, and the peak RSS.
 *
 * 1. One pass per frame extractor (decode at 1 fps + that model on the frames that changed).
 * 2. The whole pipeline as it runs in production: index-service and task-service with its worker
 *    (PGlite, in this process), an index with every option and thumbnails; the time from
 *    `indexing` to `ready` in the task's status history (frames, all bundled models, thumbnails,
 *    CreateVideo, PutVideoArtifacts).
 *
 * Wall-clock figures: run it on a quiet machine. Uses the built packages:
 *
 *   npx tsc -b services/task-service services/index-service libs/testing && node scripts/bench/indexing.js
 */
'use strict';
const { mkdtemp, rm } = require('node:fs/promises');
const { createReadStream } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const media = require('@vus/media');
const { createModelRegistry } = require('@vus/models');
const { FileBlobStore } = require('@vus/blob');
const { createLogger, newId } = require('@vus/core');
const { InProcessEventBus } = require('@vus/events');
const { callUnary, createClient, loadProto } = require('@vus/grpc');
const { startIndexService } = require('@vus/index-service');
const { startTaskService } = require('@vus/task-service');
const { benchmarkVideo } = require('@vus/testing');
const { analyseFrames } = require('../../services/task-service/dist/worker/extract/frames.js');
const { WORKER_DEFAULTS } = require('../../services/task-service/dist/worker/start.js');

const FRAME_OPTIONS = {
  fps: WORKER_DEFAULTS.framesPerSecond,
  width: WORKER_DEFAULTS.frameWidth,
  maxThumbnails: WORKER_DEFAULTS.maxThumbnails,
};

function line(name, seconds, videoSeconds, extra = '') {
  const speed = `${(videoSeconds / seconds).toFixed(1)}x real time`;
  console.log(`${name.padEnd(40)} ${seconds.toFixed(2).padStart(7)} s  ${speed.padStart(16)}${extra ? `  ${extra}` : ''}`);
}

async function framePass(name, path, probe, models) {
  const start = performance.now();
  const analysis = await analyseFrames(path, probe, models, FRAME_OPTIONS);
  const seconds = (performance.now() - start) / 1000;
  const modelMs = Object.entries(analysis.timings).filter(([k, v]) => k !== 'decode' && v > 0);
  // Text is also read on the re-read frames of still stretches.
  const framesOf = (k) => analysis.analysedFrames + (k === 'text' ? analysis.recheckedFrames : 0);
  const perFrame = modelMs.map(([k, v]) => `${k} ${(v / Math.max(1, framesOf(k))).toFixed(0)} ms/frame`).join(', ');
  line(
    name,
    seconds,
    probe.durationSec,
    `${analysis.analysedFrames}/${analysis.observations.length} frames analysed, ${analysis.recheckedFrames} re-read${perFrame ? `; ${perFrame}` : ''}`,
  );
}

async function pipeline(path, registry, durationSec) {
  const dir = await mkdtemp(join(tmpdir(), 'vus-bench-indexing-'));
  const logger = createLogger({ service: 'bench', level: 'silent' });
  const blobs = await FileBlobStore.open(join(dir, 'blobs'));
  const bus = new InProcessEventBus();
  const indexService = await startIndexService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus,
    logger,
    blobs,
  });
  const taskService = await startTaskService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    bus,
    logger,
    indexServiceAddress: indexService.address,
    blobs,
    worker: { blobs, models: registry, workRoot: join(dir, 'work'), pollMs: 100 },
  });
  const { proto } = loadProto();
  const indexes = createClient(proto.vus.index.v1.IndexService, indexService.address);
  const tasks = createClient(proto.vus.task.v1.TaskService, taskService.address);
  const ctx = { orgId: newId() };
  try {
    const index = await callUnary(
      (md, opts, cb) =>
        indexes.CreateIndex(
          {
            name: 'bench',
            models: [{ name: 'marengo2.6', options: ['visual', 'conversation', 'text_in_video', 'logo'] }],
            addons: ['thumbnail'],
          },
          md,
          opts,
          cb,
        ),
      ctx,
    );
    await blobs.put('uploads/bench/video', createReadStream(path));
    const started = performance.now();
    const created = await callUnary(
      (md, opts, cb) =>
        tasks.CreateTask({ index_id: index.id, video_blob_key: 'uploads/bench/video', filename: 'bench.mp4' }, md, opts, cb),
      ctx,
    );
    let task;
    do {
      await new Promise((r) => setTimeout(r, 100));
      task = await callUnary((md, opts, cb) => tasks.GetTask({ task_id: created.id }, md, opts, cb), ctx);
    } while (task.status !== 'ready' && task.status !== 'failed');
    const total = (performance.now() - started) / 1000;
    if (task.status === 'failed') throw new Error(`the task failed: ${task.failure.message}`);
    const at = (status) => {
      const change = task.status_history.find((h) => h.status === status);
      return Number(change.at.seconds) + change.at.nanos / 1e9;
    };
    line(
      'pipeline: indexing → ready',
      at('ready') - at('indexing'),
      durationSec,
      `ran: ${task.extractors_run.join(', ')}; skipped: ${task.extractors_skipped.map((s) => s.name).join(', ') || 'none'}`,
    );
    line('pipeline: upload stored → ready', total, durationSec, 'probe, validation, every stage');
  } finally {
    indexes.close();
    tasks.close();
    await taskService.stop();
    await indexService.stop();
    await bus.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(await media.mediaToolsVersion());
  const { path } = await benchmarkVideo();
  const probe = await media.probe(path);
  console.log(`fixture: ${path} (${probe.durationSec} s, ${probe.video.width}x${probe.video.height}, ${probe.video.fps} fps)`);
  const registry = createModelRegistry({
    modelsDir: join(tmpdir(), 'vus-bench-no-models'),
    allowDownload: false,
    clipModel: 'absent/clip',
    whisperModel: 'absent/whisper',
  });
  const [textReader, objectDetector, faceDetector] = await Promise.all([
    registry.get('text_reader'),
    registry.get('object_detector'),
    registry.get('face_detector'),
  ]);

  await framePass('decode only (1 fps, change detection)', path, probe, {});
  await framePass('text in video (PaddleOCR v4)', path, probe, { textReader });
  await framePass('objects (COCO centernet)', path, probe, { objectDetector });
  await framePass('faces (BlazeFace)', path, probe, { faceDetector });
  await framePass('all frame extractors together', path, probe, { textReader, objectDetector, faceDetector });
  console.log(`peak RSS of the frame passes: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  await pipeline(path, registry, probe.durationSec);
  await registry.dispose();
  console.log(
    `peak RSS with the pipeline (two PGlite databases in this process too): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
