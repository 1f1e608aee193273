#!/usr/bin/env node
/**
 * The bundled frame models on this machine's CPU.
 *
 *   npx tsc -b libs/models && node scripts/bench/models.js [runs=10]
 *   npm run build -w @vus/models -w task-service && node scripts/bench/models.js --example [--threads 0,2,3] [--frame-pass] [--lines DIR]
 *
 * Without --example: load time, then mean / p50 / p95 milliseconds per 1280×720 JPEG frame for
 * PaddleOCR (a frame with two lines of text), the COCO detector and BlazeFace (a frame with a
 * person), and peak RSS.
 *
 * With --example (issue 30): the SDK's example.mp4 sampled as the indexing worker samples it (its
 * frame rate and width), and for each MODELS_VISION_THREADS value in --threads:
 * - the text reader on every sampled frame in order: CPU ms per frame of the whole process and of
 *   its main thread (what the event loop loses: JavaScript and, in-process, onnxruntime's runs),
 *   wall ms per frame, the event loop's longest stall, and what was read (line-frames, distinct
 *   lines, a digest of every frame's lines: equal digests, equal readings; --lines DIR writes them
 *   out, one frame a line);
 * - with --frame-pass, the worker's frame pass (analyseFrames: text, objects, faces, face
 *   embeddings, the scene descriptor, with the worker's gating) over the example: wall seconds,
 *   CPU seconds of the process and of its main thread.
 * CPU seconds move less with a shared machine's load than wall time; the load average is printed.
 * Main-thread CPU is read from /proc (Linux). Figures, not pass/fail: tests never check time.
 */
'use strict';

const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { mkdir, writeFile } = require('node:fs/promises');
const { cpus, loadavg, tmpdir } = require('node:os');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { parseArgs } = require('node:util');
const sharp = require('sharp');
const {
  paddleOcrProvider,
  cocoDetectorProvider,
  blazeFaceProvider,
  createModelRegistry,
  ModelRegistry,
} = require('../../libs/models/dist');

const { values: args, positionals } = parseArgs({
  options: {
    example: { type: 'boolean', default: false },
    threads: { type: 'string', default: '0,2,3' },
    'frame-pass': { type: 'boolean', default: false },
    lines: { type: 'string' },
  },
  allowPositionals: true,
});
const runs = Number(positionals[0] ?? 10);
let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
setInterval(sampleRss, 20).unref();

async function textFrame() {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720"><rect width="100%" height="100%" fill="#1d2b3a"/>
    <text x="80" y="140" font-family="DejaVu Sans" font-size="64" fill="#fff">BREAKING NEWS</text>
    <text x="80" y="640" font-family="DejaVu Sans" font-size="36" fill="#fff">Quarterly revenue grew 42 percent in Lisbon</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

async function personFrame() {
  // A portrait from the screenshot inside the installed @vladmandic/human package, on a 720p canvas.
  const screenshot = path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'assets', 'screenshot-facedetect.jpg');
  const portrait = await sharp(screenshot).extract({ left: 8, top: 345, width: 150, height: 152 }).resize(450, 456).toBuffer();
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: '#7a8a99' } })
    .composite([{ input: portrait, left: 600, top: 120 }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

function stats(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  return `mean ${mean.toFixed(0)} ms  p50 ${at(0.5).toFixed(0)} ms  p95 ${at(0.95).toFixed(0)} ms`;
}

async function bench(name, load, run) {
  let start = performance.now();
  const model = await load();
  const loadMs = performance.now() - start;
  await run(model); // warm-up: first inference allocates and optimises
  const times = [];
  let last;
  for (let i = 0; i < runs; i++) {
    start = performance.now();
    last = await run(model);
    times.push(performance.now() - start);
    sampleRss();
  }
  console.log(`${name.padEnd(22)} load ${loadMs.toFixed(0).padStart(5)} ms  ${stats(times)}  → ${last}`);
}

async function syntheticFrames() {
  const registry = new ModelRegistry([paddleOcrProvider(), cocoDetectorProvider(), blazeFaceProvider()]);
  const [text, person] = await Promise.all([textFrame(), personFrame()]);
  console.log(`node ${process.version}, ${cpus().length} CPUs, ${runs} runs per model, 1280×720 JPEG frames`);
  await bench(
    'PaddleOCR v4 (720p)',
    () => registry.get('text_reader'),
    async (m) => (await m.readText(text)).map((l) => l.text).join(' | '),
  );
  await bench(
    'COCO centernet (720p)',
    () => registry.get('object_detector'),
    async (m) => (await m.detectObjects(person)).map((o) => `${o.label} ${o.score.toFixed(2)}`).join(', '),
  );
  await bench(
    'BlazeFace (720p)',
    () => registry.get('face_detector'),
    async (m) => `${(await m.detectFaces(person)).length} face(s)`,
  );
  console.log(`peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
  await registry.dispose();
}

/** CPU seconds of the whole process and of its main thread (whose thread id is the process id). */
function cpuSeconds() {
  const usage = process.cpuUsage();
  const fields = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { process: (usage.user + usage.system) / 1e6, main: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/** Runs `work`, and what it cost: wall and CPU seconds, the event loop's longest stall (ms). */
async function measured(work) {
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const before = cpuSeconds();
  const started = performance.now();
  const result = await work();
  const wall = (performance.now() - started) / 1000;
  const after = cpuSeconds();
  stalls.disable();
  return { result, wall, cpu: after.process - before.process, main: after.main - before.main, stallMs: stalls.max / 1e6 };
}

/** The frame models' registry as a service builds it, with `visionThreads` threads and no downloadable models. */
function frameModels(visionThreads) {
  return createModelRegistry({
    modelsDir: path.join(tmpdir(), 'vus-bench-no-models'),
    allowDownload: false,
    clipModel: 'absent/clip',
    whisperModel: 'absent/whisper',
    visionThreads,
  });
}

async function textOnExample(frames, visionThreads) {
  const registry = frameModels(visionThreads);
  try {
    const reader = await registry.get('text_reader');
    await reader.readText(frames[0]); // warm-up, as the worker's models are loaded and run before a video
    const {
      result: read,
      wall,
      cpu,
      main,
      stallMs,
    } = await measured(async () => {
      const read = [];
      for (const frame of frames) read.push((await reader.readText(frame)).map((line) => line.text));
      return read;
    });
    const perFrame = (seconds) => `${((1000 * seconds) / frames.length).toFixed(1)} ms`;
    const text = read.map((lines) => lines.join(' | ')).join('\n') + '\n';
    const distinct = new Set(read.flat()).size;
    const lineFrames = read.reduce((sum, lines) => sum + lines.length, 0);
    console.log(
      `  text reader, threads ${visionThreads}: CPU ${perFrame(cpu)}/frame, main thread ${perFrame(main)}/frame, wall ${perFrame(wall)}/frame,` +
        ` longest event-loop stall ${stallMs.toFixed(0)} ms | ${lineFrames} line-frames, ${distinct} distinct lines,` +
        ` digest ${createHash('sha256').update(text).digest('hex').slice(0, 12)} (load ${loadavg()[0].toFixed(1)})`,
    );
    if (args.lines) {
      await mkdir(args.lines, { recursive: true });
      await writeFile(path.join(args.lines, `text-threads-${visionThreads}.txt`), text);
    }
  } finally {
    await registry.dispose();
  }
}

async function framePassOnExample(file, probe, visionThreads) {
  const { sceneDescriptor } = require('../../libs/models/dist');
  const { WORKER_DEFAULTS } = require('../../services/task-service/dist/worker/start.js');
  const { analyseFrames } = require('../../services/task-service/dist/worker/extract/frames.js');
  const registry = frameModels(visionThreads);
  try {
    const [textReader, objectDetector, faceDetector, faceEmbedder] = await Promise.all(
      ['text_reader', 'object_detector', 'face_detector', 'face_embedder'].map((c) => registry.get(c)),
    );
    const models = { textReader, objectDetector, faceDetector, faceEmbedder, embedder: { embedImage: (f) => sceneDescriptor(f) } };
    const options = {
      fps: WORKER_DEFAULTS.framesPerSecond,
      width: WORKER_DEFAULTS.frameWidth,
      maxThumbnails: WORKER_DEFAULTS.maxThumbnails,
    };
    const { result, wall, cpu, main, stallMs } = await measured(() => analyseFrames(file, probe, models, options));
    console.log(
      `  frame pass, threads ${visionThreads}: ${result.analysedFrames} frames analysed, wall ${wall.toFixed(1)} s, CPU ${cpu.toFixed(1)} s` +
        ` (main thread ${main.toFixed(1)} s), longest event-loop stall ${stallMs.toFixed(0)} ms (load ${loadavg()[0].toFixed(1)})`,
    );
  } finally {
    await registry.dispose();
  }
}

async function example() {
  const media = require('@vus/media');
  const { speechFixture } = require('@vus/testing');
  const { WORKER_DEFAULTS } = require('../../services/task-service/dist/worker/start.js');
  const file = speechFixture('twelvelabs-example').path;
  const probe = await media.probe(file);
  const frames = [];
  for await (const frame of media.sampleFrames(file, { fps: WORKER_DEFAULTS.framesPerSecond, width: WORKER_DEFAULTS.frameWidth, probe })) {
    frames.push(frame.data);
  }
  console.log(
    `node ${process.version}, ${cpus().length} CPUs, the SDK's example: ${frames.length} frames (${WORKER_DEFAULTS.framesPerSecond}/s, ≤ ${WORKER_DEFAULTS.frameWidth} px), load ${loadavg()[0].toFixed(1)}`,
  );
  for (const threads of args.threads.split(',').map(Number)) {
    await textOnExample(frames, threads);
    if (args['frame-pass']) await framePassOnExample(file, probe, threads);
  }
}

(args.example ? example() : syntheticFrames()).catch((error) => {
  console.error(error);
  process.exit(1);
});
