#!/usr/bin/env node
/**
 * The load side of scripts/bench/search.js, run as a second process so that the load tool's CPU
 * is not counted in the services' event loop. It receives the gateway URL and the prebuilt
 * requests of each query kind over IPC, drives autocannon (a warm-up run, then the measured run)
 * and sends back latency percentiles and throughput. Not meant to be started by hand.
 */
'use strict';
const autocannon = require('autocannon');

/** One autocannon run; each connection cycles through `requests` in order. */
function run(url, connections, seconds, requests) {
  return autocannon({ url, connections, duration: seconds, requests });
}

function summary(name, result) {
  return {
    name,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    mean: result.latency.average,
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

process.once('message', (job) => {
  const { url, connectionCounts, durationSec, warmupSec, kinds } = job;
  (async () => {
    const results = [];
    for (const kind of kinds) {
      const requests = kind.requests.map((r) => ({ method: 'POST', path: r.path, headers: r.headers, body: r.body }));
      for (const connections of connectionCounts) {
        if (warmupSec > 0) await run(url, connections, warmupSec, requests);
        const measured = { name: kind.name, connections };
        await new Promise((resolve) => process.send({ type: 'measuring', ...measured }, resolve));
        const result = await run(url, connections, durationSec, requests);
        await new Promise((resolve) => process.send({ type: 'measured', ...measured }, resolve));
        results.push({ ...summary(kind.name, result), connections });
      }
    }
    process.send({ type: 'done', results }, () => process.exit(0));
  })().catch((error) => {
    process.send({ type: 'failed', message: String(error?.stack ?? error) }, () => process.exit(1));
  });
});
