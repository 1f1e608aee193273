#!/usr/bin/env node
/**
 * Media benchmark: how long libs/media takes on the indexing benchmark's fixture (60 s, 1280x720,
 * 25 fps, a new scene every 5 s). Prints one line per measurement; wall-clock figures, so run it on
 * a quiet machine. Uses the built libraries:
 *
 *   npx tsc -b libs/media libs/testing && node scripts/bench/media.js
 */
'use strict';
const { mkdtemp, rm } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const media = require('@vus/media');
const { benchmarkVideo } = require('@vus/testing');

async function timed(fn) {
  const start = performance.now();
  const result = await fn();
  return { seconds: (performance.now() - start) / 1000, result };
}

async function countFrames(path, options) {
  const changes = new media.FrameChangeDetector();
  let frames = 0;
  let changed = 0;
  let bytes = 0;
  for await (const frame of media.sampleFrames(path, options)) {
    frames++;
    bytes += frame.data.length;
    if (changes.hasChanged(frame.signature)) changed++;
  }
  return { frames, changed, bytes };
}

function line(name, seconds, videoSeconds, extra = '') {
  const speed = videoSeconds ? `  ${(videoSeconds / seconds).toFixed(1)}x real time` : '';
  console.log(`${name.padEnd(44)} ${seconds.toFixed(3).padStart(7)} s${speed}${extra ? `  ${extra}` : ''}`);
}

async function main() {
  console.log(await media.mediaToolsVersion());
  const fixture = await timed(() => benchmarkVideo());
  const { path, truth } = fixture.result;
  line('fixture (generated or cached)', fixture.seconds, 0, path);

  const probes = [];
  for (let i = 0; i < 5; i++) probes.push((await timed(() => media.probe(path))).seconds);
  probes.sort((a, b) => a - b);
  const info = await media.probe(path);
  line('probe (median of 5)', probes[2], 0, `${info.video.width}x${info.video.height} ${info.durationSec} s ${info.video.codec}`);

  for (const [label, options] of [
    ['sample 1 fps, 1280x720 JPEG', { fps: 1, probe: info }],
    ['sample 1 fps, 640x360 JPEG', { fps: 1, width: 640, probe: info }],
    ['sample 1 fps, 640x360 RGB', { fps: 1, width: 640, format: 'rgb', probe: info }],
  ]) {
    const run = await timed(() => countFrames(path, options));
    const { frames, changed, bytes } = run.result;
    line(
      label,
      run.seconds,
      truth.durationSec,
      `${frames} frames, ${changed} changed (scenes: ${truth.scenes.length}), ${(bytes / frames / 1024).toFixed(0)} KiB/frame`,
    );
  }

  const work = await mkdtemp(join(tmpdir(), 'vus-bench-media-'));
  try {
    const audio = await timed(() => media.extractAudio(path, join(work, 'audio.wav'), { durationHintSec: info.durationSec }));
    line('extract audio (16 kHz mono WAV)', audio.seconds, truth.durationSec, `${audio.result.durationSec.toFixed(2)} s of audio`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  const shots = await timed(() => media.detectShots(path, { probe: info }));
  line(
    'detect shots (scene score on RGB, 160 px)',
    shots.seconds,
    truth.durationSec,
    `${shots.result.boundaries.length} cuts found, ${truth.scenes.length - 1} made`,
  );

  const thumb = await timed(() => media.thumbnail(path, 30, 320));
  line('thumbnail at 30 s, 320 px', thumb.seconds, 0, `${thumb.result.length} bytes`);

  console.log(`peak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (ffmpeg children not included)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
