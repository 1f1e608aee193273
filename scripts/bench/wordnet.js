#!/usr/bin/env node
/**
 * WordNet reader benchmark: what the first lookup of each part of speech costs (time, RSS, heap,
 * external memory), then warm query and label expansion. Uses the built @vus/wordnet:
 *
 *   npx tsc -b libs/wordnet && node --expose-gc scripts/bench/wordnet.js
 */
'use strict';
const { openWordNet, expandQuery, expandLabel } = require('@vus/wordnet');

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const gc = () => global.gc?.();
function memory() {
  gc();
  // `external` includes Buffers (arrayBuffers).
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
}
function report(label, before, started) {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const after = memory();
  console.log(
    `${label.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms  rss +${mb(after.rss - before.rss)}  heap +${mb(after.heapUsed - before.heapUsed)}  external +${mb(after.external - before.external)}`,
  );
}

if (global.gc === undefined) console.log('(run with --expose-gc for steadier memory figures)');
const wordnet = openWordNet();
const base = memory();
let before = base;
let started = process.hrtime.bigint();
for (const pos of ['noun', 'verb', 'adj', 'adv']) {
  before = memory();
  started = process.hrtime.bigint();
  wordnet.indexEntry('dog', pos);
  report(`first ${pos} lookup (loads index.${pos})`, before, started);
}

before = memory();
started = process.hrtime.bigint();
expandQuery('a man riding a motorbike next to a red car', wordnet);
report('first query expansion (cold data)', before, started);

const queries = [
  'automobile',
  'puppies playing in the snow',
  'a woman holding a cell phone',
  'traffic lights at night',
  'people running on the beach',
];
const rounds = 200;
before = memory();
started = process.hrtime.bigint();
for (let i = 0; i < rounds; i += 1) for (const query of queries) expandQuery(query, wordnet);
const perQuery = Number(process.hrtime.bigint() - started) / 1e6 / (rounds * queries.length);
report(`${rounds * queries.length} warm query expansions`, before, started);
console.log(`  ${(perQuery * 1000).toFixed(0)} µs per query`);

const labels = ['person', 'car', 'dog', 'traffic light', 'cell phone', 'hot dog', 'face'];
before = memory();
started = process.hrtime.bigint();
for (const label of labels) expandLabel(label, wordnet);
report(`${labels.length} label expansions`, before, started);

const total = memory();
console.log(
  `total after everything: rss +${mb(total.rss - base.rss)}, heap +${mb(total.heapUsed - base.heapUsed)}, external +${mb(total.external - base.external)}`,
);
wordnet.close();
