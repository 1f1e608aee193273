#!/usr/bin/env node
/**
 * Indexing on real footage (issue 30): the SDK's example.mp4 (160.6 s of news, 640×360, speech, no
 * subtitles) and a 10.7-minute piece made of it four times over (stream copy), indexed by `npm start`
 * with every bundled extractor an index of marengo3.0 and pegasus1.2 (visual, audio) asks for.
 *
 * 1. `profile`: each stage alone in this process, as the worker calls it, with its CPU seconds
 *    (this process's threads and its finished children: ffmpeg, pocketsphinx) and wall seconds:
 *    decoding the sampled frames (and their JPEG thumbnails), OCR, the object detector, faces, the
 *    scene descriptor (embed-service's vector of each analysed frame), the audio track and speech
 *    recognition, the HLS stream. Concept vectors are not made while indexing (embed-service makes
 *    them on request from the stored segments), so they are not a stage here.
 * 2. `one`, `long`: the built embedded server (`npm start`) in its own process indexes the example
 *    (one) or the 10.7-minute piece (long): wall seconds from the stored upload to `ready`, the
 *    server's CPU seconds over that time (its threads and children), its peak RSS; whole pipeline
 *    and, with `--no-speech` (MODELS_POCKETSPHINX=off), without speech.
 * 3. `queue`: four copies of the example uploaded at once to one server: wall seconds until the
 *    last is ready, × real time over the four, videos per hour.
 *
 * The machine may be shared: each figure is printed with the 1-minute load average before and
 * after, and `--runs` repeats it (CPU seconds move less with load than wall seconds).
 *
 *   npm run build && node scripts/bench/indexing-real.js [--parts profile,one,long,queue] [--runs 1] [--no-speech] [--speech-only]
 *     [--profile-seconds 40] [--warm] [--env KEY=VALUE ...]
 */
'use strict';
const { mkdir, mkdtemp, rm, readFile, writeFile } = require('node:fs/promises');
const { readdirSync, readFileSync } = require('node:fs');
const { loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { parseArgs } = require('node:util');
const media = require('@vus/media');
const { sceneDescriptor } = require('@vus/models');
const { cachedFixture, speechFixture, speechFixtureExcerpt } = require('@vus/testing');
const { WORKER_DEFAULTS } = require('../../services/task-service/dist/worker/start.js');
const { analyseFrames } = require('../../services/task-service/dist/worker/extract/frames.js');
const { startEmbeddedServer, bundledModelRegistry, cpuSecondsOf, procStat, residentKib, TICKS_PER_SECOND } = require('./lib');

const { values: args } = parseArgs({
  options: {
    parts: { type: 'string', default: 'profile,one,long,queue' },
    runs: { type: 'string', default: '1' },
    'no-speech': { type: 'boolean', default: false },
    'speech-only': { type: 'boolean', default: false },
    /** Profile only the first this many seconds (re-encoded, cached): on a busy machine the whole clip's frame pass can outlast ffmpeg's deadline. */
    'profile-seconds': { type: 'string' },
    /** WORKER_CONCURRENCY of the server (default: its own default). */
    concurrency: { type: 'string' },
    /**
     * Index a 10 s excerpt of the example first, then measure: a running service's figure (its model
     * threads started, their code compiled), where the default measures a server's first video.
     */
    warm: { type: 'boolean', default: false },
    /** KEY=VALUE over the server's environment (repeatable), e.g. --env MODELS_VISION_THREADS=3. */
    env: { type: 'string', multiple: true, default: [] },
  },
});
const parts = new Set(args.parts.split(','));
const runs = Number(args.runs);
const QUEUED = 4;
const round = (n, digits = 1) => (Math.round(n * 10 ** digits) / 10 ** digits).toFixed(digits);
const load = () => round(loadavg()[0], 1);

/** The example, and the example four times over (10.7 min), as one file without re-encoding. */
async function footage() {
  const example = speechFixture('twelvelabs-example');
  const long = await cachedFixture('example-x4', 'mp4', { file: example.file, package: example.package, times: 4 }, async (out) => {
    const list = `${out}.txt`;
    await writeFile(list, `file '${example.path.replace(/'/g, "'\\''")}'\n`.repeat(4));
    await media.runFfmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-f', 'mp4', out]);
    await rm(list, { force: true });
  });
  return { example: example.path, long };
}

/**
 * CPU seconds of each of a process's threads by thread id, with its name (the main thread is the
 * process's name, e.g. `node`, as are worker threads on Node 20; libuv's pool `libuv-worker`, V8's
 * `V8 DefaultWorke`…).
 */
function threadCpuOf(pid) {
  const byTid = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const { name, fields } = procStat(`/proc/${pid}/task/${tid}/stat`);
      byTid[tid] = { name, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byTid;
}

/**
 * Where a process's CPU went between two threadCpuOf readings (threads that ended are missing), by
 * thread name, largest first; a name several busy threads share lists each one's share, e.g.
 * `node 28.8 (10.1, 7.9, 7.5, 3.3)`: the main thread and the model threads.
 */
function threadCpuSpent(before, after) {
  const byName = {};
  for (const [tid, { name, seconds }] of Object.entries(after)) (byName[name] ??= []).push(seconds - (before[tid]?.seconds ?? 0));
  return Object.entries(byName)
    .map(([name, spent]) => ({ name, total: spent.reduce((a, b) => a + b, 0), busy: spent.filter((s) => s >= 0.5).sort((a, b) => b - a) }))
    .filter(({ total }) => total >= 0.05)
    .sort((a, b) => b.total - a.total)
    .map(({ name, total, busy }) => `${name} ${round(total)}${busy.length > 1 ? ` (${busy.map((s) => round(s)).join(', ')})` : ''}`)
    .join(', ');
}

/**
 * A process's largest resident mappings (MiB, largest first): WASM memories (each PGlite's, TF.js's)
 * and V8's heap are anonymous, so their sizes say which of them holds the memory.
 */
function largestMappings(pid, count = 12) {
  const sizes = [];
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) name = mapping[1] || 'anonymous';
    else if (line.startsWith('Rss:')) sizes.push([name, Number(line.split(/\s+/)[1]) / 1024]);
  }
  return sizes
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([n, mib]) => `${Math.round(mib)}${n === 'anonymous' ? '' : ` ${n.split('/').pop()}`}`)
    .join(', ');
}

/** Runs `work`, adding its CPU seconds (this process's threads) to `totals[key]`. */
function cpuMeter() {
  const totals = {};
  const measure = async (key, work) => {
    const before = process.cpuUsage();
    try {
      return await work();
    } finally {
      const used = process.cpuUsage(before);
      totals[key] = (totals[key] ?? 0) + (used.user + used.system) / 1e6;
    }
  };
  return { totals, measure };
}

function row(name, cpu, wall, videoSec, extra = '') {
  console.log(
    `  ${name.padEnd(28)} CPU ${round(cpu).padStart(6)} s  wall ${round(wall).padStart(6)} s  ${`${round(videoSec / wall)}× real time`.padStart(18)}${extra ? `  ${extra}` : ''}`,
  );
}

async function profile(file) {
  const probed = await media.probe(file);
  const registry = bundledModelRegistry();
  const [textReader, objectDetector, faceDetector, recognizer] = await Promise.all(
    ['text_reader', 'object_detector', 'face_detector', 'speech_recognizer'].map((c) => registry.get(c)),
  );
  const { totals, measure } = cpuMeter();
  console.log(`profile: ${file} (${probed.durationSec} s), load ${load()}`);
  // Decoded first, then analysed: ffmpeg's deadline (2 s per second of video) must not run while
  // the models work on a busy machine. The worker's rate and width, its change detector.
  const cpu0 = cpuSecondsOf();
  let started = performance.now();
  const changes = new media.FrameChangeDetector();
  const changed = [];
  let sampled = 0;
  for await (const frame of media.sampleFrames(file, {
    fps: WORKER_DEFAULTS.framesPerSecond,
    width: WORKER_DEFAULTS.frameWidth,
    probe: probed,
  })) {
    sampled++;
    if (changes.hasChanged(frame.signature)) changed.push(frame.data);
  }
  const cpu1 = cpuSecondsOf();
  row(
    'decode + thumbnails',
    cpu1.children - cpu0.children + cpu1.own - cpu0.own,
    (performance.now() - started) / 1000,
    probed.durationSec,
    `${changed.length}/${sampled} frames changed`,
  );
  const models = [
    ['OCR', (frame) => textReader.readText(frame)],
    ['objects', (frame) => objectDetector.detectObjects(frame)],
    ['faces', (frame) => faceDetector.detectFaces(frame)],
    ['scene descriptor', (frame) => sceneDescriptor(frame)],
  ];
  for (const [name, model] of models) {
    started = performance.now();
    for (const frame of changed) await measure(name, () => model(frame));
    const wall = (performance.now() - started) / 1000;
    row(name, totals[name], wall, probed.durationSec, `${round((1000 * totals[name]) / Math.max(1, changed.length), 0)} CPU-ms/frame`);
  }
  // Faces embedded for entity search (issue 32 §1): the worker's frame pass only, as it gates them.
  const faceEmbedder = await registry.find('face_embedder');
  await framePass(file, probed, { textReader, objectDetector, faceDetector, faceEmbedder });

  const dir = await mkdtemp(join(tmpdir(), 'vus-bench-real-'));
  try {
    let before = cpuSecondsOf();
    let at = performance.now();
    const audio = await media.extractAudio(file, join(dir, 'speech.wav'), { probe: probed });
    let after = cpuSecondsOf();
    row('audio track', after.children - before.children + after.own - before.own, (performance.now() - at) / 1000, probed.durationSec);
    before = after;
    at = performance.now();
    const lines = await recognizer.transcribe(audio.path);
    after = cpuSecondsOf();
    row(
      'speech (pocketsphinx)',
      after.children - before.children + after.own - before.own,
      (performance.now() - at) / 1000,
      probed.durationSec,
      `${lines.length} lines`,
    );
    before = after;
    at = performance.now();
    await mkdir(join(dir, 'hls'));
    const hls = await media.makeHls(file, join(dir, 'hls'), { probe: probed });
    after = cpuSecondsOf();
    row(
      'HLS',
      after.children - before.children + after.own - before.own,
      (performance.now() - at) / 1000,
      probed.durationSec,
      `plan ${JSON.stringify(hls.plan)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`  (load after ${load()})`);
}

/**
 * The worker's own frame pass (analyseFrames): decoding and every frame model with the worker's
 * gating (which frames each model runs on), each model's own CPU seconds (its calls replayed alone)
 * and the frames it ran on.
 */
async function framePass(file, probed, { textReader, objectDetector, faceDetector, faceEmbedder }) {
  // The lanes overlap, so CPU measured around a call in the pass counts the other lanes' work too:
  // each model's calls are recorded (with their frames) and replayed alone after the pass, in order,
  // which gives each model's own CPU.
  const { totals, measure } = cpuMeter();
  const calls = {};
  const replays = [];
  const model =
    (name, run) =>
    (...args) => {
      calls[name] = (calls[name] ?? 0) + 1;
      replays.push([name, () => run(...args)]);
      return run(...args);
    };
  let facesEmbedded = 0;
  const reuse0 = { ...(textReader.counts ?? {}) };
  const cpu0 = cpuSecondsOf();
  const started = performance.now();
  const analysis = await analyseFrames(
    file,
    probed,
    {
      textReader: { readText: model('OCR', (f) => textReader.readText(f)) },
      objectDetector: { detectObjects: model('objects', (f) => objectDetector.detectObjects(f)) },
      faceDetector: { detectFaces: model('faces', (f) => faceDetector.detectFaces(f)) },
      embedder: { embedImage: model('scene descriptor', (f) => sceneDescriptor(f)) },
      ...(faceEmbedder
        ? {
            faceEmbedder: {
              dimensions: faceEmbedder.dimensions,
              embedFaces: model('face embedding', (f) => faceEmbedder.embedFaces(f)),
              embedDetectedFaces: model('face embedding', (f, faces) => {
                facesEmbedded += faces.length;
                return faceEmbedder.embedDetectedFaces(f, faces);
              }),
            },
          }
        : {}),
    },
    { fps: WORKER_DEFAULTS.framesPerSecond, width: WORKER_DEFAULTS.frameWidth, maxThumbnails: WORKER_DEFAULTS.maxThumbnails },
  );
  const wall = (performance.now() - started) / 1000;
  const cpu1 = cpuSecondsOf();
  const all = cpu1.own - cpu0.own + cpu1.children - cpu0.children;
  const reuse1 = { ...(textReader.counts ?? {}) };
  const embeddedInPass = facesEmbedded;
  for (const [name, run] of replays) await measure(name, run);
  facesEmbedded = embeddedInPass;
  const models = Object.values(totals).reduce((a, b) => a + b, 0);
  console.log(
    `  worker frame pass: ${analysis.observations.length} frames sampled, ${analysis.analysedFrames} analysed, objects on ${analysis.objectFrames ?? analysis.analysedFrames}`,
  );
  const boxes = textReader.counts
    ? `, boxes recognised ${reuse1.recognised - (reuse0.recognised ?? 0)}, reused ${reuse1.reused - (reuse0.reused ?? 0)}`
    : '';
  row('  decode + rest', all - models, wall, probed.durationSec, 'the pass less its models replayed alone');
  for (const name of ['OCR', 'objects', 'faces', 'face embedding', 'scene descriptor']) {
    const detail = name === 'OCR' ? boxes : name === 'face embedding' && facesEmbedded ? `, ${facesEmbedded} faces` : '';
    row(`  ${name}`, totals[name] ?? 0, wall, probed.durationSec, `${calls[name] ?? 0} frames${detail}`);
  }
  row('frame pass (worker)', all, wall, probed.durationSec);
}

/** The worker's own account of each run (its `task run stages` log lines), as the server writes them. */
function workerRuns(stdout) {
  const runs = [];
  require('node:readline')
    .createInterface({ input: stdout })
    .on('line', (line) => {
      if (!line.includes('"task run stages"')) return;
      try {
        runs.push(JSON.parse(line));
      } catch {
        // Not a log line of ours.
      }
    });
  return runs;
}

/**
 * Each task's runs: how long after its creation the worker took it (waited), then each stage
 * (indented when it overlaps one before it: nested or run alongside), and the run's time outside any top-level stage.
 */
function printWorkerRuns(runs, ids, uploadedAt) {
  for (const [n, id] of ids.entries()) {
    for (const run of runs.filter((r) => r.taskId === id)) {
      const stages = [...run.stages].sort((a, b) => a.startMs - b.startMs || b.seconds - a.seconds);
      const end = Math.max(0, ...stages.map((s) => s.startMs + s.seconds * 1000));
      const began = (Date.parse(run.time) - run.runSec * 1000 - uploadedAt) / 1000;
      console.log(
        `    task ${n + 1} run (${run.status}): taken ${round(run.waitedSec, 2)} s after creation, ran from ${round(began, 2)} s to ${round(began + run.runSec, 2)} s after the upload, stages over ${round(end / 1000, 2)} s`,
      );
      let outerEnd = 0;
      let outside = 0;
      for (const s of stages) {
        const nested = s.startMs < outerEnd;
        if (!nested) {
          outside += Math.max(0, s.startMs - outerEnd);
          outerEnd = s.startMs + s.seconds * 1000;
        } else outerEnd = Math.max(outerEnd, s.startMs + s.seconds * 1000);
        console.log(
          `      ${nested ? '  ' : ''}${s.stage.padEnd(24)} at ${round(s.startMs / 1000, 2).padStart(6)} s  ${round(s.seconds, 2).padStart(6)} s`,
        );
      }
      console.log(`      ${'(between stages)'.padEnd(24)}            ${round(outside / 1000, 2).padStart(6)} s`);
    }
  }
}

const API = '/v1.3';
async function api(server, key, method, path, body) {
  const response = await fetch(`${server.url}${API}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}) },
    body: body instanceof FormData ? body : body && JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/**
 * A task's state, or undefined when the connection broke (a reused keep-alive socket the server had
 * closed answered ECONNRESET once in a run, with the server alive): the next poll asks again.
 */
async function statusOf(server, key, id) {
  try {
    return await api(server, key, 'GET', `/tasks/${id}`);
  } catch (error) {
    if (error instanceof TypeError && server.child.exitCode === null) return undefined;
    throw error;
  }
}

/**
 * Uploads `copies` of the video at once and waits until every task is ready: their ids, when the
 * uploads ended (performance.now() and epoch ms, as the server's log lines carry) and the server's
 * peak RSS meanwhile (KiB).
 */
async function indexCopies(server, key, indexId, bytes, copies) {
  const ids = await Promise.all(
    Array.from({ length: copies }, async (_, i) => {
      const form = new FormData();
      form.set('index_id', indexId);
      form.set('video_file', new Blob([bytes], { type: 'video/mp4' }), `bench-${i}.mp4`);
      return (await api(server, key, 'POST', '/tasks', form))._id;
    }),
  );
  const uploaded = performance.now();
  const uploadedAt = Date.now();
  const pending = new Set(ids);
  let peak = 0;
  while (pending.size > 0) {
    await new Promise((r) => setTimeout(r, 250));
    peak = Math.max(peak, residentKib(server.child.pid).peak);
    for (const id of [...pending]) {
      const task = await statusOf(server, key, id);
      if (!task) continue;
      if (task.status === 'failed') throw new Error(`task ${id} failed: ${JSON.stringify(task)}`);
      if (task.status === 'ready') pending.delete(id);
    }
  }
  return { ids, uploaded, uploadedAt, peak };
}

/** Starts a server, makes the index, uploads `copies` of `file` at once; prints when all are ready. */
async function pipeline(name, file, durationSec, copies, noSpeech) {
  const key = `tlk_bench${'x'.repeat(24)}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'vus-bench-real-server-'));
  const env = {
    LOG_LEVEL: 'info',
    ...(noSpeech ? { MODELS_POCKETSPHINX: 'off' } : {}),
    ...(args.concurrency ? { WORKER_CONCURRENCY: args.concurrency } : {}),
    ...Object.fromEntries(args.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
  };
  const server = await startEmbeddedServer(dataDir, key, env, { stdout: 'pipe' });
  const runs = workerRuns(server.child.stdout);
  try {
    const index = await api(server, key, 'POST', '/indexes', {
      index_name: 'bench',
      models: [
        { model_name: 'marengo3.0', model_options: ['visual', 'audio'] },
        { model_name: 'pegasus1.2', model_options: ['visual', 'audio'] },
      ],
    });
    if (args.warm)
      await indexCopies(server, key, index._id, await readFile(await speechFixtureExcerpt(speechFixture('twelvelabs-example'), 10)), 1);
    const bytes = await readFile(file);
    const loadBefore = load();
    const cpu0 = cpuSecondsOf(server.child.pid);
    const threads0 = threadCpuOf(server.child.pid);
    const started = performance.now();
    const { ids, uploaded, uploadedAt, peak } = await indexCopies(server, key, index._id, bytes, copies);
    const wall = (performance.now() - uploaded) / 1000;
    const cpu1 = cpuSecondsOf(server.child.pid);
    const threads1 = threadCpuOf(server.child.pid);
    const cpu = cpu1.own - cpu0.own + cpu1.children - cpu0.children;
    row(
      `${name}${noSpeech ? ' (no speech)' : ''}`,
      cpu,
      wall,
      durationSec * copies,
      [
        `peak RSS ${Math.round(peak / 1024)} MiB`,
        copies > 1 ? `${round((3600 * copies) / wall)} videos/hour` : '',
        `upload ${round((uploaded - started) / 1000)} s`,
        args.warm ? 'warmed by a 10 s video' : '',
        `load ${loadBefore} → ${load()}`,
      ]
        .filter(Boolean)
        .join(', '),
    );
    console.log(
      `    CPU-s by thread: ${threadCpuSpent(threads0, threads1)}; children (ffmpeg, pocketsphinx) ${round(cpu1.children - cpu0.children)}`,
    );
    // The worker logs a run after its task is ready: its lines may come a moment after the status.
    for (let waited = 0; waited < 5000 && !ids.every((id) => runs.some((r) => r.taskId === id && r.status === 'ready')); waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
    }
    printWorkerRuns(runs, ids, uploadedAt);
    console.log(`    largest mappings now (MiB, unnamed: anonymous): ${largestMappings(server.child.pid)}`);
  } finally {
    await server.stop();
  }
}

async function main() {
  const files = await footage();
  const seconds = async (f) => (await media.probe(f)).durationSec;
  const [exampleSec, longSec] = [await seconds(files.example), await seconds(files.long)];
  console.log(`${await media.mediaToolsVersion()}; load ${load()}`);
  console.log(`footage: example ${exampleSec} s, long ${longSec} s`);
  const speechModes = args['speech-only'] ? [false] : args['no-speech'] ? [true] : [false, true];
  for (let run = 1; run <= runs; run++) {
    console.log(`run ${run}`);
    if (parts.has('profile')) {
      const seconds = args['profile-seconds'];
      await profile(seconds ? await speechFixtureExcerpt(speechFixture('twelvelabs-example'), Number(seconds)) : files.example);
    }
    for (const noSpeech of speechModes) {
      if (parts.has('one')) await pipeline('npm start: example', files.example, exampleSec, 1, noSpeech);
      if (parts.has('long')) await pipeline('npm start: 10.7 min', files.long, longSec, 1, noSpeech);
      if (parts.has('queue')) await pipeline(`npm start: ${QUEUED} × example`, files.example, exampleSec, QUEUED, noSpeech);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
