#!/usr/bin/env node
/**
 * Whether a face's embedding can be carried to the next analysed frame where its box barely moved
 * (issue 30; the worker's reusedEmbeddings, face-tracks.ts), measured on real footage: every face
 * BlazeFace finds on every analysed frame (the worker's rate, width and change detector) is embedded
 * (face-api's recogniser on the detector's boxes, as the worker does), then the worker's reuse rule
 * is replayed for a sweep of overlaps (IoU) and refresh periods: how many embeddings it computes,
 * and how far each carried embedding is from the one the face would have had (euclidean; the
 * matcher's threshold FACE_MATCH_THRESHOLD). A carried embedding close to the fresh one makes the
 * same matches; the printed distances are the reason for the chosen overlap and refresh.
 *
 *   npx tsc -b libs/models services/task-service && node scripts/bench/face-reuse.js [--iou 0.3,0.5,0.7] [--refresh 3,5] [video …]
 */
'use strict';
const { loadavg } = require('node:os');
const { parseArgs } = require('node:util');
const media = require('@vus/media');
const { BlazeFace, FaceRecognition, faceDistance, FACE_MATCH_THRESHOLD } = require('@vus/models');
const { speechFixture } = require('@vus/testing');
const { WORKER_DEFAULTS } = require('../../services/task-service/dist/worker/start.js');
const { PICTURE_CHANGE } = require('../../services/task-service/dist/worker/extract/frame-gates.js');
const { FACES_REFRESH_SEC, SAME_FACE_IOU, reusedEmbeddings } = require('../../services/task-service/dist/worker/extract/face-tracks.js');

const { values: args, positionals } = parseArgs({
  options: { iou: { type: 'string', default: '0.3,0.5,0.6,0.7,0.8' }, refresh: { type: 'string', default: '3,5,10' } },
  allowPositionals: true,
});
const list = (text) => text.split(',').map(Number);

/** Every analysed frame's faces, each embedded, and whether the picture changed (PICTURE_CHANGE). */
async function embedAll(file, detector, embedder) {
  const probe = await media.probe(file);
  const changes = new media.FrameChangeDetector();
  const pictures = new media.FrameChangeDetector(PICTURE_CHANGE);
  const frames = [];
  const ms = { detect: 0, embed: 0, faces: 0 };
  // Decoded first (ffmpeg's deadline must not run while the models work on a busy machine).
  const decoded = [];
  for await (const frame of media.sampleFrames(file, { fps: WORKER_DEFAULTS.framesPerSecond, width: WORKER_DEFAULTS.frameWidth, probe })) {
    if (changes.hasChanged(frame.signature)) decoded.push({ ...frame, pictureChanged: pictures.hasChanged(frame.signature) });
  }
  for (const frame of decoded) {
    let at = performance.now();
    const faces = await detector.detectFaces(frame.data);
    ms.detect += performance.now() - at;
    at = performance.now();
    const embedded = await embedder.embedDetectedFaces(frame.data, faces);
    ms.embed += performance.now() - at;
    ms.faces += faces.length;
    frames.push({ timeSec: frame.timeSec, pictureChanged: frame.pictureChanged, faces: embedded });
  }
  return { frames, ms, sampledStep: 1 / WORKER_DEFAULTS.framesPerSecond };
}

/** The worker's rule replayed: embeddings computed, and each carried one's distance to the fresh one. */
function replay(frames, step, minIou, refreshSec) {
  let last = [];
  let computed = 0;
  const carried = [];
  for (const frame of frames) {
    const reuse = reusedEmbeddings(frame.faces, last, frame.pictureChanged, frame.timeSec, step, { minIou, refreshSec });
    last = frame.faces.map((face, i) => {
      const previous = reuse[i] === undefined ? undefined : last[reuse[i]];
      if (!previous) {
        computed++;
        return { ...face, embeddedSec: frame.timeSec };
      }
      carried.push(faceDistance(previous.embedding, face.embedding));
      return { ...face, embedding: previous.embedding, embeddedSec: previous.embeddedSec };
    });
  }
  return { computed, carried };
}

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);

async function main() {
  const files = positionals.length ? positionals : [speechFixture('twelvelabs-example').path];
  const detector = await BlazeFace.load();
  const embedder = await FaceRecognition.load();
  console.log(
    `face-reuse bench ${new Date().toISOString()}, load ${loadavg()[0].toFixed(1)}; worker rule: IoU ≥ ${SAME_FACE_IOU}, refresh ${FACES_REFRESH_SEC} s`,
  );
  for (const file of files) {
    const { frames, ms, sampledStep } = await embedAll(file, detector, embedder);
    const withFaces = frames.filter((f) => f.faces.length > 0).length;
    console.log(
      `${file.split('/').pop()}: ${frames.length} analysed frames, ${withFaces} with faces, ${ms.faces} faces; BlazeFace ${(ms.detect / frames.length).toFixed(0)} ms/frame, recogniser ${(ms.embed / Math.max(1, ms.faces)).toFixed(0)} ms/face (wall, load ${loadavg()[0].toFixed(1)})`,
    );
    console.log('  IoU  refresh  embedded  carried   carried distance to fresh: p50   p95   max   ≥ threshold/2');
    for (const refreshSec of list(args.refresh)) {
      for (const minIou of list(args.iou)) {
        const { computed, carried } = replay(frames, sampledStep, minIou, refreshSec);
        const sorted = [...carried].sort((a, b) => a - b);
        const far = carried.filter((d) => d >= FACE_MATCH_THRESHOLD / 2).length;
        console.log(
          `  ${minIou.toFixed(2)}  ${String(refreshSec).padStart(5)} s  ${String(computed).padStart(8)}  ${String(carried.length).padStart(7)}  ${' '.repeat(28)}${[0.5, 0.95, 1].map((q) => quantile(sorted, q).toFixed(3)).join(' ')}  ${far}`,
        );
      }
    }
    const all = replay(frames, sampledStep, Infinity, 0);
    console.log(`  (no reuse: ${all.computed} embeddings)`);
  }
  await embedder.dispose();
  await detector.dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
