'use strict';
/**
 * The raw engine underneath search (issue 31): the SQL statements search-service ran for each
 * checked query, recorded as it ran them, then replayed alone against the same database, so that
 * the service's own cost is a ratio to the engine's rather than a guess.
 *
 * Recording patches pg's Client.query in this process (the services run in it) and keeps the
 * statements sent to one database while a recording is open; requests are checked one at a time,
 * so the statements of one recording are one request's. Writes (INSERT/UPDATE/DELETE) are left
 * out of the replay: they name ids that exist once. The replay runs each recorded request's reads
 * in order on one connection of its own (what the service parallelises, the replay does not:
 * at 10 connections that evens out), `connections` at a time, for `seconds`.
 */
const pg = require('pg');
const { percentile } = require('./lib');

function statementRecorder(databaseName) {
  let open;
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function query(config, values, callback) {
    if (open && this.database === databaseName) {
      const text = typeof config === 'string' ? config : config?.text;
      const params = Array.isArray(values) ? values : config?.values;
      // A named statement keeps its name: the replay prepares it once per connection, as the service does.
      if (text && !/^\s*(INSERT|UPDATE|DELETE)\b/i.test(text))
        open.push({ text, values: params, ...(config?.name ? { name: config.name } : {}) });
    }
    return original.call(this, config, values, callback);
  };
  return {
    start: () => void (open = []),
    stop: () => {
      const statements = open ?? [];
      open = undefined;
      return statements;
    },
    restore: () => void (pg.Client.prototype.query = original),
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

module.exports = { statementRecorder, replay };
