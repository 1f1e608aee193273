#!/usr/bin/env node
/**
 * Gateway benchmark: the latency the gateway adds (auth + rate limits + one gRPC hop), with rate
 * limits counted in memory and in Redis. Requests are sent one at a time over a kept-alive
 * connection, so each figure is latency, not throughput; the client's own cost is measured on a
 * bare express app and subtracted. Target: ≤ 2 ms p50 added. Uses the build (npm run build) and
 * the local PostgreSQL-free stack (PGlite) plus Redis at REDIS_URL (default 127.0.0.1:6379).
 * Then the memory scenarios again with tracing on (issue 20): the SDK's tracer provider with the
 * async-hooks context manager and a batch processor, as `@vus/telemetry/register` sets up, whose
 * exporter discards the batches (export is off the request path; a collector is not measured).
 * Target: tracing adds < 0.3 ms p50.
 *
 *   npm run build && node scripts/bench/gateway.js [requests per scenario, default 3000]
 */
'use strict';
const http = require('node:http');
const { createRequire } = require('node:module');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const express = require('express');
const { createLogger } = require('@vus/core');
const { startIndexService } = require('@vus/index-service');
const { startBillingService } = require('@vus/billing-service');
const { startGateway } = require('@vus/gateway');

const REQUESTS = Number(process.argv[2] ?? 3000);
const WARMUP = 300;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const logger = createLogger({ service: 'bench', level: 'silent' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function measure(name, request, expectStatus) {
  for (let i = 0; i < WARMUP; i++) await request();
  const times = [];
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    const res = await request();
    times.push(performance.now() - start);
    if (res.status !== expectStatus) throw new Error(`${name}: got ${res.status} ${res.body}`);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const result = { name, p50: at(0.5), p99: at(0.99) };
  console.log(`${name.padEnd(58)} p50 ${result.p50.toFixed(3).padStart(7)} ms   p99 ${result.p99.toFixed(3).padStart(7)} ms`);
  return result;
}

async function startBare() {
  const app = express();
  app.get('/', (_req, res) => res.json({}));
  const server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((r) => server.close(r)) };
}

/** Tracing as the Node SDK runs it, with an exporter that counts and drops what it is given. */
function startTracing() {
  // The OpenTelemetry packages @vus/telemetry depends on (installed in its folder, not hoisted).
  const telemetryRequire = createRequire(join(__dirname, '../../libs/telemetry/package.json'));
  const { context, trace } = telemetryRequire('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = telemetryRequire('@opentelemetry/context-async-hooks');
  const { TracerProvider, BatchSpanProcessor } = telemetryRequire('@opentelemetry/sdk-trace');
  let exported = 0;
  const exporter = {
    export(spans, done) {
      exported += spans.length;
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  };
  const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return {
    exported: () => exported,
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

async function main() {
  const mailDir = mkdtempSync(join(tmpdir(), 'vus-bench-mail-'));
  const bare = await startBare();
  const index = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger });
  const billing = await startBillingService({
    bind: '127.0.0.1:0',
    database: { kind: 'pglite', dataDir: 'memory://' },
    logger,
    mail: { kind: 'folder', dir: mailDir, from: 'bench@localhost' },
  });
  const results = [];
  console.log(`${REQUESTS} sequential requests per scenario after ${WARMUP} warm-up, one kept-alive connection\n`);
  const baseline = await measure('bare express GET / (client + HTTP floor)', () => send(bare.url), 200);

  const runScenarios = async (counters, label) => {
    const gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'pglite', dataDir: 'memory://' },
      indexServiceAddress: index.address,
      billingServiceAddress: billing.address,
      redisUrl: counters === 'redis' ? REDIS_URL : undefined,
      adminToken: ADMIN_TOKEN,
      logger,
    });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const org = JSON.parse(
      (await send(`${gateway.url}/admin/organizations`, { method: 'POST', headers: admin, body: { name: `bench-${counters}` } })).body,
    );
    const { key } = JSON.parse(
      (await send(`${gateway.url}/admin/organizations/${org._id}/keys`, { method: 'POST', headers: admin, body: {} })).body,
    );
    // Limits high enough never to refuse, so every request takes the admitted path.
    const huge = 1_000_000_000;
    await send(`${gateway.url}/admin/organizations/${org._id}/billing/enterprise`, {
      method: 'PUT',
      headers: admin,
      body: {
        limits: [
          { category: 'search', dimension: 'RPM', limit: huge },
          { category: 'search', dimension: 'RPD', limit: huge },
        ],
      },
    });
    const auth = { 'x-api-key': key };

    // The engine catalogue is served by index-service from memory: a trivial endpoint one hop away.
    results.push(
      await measure(`[${label}] GET /v1.2/engines: auth + one gRPC hop`, () => send(`${gateway.url}/v1.2/engines`, { headers: auth }), 200),
    );
    // Search is not built yet (501 after the limits); it is the endpoint that carries limits.
    results.push(
      await measure(
        `[${label}] POST /v1.3/search: auth + body + RPM/RPD limits`,
        () => send(`${gateway.url}/v1.3/search`, { method: 'POST', headers: auth, body: {} }),
        501,
      ),
    );
    await gateway.stop();
  };
  for (const counters of ['memory', 'redis']) await runScenarios(counters, counters);
  const tracing = startTracing();
  await runScenarios('memory', 'memory+tracing');
  await tracing.stop();
  const byName = Object.fromEntries(results.map((r) => [r.name, r]));
  console.log('\nadded over the bare floor (p50 / p99):');
  for (const counters of ['memory', 'redis']) {
    const hop = byName[`[${counters}] GET /v1.2/engines: auth + one gRPC hop`];
    const limited = byName[`[${counters}] POST /v1.3/search: auth + body + RPM/RPD limits`];
    // Limits + auth + one hop: the hop's cost plus what the limited endpoint adds beyond auth.
    console.log(
      `  ${counters.padEnd(6)} auth + one gRPC hop       ${(hop.p50 - baseline.p50).toFixed(3)} / ${(hop.p99 - baseline.p99).toFixed(3)} ms`,
    );
    console.log(
      `  ${counters.padEnd(6)} auth + limits (no hop)    ${(limited.p50 - baseline.p50).toFixed(3)} / ${(limited.p99 - baseline.p99).toFixed(3)} ms`,
    );
  }
  console.log(`\ntracing on, added over tracing off (memory counters; ${tracing.exported()} spans exported), p50 / p99:`);
  for (const scenario of ['GET /v1.2/engines: auth + one gRPC hop', 'POST /v1.3/search: auth + body + RPM/RPD limits']) {
    const off = byName[`[memory] ${scenario}`];
    const on = byName[`[memory+tracing] ${scenario}`];
    console.log(`  ${scenario.padEnd(48)} ${(on.p50 - off.p50).toFixed(3)} / ${(on.p99 - off.p99).toFixed(3)} ms`);
  }
  await billing.stop();
  await index.stop();
  await bare.stop();
  agent.destroy();
  rmSync(mailDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
