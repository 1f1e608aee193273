#!/usr/bin/env node
/**
 * What the frame pass's change tests let through (issue 30), for calibrating them on real footage:
 * for each sampled frame (the worker's rate, 32×32 luma signatures), the mean difference and the
 * changed share against the previous frame, and which frames the worker analyses (any change:
 * FrameChangeDetector's defaults) and runs the object detector on (OBJECTS_CHANGE or the refresh,
 * objectsDue). Defaults to the SDK's example.mp4 and the generated search-quality fixtures.
 *
 *   npx tsc -b services/task-service libs/testing && node scripts/bench/frame-change.js [--verbose] [video …]
 */
'use strict';
const { parseArgs } = require('node:util');
const media = require('@vus/media');
const { objectsVideo, speechFixture, topicsVideo, wordsAndSubtitlesVideo } = require('@vus/testing');
const { WORKER_DEFAULTS } = require('../../services/task-service/dist/worker/start.js');
const { OBJECTS_CHANGE, objectsDue } = require('../../services/task-service/dist/worker/extract/frames.js');

const { values: args, positionals } = parseArgs({ options: { verbose: { type: 'boolean', default: false } }, allowPositionals: true });

async function measure(file) {
  const probe = await media.probe(file);
  const fps = WORKER_DEFAULTS.framesPerSecond;
  const changes = new media.FrameChangeDetector();
  const pictures = new media.FrameChangeDetector(OBJECTS_CHANGE);
  let previous;
  let sampled = 0;
  let lastRun = -Infinity;
  const analysed = [];
  const detected = [];
  // The signature does not depend on the decoded width: decode small.
  for await (const frame of media.sampleFrames(file, { fps, width: 160, probe })) {
    sampled++;
    const diff = previous ? media.frameDifference(previous, frame.signature) : undefined;
    previous = frame.signature;
    let marks = '';
    if (changes.hasChanged(frame.signature)) {
      analysed.push(frame.timeSec);
      const pictureChanged = pictures.hasChanged(frame.signature);
      if (objectsDue(pictureChanged, frame.timeSec, lastRun, 1 / fps)) {
        lastRun = frame.timeSec;
        detected.push(frame.timeSec);
        marks = pictureChanged ? 'objects (picture changed)' : 'objects (refresh)';
      }
    }
    if (args.verbose && diff) {
      console.log(
        `  ${String(frame.timeSec).padStart(7)} s  mean ${diff.meanAbsDiff.toFixed(1).padStart(5)}  changed ${diff.changedFraction.toFixed(2)}  ${marks}`,
      );
    }
  }
  console.log(
    `${file.split('/').pop()}: ${sampled} frames sampled, ${analysed.length} analysed, objects on ${detected.length}: ${detected.join(' ')}`,
  );
}

async function main() {
  const files = positionals.length
    ? positionals
    : [
        speechFixture('twelvelabs-example').path,
        (await objectsVideo()).path,
        (await topicsVideo()).path,
        (await wordsAndSubtitlesVideo()).path,
      ];
  for (const file of files) await measure(file);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
