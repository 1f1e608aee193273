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
 *
 * Since search-service holds searched indexes in its process (src/resident/, issue 31), the engine
 * underneath is that resident index as much as PostgreSQL: the calls search makes of it (lexical
 * and exact-phrase reads, with their arguments) are recorded with the statements, and the replay
 * makes them of a resident store of its own over the same database (loaded before it is timed).
 * Statements sent while such a call runs are its own (catching up, normalising words) and are not
 * recorded apart: the replayed call sends them again.
 */
const pg = require('pg');
const { join } = require('node:path');
const { percentile } = require('./lib');

const SEARCH_DIST = join(__dirname, '..', '..', 'services', 'search-service', 'dist');
/** The resident store's reads that the raw engine replays (resident-indexes.ts). */
const ENGINE_CALLS = ['lexical', 'exactPhrase'];
/** Resident-store calls in flight in this process, and who is told of each call. */
let engineCallsInFlight = 0;
let onEngineCall;

/**
 * Wraps every resident store built in this process from now on (search-service builds its own at
 * start): each engine call is told to onEngineCall. search-service's store module reads
 * withResidentIndexes from the module's exports when it builds a store, so patching the export is enough.
 */
function interceptEngine() {
  const resident = require(join(SEARCH_DIST, 'resident', 'resident-indexes.js'));
  const original = resident.withResidentIndexes;
  resident.withResidentIndexes = (store, options) => {
    const wrapped = original(store, options);
    const calls = Object.fromEntries(
      ENGINE_CALLS.map((name) => [
        name,
        async (...args) => {
          onEngineCall?.({ engine: name, args });
          engineCallsInFlight++;
          try {
            return await wrapped[name](...args);
          } finally {
            engineCallsInFlight--;
          }
        },
      ]),
    );
    return { ...wrapped, ...calls };
  };
}
interceptEngine();

/** Patches pg's Client.query: `onRead` gets each read statement sent to `databaseName`; returns the undo. */
function interceptReads(databaseName, onRead) {
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function query(config, values, callback) {
    if (this.database === databaseName && engineCallsInFlight === 0) {
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
  const undo = interceptReads(databaseName, (statement) => open?.push(statement));
  onEngineCall = (call) => open?.push(call);
  const restore = () => {
    undo();
    onEngineCall = undefined;
  };
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
  const record = (entry) => recording && appendFileSync(file, `${JSON.stringify(entry)}\n`);
  interceptReads(databaseName, record);
  onEngineCall = record;
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

/**
 * A resident store of the raw engine's own over the database at `url`, with the index of
 * `scope` loaded (search-service's store, as it builds it).
 */
async function engineStore(url, scope) {
  const { Database } = require('@vus/db');
  const { createLogger } = require('@vus/core');
  const { createSearchStore } = require(join(SEARCH_DIST, 'store.js'));
  const db = await Database.open({ kind: 'postgres', url });
  let loaded;
  const ready = new Promise((resolve) => (loaded = resolve));
  const store = createSearchStore(db, { onResidentLoaded: loaded }, createLogger({ service: 'raw-engine', level: 'silent' }));
  if (scope) {
    await store.exactPhrase(scope, 'x', 1); // the first read starts the load
    await ready;
  }
  return { store, close: () => db.close() };
}

/** One engine store per database for all replays (loading one holds the whole index: ~20 s at 10,000 videos); closeEngines ends them. */
const engines = new Map();
const engineFor = (url, scope) => {
  if (!engines.has(url)) engines.set(url, engineStore(url, scope));
  return engines.get(url);
};
async function closeEngines() {
  for (const engine of engines.values()) await (await engine).close();
  engines.clear();
}

/** Replays `requests` (arrays of statements and engine calls) at `connections` for `seconds`: requests/s and latency per request. */
async function replay(url, requests, connections, seconds) {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  const firstCall = requests.flat().find((s) => s.engine);
  const engine = firstCall ? await engineFor(url, firstCall.args[0]) : undefined;
  const latencies = [];
  const until = Date.now() + seconds * 1000;
  let next = 0;
  const worker = async () => {
    const client = await pool.connect();
    try {
      while (Date.now() < until) {
        const statements = requests[next++ % requests.length];
        const started = process.hrtime.bigint();
        for (const s of statements) {
          if (s.engine) await engine.store[s.engine](...s.args);
          else await client.query(s.name ? { name: s.name, text: s.text, values: s.values } : { text: s.text, values: s.values });
        }
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

module.exports = { statementRecorder, fileStatementRecorder, replay, closeEngines };
