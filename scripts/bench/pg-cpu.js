#!/usr/bin/env node
/**
 * PostgreSQL's own CPU per search request (issue 31): the statements search.js recorded
 * (`--statements FILE`, per kind one list per request) replayed on a kept database (`--keep`), one
 * connection, the backend's user+system CPU read from /proc/<pid>/stat before and after each
 * kind's rounds. Kinds are replayed in turn, `--rounds` times each, after one warm-up round (its
 * plans and caches), so that before/after statement files replayed on one database close in time
 * compare the engine's work, not the machine's. Prints CPU-ms per request with the 1-minute load.
 *
 *   node scripts/bench/pg-cpu.js --url postgres://postgres@127.0.0.1:5432/<kept db> --statements FILE [--rounds 3]
 */
'use strict';
const { readFileSync } = require('node:fs');
const { loadavg } = require('node:os');
const { parseArgs } = require('node:util');
const pg = require('pg');
const { cpuSecondsOf } = require('./lib');

const { values: args } = parseArgs({
  options: { url: { type: 'string' }, statements: { type: 'string' }, rounds: { type: 'string', default: '3' } },
});
if (!args.url || !args.statements) throw new Error('--url and --statements are required');
const ROUNDS = Number(args.rounds);
/** One request's statements, as the service sent them (named ones prepared on this connection). */
async function runRequest(client, statements) {
  for (const s of statements)
    await client.query(s.name ? { name: s.name, text: s.text, values: s.values } : { text: s.text, values: s.values });
}

async function main() {
  const byKind = JSON.parse(readFileSync(args.statements, 'utf8'));
  const client = new pg.Client({ connectionString: args.url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    const pid = rows[0].pid;
    console.log(
      `${args.statements}: backend CPU-ms per request, ${ROUNDS} rounds after a warm-up, load average ${loadavg()[0].toFixed(2)}`,
    );
    for (const [kind, requests] of Object.entries(byKind)) {
      for (const request of requests) await runRequest(client, request);
      const before = cpuSecondsOf(pid).own * 1000;
      const started = process.hrtime.bigint();
      for (let round = 0; round < ROUNDS; round++) for (const request of requests) await runRequest(client, request);
      const count = ROUNDS * requests.length;
      const cpu = (cpuSecondsOf(pid).own * 1000 - before) / count;
      const wall = Number(process.hrtime.bigint() - started) / 1e6 / count;
      const statements = requests.reduce((n, r) => n + r.length, 0) / requests.length;
      console.log(
        `  ${kind.padEnd(44)} ${cpu.toFixed(2).padStart(6)} CPU-ms  ${wall.toFixed(2).padStart(6)} ms wall  ${statements.toFixed(1)} statements  (${count} requests, load ${loadavg()[0].toFixed(2)})`,
      );
    }
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
