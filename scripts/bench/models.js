#!/usr/bin/env node
/**
 * Per-frame latency of the bundled models on 720p frames, on this machine's CPU.
 *
 *   npx tsc -b libs/models && node scripts/bench/models.js [runs=10]
 *
 * Prints load time, then mean / p50 / p95 milliseconds per 1280×720 JPEG frame for PaddleOCR
 * (a frame with two lines of text), the COCO detector and BlazeFace (a frame with a person), and
 * peak RSS. Figures, not pass/fail: tests never check time.
 */
'use strict';

const path = require('node:path');
const sharp = require('sharp');
const { paddleOcrProvider, cocoDetectorProvider, blazeFaceProvider, ModelRegistry } = require('../../libs/models/dist');

const runs = Number(process.argv[2] ?? 10);
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

async function main() {
  const registry = new ModelRegistry([paddleOcrProvider(), cocoDetectorProvider(), blazeFaceProvider()]);
  const [text, person] = await Promise.all([textFrame(), personFrame()]);
  console.log(`node ${process.version}, ${require('node:os').cpus().length} CPUs, ${runs} runs per model, 1280×720 JPEG frames`);
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

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
