#!/usr/bin/env node
/**
 * PGlite's own CPU per search request (issue 31), pg-cpu.js's counterpart for embedded mode: the
 * statements search.js recorded (`--statements FILE`, per kind one list per request) replayed on
 * search-service's kept PGlite folder (`search.js --pglite --keep`), in this process, whose CPU
 * (user+system, process.cpuUsage) is then PGlite's: it runs in this thread. Kinds are replayed in
 * turn, `--rounds` times each, after one warm-up round, so that two statement files replayed close
 * in time compare the engine's work.
 *
 * search.js records statements on PostgreSQL only, so the files come from runs on PostgreSQL, and
 * their organization and index are replaced with the folder's (the corpus is seeded: the same
 * queries find the same words). Recorded without pgvector, they hold no nearest-vector statement.
 *
 *   node scripts/bench/pglite-cpu.js --dir <kept PGlite folder> --statements FILE [--statements FILE2] [--rounds 3]
 */
'use strict';
const { readFileSync } = require('node:fs');
const { loadavg } = require('node:os');
const { parseArgs } = require('node:util');
const { Database } = require('@vus/db');

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    statements: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '3' },
  },
});
if (!args.dir || !args.statements) throw new Error('--dir and --statements are required');
const ROUNDS = Number(args.rounds);

/** The organization and index a recorded file searched: the lexical statement's $2 and $3. */
function recordedScope(byKind) {
  for (const requests of Object.values(byKind))
    for (const request of requests) for (const s of request) if (s.text.startsWith('WITH best0')) return [s.values[1], s.values[2]];
  throw new Error('no lexical statement recorded');
}

/** The file's statements with its organization and index replaced by `scope`'s. */
function rescoped(byKind, scope) {
  const [org, index] = recordedScope(byKind);
  const swap = (value) => (value === org ? scope.org : value === index ? scope.index : value);
  return Object.fromEntries(
    Object.entries(byKind).map(([kind, requests]) => [
      kind,
      requests.map((request) => request.map((s) => ({ ...s, values: (s.values ?? []).map(swap) }))),
    ]),
  );
}

async function runRequest(db, statements) {
  for (const s of statements) await db.query(s.name ? { name: s.name, text: s.text, values: s.values } : s.text, s.values);
}

async function main() {
  const db = await Database.open({ kind: 'pglite', dataDir: args.dir });
  try {
    const { rows } = await db.query('SELECT org_id AS org, index_id AS index FROM segments LIMIT 1');
    const scope = rows[0];
    for (const file of args.statements) {
      const byKind = rescoped(JSON.parse(readFileSync(file, 'utf8')), scope);
      console.log(`${file}: PGlite CPU-ms per request, ${ROUNDS} rounds after a warm-up, load average ${loadavg()[0].toFixed(2)}`);
      for (const [kind, requests] of Object.entries(byKind)) {
        for (const request of requests) await runRequest(db, request);
        const before = process.cpuUsage();
        const started = process.hrtime.bigint();
        for (let round = 0; round < ROUNDS; round++) for (const request of requests) await runRequest(db, request);
        const count = ROUNDS * requests.length;
        const used = process.cpuUsage(before);
        const cpu = (used.user + used.system) / 1000 / count;
        const wall = Number(process.hrtime.bigint() - started) / 1e6 / count;
        console.log(
          `  ${kind.padEnd(44)} ${cpu.toFixed(2).padStart(6)} CPU-ms  ${wall.toFixed(2).padStart(6)} ms wall  (${count} requests, load ${loadavg()[0].toFixed(2)})`,
        );
      }
    }
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
