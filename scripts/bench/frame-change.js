#!/usr/bin/env node
/**
 * What the frame pass's change tests let through (issue 30), for calibrating the gates of
 * services/task-service/src/worker/extract/frame-gates.ts on real footage: for each sampled frame
 * (the worker's rate, 32×32 luma signatures), the mean difference and the changed share against the
 * previous frame, and which frames the worker analyses (any change: FrameChangeDetector's defaults)
 * and runs the object detector on (PICTURE_CHANGE or the refresh, objectsDue).
 *
 * With --models, the text reader, BlazeFace and the scene descriptor run on every analysed frame (at
 * the worker's width), and for each refresh in --refresh the script replays a gate that runs a model
 * only on a picture change or when its last run is that old (pictureModelDue), the frames in between
 * carrying the last run's findings, and prints what the gate skips and what it loses:
 * - text: distinct lines read on every frame that the gated runs never read (a line counts as read
 *   when a gated run read one within an edit distance of a fifth of its length: OCR misreads a
 *   letter now and then), those seen on ≥ 2 frames apart (one-frame lines are mostly misreadings),
 *   and line-frames whose line the carried reading lacks;
 * - faces: face-frames (a face on a frame) with no carried box over it (IoU ≥ 0.3);
 * - scene descriptor: the carried vector's cosine to the frame's own, mean and lowest.
 * Defaults to the SDK's example.mp4 and the generated text, objects and search-quality fixtures.
 *
 *   npm run build -w @vus/models -w task-service && node scripts/bench/frame-change.js [--verbose] [--models] [--refresh 1,2,3,5,10] [video …]
 */
'use strict';
const { loadavg } = require('node:os');
const { parseArgs } = require('node:util');
const media = require('@vus/media');
const { iou, sceneDescriptor } = require('@vus/models');
const { objectsVideo, speechFixture, subtitledVideo, textScenesVideo, topicsVideo, wordsAndSubtitlesVideo } = require('@vus/testing');
const { WORKER_DEFAULTS } = require('../../services/task-service/dist/worker/start.js');
const { PICTURE_CHANGE, objectsDue, pictureModelDue } = require('../../services/task-service/dist/worker/extract/frame-gates.js');
const { bundledModelRegistry } = require('./lib');

const { values: args, positionals } = parseArgs({
  options: {
    verbose: { type: 'boolean', default: false },
    models: { type: 'boolean', default: false },
    refresh: { type: 'string', default: '1,2,3,5,10' },
  },
  allowPositionals: true,
});
const fps = WORKER_DEFAULTS.framesPerSecond;
const step = 1 / fps;
const load = () => loadavg()[0].toFixed(1);

/** The analysed frames of a video: time, whether the picture changed, and the JPEG when asked for. */
async function analysedFrames(file, { width, keepData }) {
  const probe = await media.probe(file);
  const changes = new media.FrameChangeDetector();
  const pictures = new media.FrameChangeDetector(PICTURE_CHANGE);
  let previous;
  let sampled = 0;
  let lastRun = -Infinity;
  const analysed = [];
  for await (const frame of media.sampleFrames(file, { fps, width, probe })) {
    sampled++;
    const diff = previous ? media.frameDifference(previous, frame.signature) : undefined;
    previous = frame.signature;
    let marks = '';
    if (changes.hasChanged(frame.signature)) {
      const pictureChanged = pictures.hasChanged(frame.signature);
      analysed.push({ timeSec: frame.timeSec, pictureChanged, data: keepData ? frame.data : undefined });
      if (objectsDue(pictureChanged, frame.timeSec, lastRun, step)) {
        lastRun = frame.timeSec;
        marks = pictureChanged ? 'objects (picture changed)' : 'objects (refresh)';
      }
    }
    if (args.verbose && diff) {
      console.log(
        `  ${String(frame.timeSec).padStart(7)} s  mean ${diff.meanAbsDiff.toFixed(1).padStart(5)}  changed ${diff.changedFraction.toFixed(2)}  ${marks}`,
      );
    }
  }
  return { sampled, analysed };
}

/** The analysed frames' indices a gate with that refresh runs its model on. */
function gatedRuns(analysed, refreshSec) {
  const runs = [];
  let lastRun = -Infinity;
  analysed.forEach((frame, i) => {
    if (pictureModelDue(frame.pictureChanged, frame.timeSec, lastRun, step, refreshSec)) {
      lastRun = frame.timeSec;
      runs.push(i);
    }
  });
  return runs;
}

/** For each analysed frame, the index of the run whose findings it carries. */
function carriedFrom(count, runs) {
  const from = [];
  let run = -1;
  for (let i = 0, next = 0; i < count; i++) {
    if (runs[next] === i) run = runs[next++];
    from.push(run);
  }
  return from;
}

function editDistance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length];
}

const normalised = (text) => text.toLowerCase().replace(/\s+/g, ' ').trim();
const sameLine = (a, b) => a === b || editDistance(a, b) <= Math.floor(Math.max(a.length, b.length) / 5);
const cosine = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0) / (Math.hypot(...a) * Math.hypot(...b) || 1);
const share = (part, whole) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : '–');

/** What gating text, faces and the scene descriptor with each refresh would skip and lose. */
async function measureGates(file, models, refreshes) {
  const { sampled, analysed } = await analysedFrames(file, { width: WORKER_DEFAULTS.frameWidth, keepData: true });
  const found = [];
  for (const frame of analysed) {
    const [lines, faces, vector] = [
      await models.textReader.readText(frame.data),
      await models.faceDetector.detectFaces(frame.data),
      await sceneDescriptor(frame.data),
    ];
    found.push({ lines: [...new Set(lines.map((l) => normalised(l.text)).filter(Boolean))], faces, vector });
  }
  const name = file.split('/').pop();
  const pictures = analysed.filter((f) => f.pictureChanged).length;
  console.log(`${name}: ${sampled} sampled, ${analysed.length} analysed, ${pictures} picture changes, load ${load()}`);

  // Each distinct line, with the analysed frames it was read on.
  const lineFrames = new Map();
  found.forEach(({ lines }, i) => lines.forEach((line) => lineFrames.set(line, [...(lineFrames.get(line) ?? []), i])));
  const faceFrames = found.reduce((sum, { faces }) => sum + faces.length, 0);
  for (const refresh of refreshes) {
    const runs = gatedRuns(analysed, refresh);
    const from = carriedFrom(analysed.length, runs);
    const readByRuns = [...new Set(runs.flatMap((i) => found[i].lines))];
    const missed = [...lineFrames.keys()].filter((line) => !readByRuns.some((read) => sameLine(line, read)));
    const missedSeenTwice = missed.filter((line) => lineFrames.get(line).length >= 2);
    let lineFramesMissed = 0;
    let lineFramesAll = 0;
    let facesMissed = 0;
    const cosines = [];
    found.forEach(({ lines, faces, vector }, i) => {
      const carried = found[from[i]];
      lineFramesAll += lines.length;
      lineFramesMissed += lines.filter((line) => !carried.lines.some((read) => sameLine(line, read))).length;
      facesMissed += faces.filter((face) => !carried.faces.some((c) => iou(c.box, face.box) >= 0.3)).length;
      cosines.push(cosine(vector, carried.vector));
    });
    const meanCosine = cosines.reduce((a, b) => a + b, 0) / cosines.length;
    console.log(
      `  refresh ${String(refresh).padStart(2)} s: runs ${runs.length}/${analysed.length}` +
        ` | text: lines never read ${missed.length}/${lineFrames.size} (on ≥2 frames ${missedSeenTwice.length}), line-frames missed ${share(lineFramesMissed, lineFramesAll)}` +
        ` | faces: face-frames missed ${facesMissed}/${faceFrames}` +
        ` | scene descriptor: cosine mean ${meanCosine.toFixed(3)} lowest ${Math.min(...cosines).toFixed(3)}`,
    );
    if (args.verbose)
      for (const line of missed)
        console.log(
          `      never read: "${line}" (frames ${lineFrames
            .get(line)
            .map((i) => analysed[i].timeSec)
            .join(' ')})`,
        );
  }
}

async function measureChanges(file) {
  const { sampled, analysed } = await analysedFrames(file, { width: 160, keepData: false });
  let lastRun = -Infinity;
  const detected = analysed.filter((f) => objectsDue(f.pictureChanged, f.timeSec, lastRun, step) && ((lastRun = f.timeSec), true));
  console.log(
    `${file.split('/').pop()}: ${sampled} frames sampled, ${analysed.length} analysed, objects on ${detected.length}: ${detected.map((f) => f.timeSec).join(' ')}`,
  );
}

async function main() {
  const files = positionals.length
    ? positionals
    : [
        speechFixture('twelvelabs-example').path,
        (await textScenesVideo()).path,
        (await subtitledVideo()).path,
        (await wordsAndSubtitlesVideo()).path,
        (await objectsVideo()).path,
        (await topicsVideo()).path,
      ];
  if (!args.models) {
    for (const file of files) await measureChanges(file);
    return;
  }
  const registry = bundledModelRegistry();
  const [textReader, faceDetector] = await Promise.all(['text_reader', 'face_detector'].map((c) => registry.get(c)));
  const refreshes = args.refresh.split(',').map(Number);
  try {
    for (const file of files) await measureGates(file, { textReader, faceDetector }, refreshes);
  } finally {
    await registry.dispose?.();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
