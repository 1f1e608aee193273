#!/usr/bin/env node
/**
 * search-service's own work per search, apart from the database and the network (issue 31):
 * clipsOf (scores over time, moments, clips) and the result set's packing (packItems), on what
 * real searches handed clipsOf (search-responses.js --clips-inputs FILE), for one build or two.
 * Prints CPU-ms per search (process.cpuUsage, user + system, best of `--rounds` passes over all
 * inputs, so that another process's burst on a shared machine counts once at most) and, with two
 * builds, whether their clips and packed sets are the same byte for byte.
 *
 *   node scripts/bench/search-clips.js --inputs /tmp/clips-inputs.jsonl [--rounds 7] [--against /tmp/before]
 *
 * `--against DIR`: another checkout (built) timed the same way and compared, run first.
 *
 * 2026-11-28, this machine (2 cores shared with other benchmarks, load average 11-13), 578 searches
 * captured from search.js's queries at 2,000 videos (text, visual, exact_match, combined leaves;
 * 301 matches -> 225 clips each on average, 1.6 matches per matched video): clipsOf 0.84-0.89 CPU-ms
 * per search at 28430ca, 0.50 after the allocation-free score over time (60b5d5a); the combined
 * leaves alone (threshold none, 246 searches) 0.88 -> 0.50. packItems 0.61-0.75 either way: JSON
 * 0.49 of it (81 kB per set, ~40 % of it keys), brotli 0.15; arrays per clip instead of objects
 * would save ~0.16 (scratch measurement), not done.
 */
'use strict';
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { parseArgs } = require('node:util');

const { values: args } = parseArgs({
  options: {
    inputs: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    against: { type: 'string' },
  },
});
const ROUNDS = Number(args.rounds);
/** result-pages.ts MAX_RESULTS: a set keeps at most this many clips. */
const MAX_RESULTS = 1000;

const inputs = readFileSync(args.inputs, 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line));

function build(root) {
  const dist = join(resolve(root), 'services/search-service/dist');
  const { clipsOf } = require(join(dist, 'clips.js'));
  const { packItems } = require(join(dist, 'result-set-store.js'));
  return { root, clipsOf, packItems };
}

/** CPU-ms of `work` over every input, best of ROUNDS passes, per input. */
function cpuPerInput(work) {
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (const input of inputs) work(input);
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best / inputs.length;
}

function measure({ root, clipsOf, packItems }) {
  const clipsOfInput = ({ matches, rules }) => clipsOf(matches, rules);
  const results = inputs.map(clipsOfInput);
  const packed = results.map((clips) => packItems(clips.slice(0, MAX_RESULTS)));
  const clipsMs = cpuPerInput(clipsOfInput);
  const packMs = cpuPerInput((input) => packItems(results[inputs.indexOf(input)].slice(0, MAX_RESULTS)));
  const matches = inputs.reduce((sum, input) => sum + input.matches.length, 0) / inputs.length;
  const clips = results.reduce((sum, list) => sum + list.length, 0) / results.length;
  const bytes = packed.reduce((sum, buffer) => sum + buffer.length, 0) / packed.length;
  console.log(
    `${root}: clipsOf ${clipsMs.toFixed(3)} CPU-ms, packItems ${packMs.toFixed(3)} CPU-ms per search (${inputs.length} searches: ${matches.toFixed(0)} matches -> ${clips.toFixed(0)} clips, ${bytes.toFixed(0)} bytes packed, on average)`,
  );
  return { results, packed };
}

const builds = [...(args.against ? [build(args.against)] : []), build('.')];
const measured = builds.map(measure);
if (measured.length === 2) {
  const [a, b] = measured;
  const sameClips = a.results.every((clips, i) => JSON.stringify(clips) === JSON.stringify(b.results[i]));
  const samePacked = a.packed.every((buffer, i) => buffer.equals(b.packed[i]));
  console.log(`clips ${sameClips ? 'the same' : 'DIFFER'}; packed sets ${samePacked ? 'the same' : 'differ (a new format?)'}`);
  if (!sameClips) process.exitCode = 1;
}
