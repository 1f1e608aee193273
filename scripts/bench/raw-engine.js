'use strict';
/**
 * The raw engine underneath search (issue 31): the SQL statements search-service ran for each
 * checked query, recorded as it ran them, then replayed alone against the same database, so that
 * the service's own cost is a ratio to the engine's rather than a guess.
 *
 * Recording patches pg's Client.query in this process (the services run in it) and keeps the
 * statements sent to one database while a recording is open; requests are checked one at a time,
 * so the statements of one recording are one request's. With --cluster search-service runs in a
 * process of its own, started with this file as a --require: there the statements go to a file
 * (recordToFile, fileStatementRecorder). Writes (INSERT/UPDATE/DELETE) are left
 * out of the replay: they name ids that exist once. The replay runs each recorded request's reads
 * in order on one connection of its own (what the service parallelises, the replay does not:
 * at 10 connections that evens out), `connections` at a time, for `seconds`.
 */
const pg = require('pg');
const { percentile } = require('./lib');

/** Patches pg's Client.query: `onRead` gets each read statement sent to `databaseName`; returns the undo. */
function interceptReads(databaseName, onRead) {
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function query(config, values, callback) {
    if (this.database === databaseName) {
      const text = typeof config === 'string' ? config : config?.text;
      const params = Array.isArray(values) ? values : config?.values;
      // A named statement keeps its name: the replay prepares it once per connection, as the service does.
      if (text && !/^\s*(INSERT|UPDATE|DELETE)\b/i.test(text))
        onRead({ text, values: params, ...(config?.name ? { name: config.name } : {}) });
    }
    return original.call(this, config, values, callback);
  };
  return () => void (pg.Client.prototype.query = original);
}

/** Records in this process (the services run in it): `start`, one request, `stop` gives its statements. */
function statementRecorder(databaseName) {
  let open;
  const restore = interceptReads(databaseName, (statement) => open?.push(statement));
  return {
    start: () => void (open = []),
    stop: () => {
      const statements = open ?? [];
      open = undefined;
      return statements;
    },
    restore,
  };
}

/**
 * Records in a service's own process (--cluster): started with `node --require raw-engine.js` and
 * BENCH_RECORD_STATEMENTS=FILE, it appends each read statement as a JSON line to FILE while
 * recording, which SIGUSR2 turns on and off (off at start: the load is not recorded). The line is
 * written before the statement is sent, so a request's lines are in FILE when its answer arrives.
 */
function recordToFile(file) {
  const { appendFileSync } = require('node:fs');
  let recording = false;
  process.on('SIGUSR2', () => void (recording = !recording));
  const databaseName = new URL(process.env.DATABASE_URL).pathname.slice(1);
  interceptReads(databaseName, (statement) => recording && appendFileSync(file, `${JSON.stringify(statement)}\n`));
}
if (process.env.BENCH_RECORD_STATEMENTS) recordToFile(process.env.BENCH_RECORD_STATEMENTS);

/** The bench's side of recordToFile: the same interface as statementRecorder, for the process `pid` writing `file`. */
async function fileStatementRecorder(file, pid) {
  const { readFileSync, writeFileSync } = require('node:fs');
  writeFileSync(file, '');
  process.kill(pid, 'SIGUSR2');
  // The signal arrives asynchronously: wait until the process answers it (it records from then on).
  await new Promise((r) => setTimeout(r, 500));
  let from;
  return {
    start: () => void (from = readFileSync(file).length),
    stop: () =>
      readFileSync(file)
        .subarray(from)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    restore: () => process.kill(pid, 'SIGUSR2'),
  };
}

/** Replays `requests` (arrays of statements) at `connections` for `seconds`: requests/s and latency per request. */
async function replay(url, requests, connections, seconds) {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  const latencies = [];
  const until = Date.now() + seconds * 1000;
  let next = 0;
  const worker = async () => {
    const client = await pool.connect();
    try {
      while (Date.now() < until) {
        const statements = requests[next++ % requests.length];
        const started = process.hrtime.bigint();
        for (const s of statements)
          await client.query(s.name ? { name: s.name, text: s.text, values: s.values } : { text: s.text, values: s.values });
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    } finally {
      client.release();
    }
  };
  const started = Date.now();
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    await pool.end();
  }
  const elapsed = (Date.now() - started) / 1000;
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statements: requests.reduce((n, r) => n + r.length, 0) / requests.length,
  };
}

module.exports = { statementRecorder, fileStatementRecorder, replay };
