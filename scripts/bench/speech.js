#!/usr/bin/env node
/**
 * Speech benchmark (issue 22): the bundled recogniser (PocketSphinx, libs/models) on the labelled
 * real-speech fixtures (@vus/testing speechFixtures: the official SDK's 160 s news clip).
 *
 * For each fixture, `--runs` times: voice activity, then recognition of the speech regions by
 * `--processes` pocketsphinx_continuous processes at once (the product's default: 2, one per core).
 * Reports
 *   - speed: audio seconds per wall-clock second (the real-time factor's inverse; target ≥ 4×), and
 *     the recognisers' CPU time, with what that speed would be on two idle cores (CPU ÷ 2), since
 *     the machine may be shared (the 1-minute load average is printed beside it);
 *   - key-word error rate: the share of labelled key words that no transcript line holds within
 *     1.5 s of their time. The fixtures are labelled by key word, not transcribed in full, so a
 *     full word error rate cannot be computed honestly: this is the error rate on the labelled words.
 *
 *   npm run build && node scripts/bench/speech.js [--runs 1] [--processes 2]
 *
 * Needs the Debian packages pocketsphinx and pocketsphinx-en-us; says so and exits 1 without them.
 */
'use strict';
const { readFileSync } = require('node:fs');
const { loadavg } = require('node:os');
const { performance } = require('node:perf_hooks');
const { parseArgs } = require('node:util');
const { execFileSync } = require('node:child_process');
const {
  detectSpeechRegions,
  missingPocketSphinx,
  POCKETSPHINX_DEFAULTS,
  PocketSphinxRecognizer,
  readWav,
  SPEECH_SAMPLE_RATE,
  speechSeconds,
} = require('@vus/models');
const { labelsFound, speechFixtures, speechFixtureWav } = require('@vus/testing');

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '1' }, processes: { type: 'string', default: String(POCKETSPHINX_DEFAULTS.processes) } },
});
const runs = Number(args.runs);
const config = { ...POCKETSPHINX_DEFAULTS, processes: Number(args.processes) };

/** CPU seconds of this process's finished children (utime + stime from /proc), Linux only. */
function childCpuSeconds() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  // After "pid (comm) ": state is field 3, cutime 16 and cstime 17 (1-based) → indices 13 and 14 here.
  return (Number(fields[13]) + Number(fields[14])) / ticks;
}

const round = (n, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

async function main() {
  const missing = missingPocketSphinx(config);
  if (missing) {
    console.error(`speech bench: ${missing}`);
    process.exit(1);
  }
  const recognizer = new PocketSphinxRecognizer(config);
  for (const fixture of speechFixtures()) {
    const samples = await readWav(await speechFixtureWav(fixture));
    const duration = samples.length / SPEECH_SAMPLE_RATE;
    const vadStarted = performance.now();
    const regions = detectSpeechRegions(samples);
    const vadMs = performance.now() - vadStarted;
    console.log(
      `${fixture.name} (${fixture.package}/${fixture.file}): ${round(duration, 1)} s, ${regions.length} speech regions, ${round(speechSeconds(regions), 1)} s of speech (VAD ${Math.round(vadMs)} ms)`,
    );
    for (let run = 1; run <= runs; run++) {
      const cpuBefore = childCpuSeconds();
      const started = performance.now();
      const lines = await recognizer.transcribe(samples);
      const wall = (performance.now() - started) / 1000;
      const cpu = childCpuSeconds() - cpuBefore;
      const found = labelsFound(lines, fixture.labels);
      const missed = fixture.labels.filter((l) => !found.includes(l)).map((l) => `"${l.words}" @${l.time}`);
      console.log(
        [
          `  run ${run}: ${config.processes} recogniser process${config.processes === 1 ? '' : 'es'}, wall ${round(wall, 1)} s = ${round(duration / wall, 1)}× real time`,
          `(load average ${round(loadavg()[0], 1)});`,
          `recognisers' CPU ${round(cpu, 1)} s = ${round(duration / (cpu / Math.min(2, config.processes)), 1)}× real time on ${Math.min(2, config.processes)} idle core(s);`,
          `${lines.length} lines, ${lines.reduce((n, l) => n + l.text.split(' ').length, 0)} words;`,
          `key words found ${found.length}/${fixture.labels.length}, key-word error rate ${round((100 * (fixture.labels.length - found.length)) / fixture.labels.length, 1)}%${missed.length ? ` (missed ${missed.join(', ')})` : ''}`,
        ].join(' '),
      );
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
