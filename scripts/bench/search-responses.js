#!/usr/bin/env node
/**
 * Two builds' answers to the same searches, compared (issue 31: faster, results byte-identical).
 *
 * `search.js --keep --requests FILE` leaves its databases and writes the requests of each kind.
 * This script starts index-, search- and billing-service and the gateway of the build at `--root`
 * (a checkout, built) in this process on those databases, sends the first `--per-kind` requests of
 * each kind one at a time, and writes every answer to `--out`: the status and the body (and the
 * second page's, read back from the stored result set, when there is one), with what
 * differs from one call to the next by design blanked (result-set ids in page tokens, page expiry,
 * signed thumbnail URLs' host, signature and expiry). Run it once per build, then `--compare A B`:
 *
 *   node scripts/bench/search.js --videos 2000 --duration 1 --connections 1 --keep --requests /tmp/requests.json
 *   node scripts/bench/search-responses.js --root /tmp/before --databases URL,URL,URL,URL --requests /tmp/requests.json --out /tmp/a.json
 *   node scripts/bench/search-responses.js --root . --databases … --requests /tmp/requests.json --out /tmp/b.json
 *   node scripts/bench/search-responses.js --compare /tmp/a.json /tmp/b.json
 *
 * `--databases`: the kept URLs in search.js's order (index, billing, gateway, search).
 * `--clips-inputs FILE` also writes what each search handed clipsOf (JSON lines of matches and
 * rules): search-clips.js's input. Drop the databases afterwards (dropdb).
 */
'use strict';
const { mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, writeSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { parseArgs } = require('node:util');

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    root: { type: 'string', default: '.' },
    databases: { type: 'string' },
    requests: { type: 'string' },
    out: { type: 'string' },
    'per-kind': { type: 'string', default: '200' },
    'clips-inputs': { type: 'string' },
    compare: { type: 'boolean', default: false },
  },
});
/** search.js's admin token and URL-signing secret: the kept gateway database was made with them. */
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const URL_SIGNING_SECRET = 'bench-url-signing-secret-0123456789abcdef';

/** An answer with what changes from call to call by design blanked, so that two builds' answers compare byte for byte. */
function comparable(body) {
  return body
    .replace(/"(next_page_token|prev_page_token|page_expires_at|page_expired_at)":"[^"]*"/g, '"$1":"…"')
    .replace(/("thumbnail_url":")http:\/\/[^/]*([^"?]*)\?[^"]*"/g, '$1$2?…"');
}

async function answers() {
  const root = resolve(args.root);
  const load = (name) => require(join(root, 'node_modules', name));
  const { createLogger } = load('@vus/core');
  const logger = createLogger({ service: 'bench', level: process.env.BENCH_LOG_LEVEL ?? 'silent' });
  if (args['clips-inputs']) captureClipsInputs(root, args['clips-inputs']);
  const [indexUrl, billingUrl, gatewayUrl, searchUrl] = args.databases.split(',');
  const mailDir = mkdtempSync(join(tmpdir(), 'vus-bench-mail-'));
  const stops = [];
  try {
    const index = await load('@vus/index-service').startIndexService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: indexUrl },
      logger,
    });
    stops.push(() => index.stop());
    const search = await load('@vus/search-service').startSearchService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: searchUrl },
      indexServiceAddress: index.address,
      logger,
    });
    stops.push(() => search.stop());
    const billing = await load('@vus/billing-service').startBillingService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: billingUrl },
      logger,
      mail: { kind: 'folder', dir: mailDir, from: 'bench@localhost' },
    });
    stops.push(() => billing.stop());
    const gateway = await load('@vus/gateway').startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'postgres', url: gatewayUrl },
      indexServiceAddress: index.address,
      searchServiceAddress: search.address,
      billingServiceAddress: billing.address,
      adminToken: ADMIN_TOKEN,
      urlSigningSecret: URL_SIGNING_SECRET,
      logger,
    });
    stops.push(() => gateway.stop());
    const kinds = JSON.parse(readFileSync(args.requests, 'utf8'));
    const out = {};
    for (const kind of kinds) {
      out[kind.name] = [];
      for (const request of kind.requests.slice(0, Number(args['per-kind']))) {
        const res = await fetch(`${gateway.url}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
        const body = await res.text();
        // A result set's second page too: what the set stored, read back.
        const token = res.status === 200 ? nextPageToken(JSON.parse(body)) : undefined;
        const next =
          token && (await fetch(`${gateway.url}${request.path}/${token}`, { headers: { 'x-api-key': request.headers['x-api-key'] } }));
        out[kind.name].push({ status: res.status, body: comparable(body), ...(next && { next: comparable(await next.text()) }) });
      }
      console.log(`${kind.name}: ${out[kind.name].length} answers`);
    }
    writeFileSync(args.out, JSON.stringify(out, null, 1));
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error('stopping:', error));
    rmSync(mailDir, { recursive: true, force: true });
  }
}

const nextPageToken = (answer) => answer.page_info?.next_page_token ?? answer.page_info?.next_page_id;

/** Wraps the build's clipsOf (search.ts and combined-search.ts call it through its module's exports) to write its inputs. */
function captureClipsInputs(root, file) {
  const clips = require(join(root, 'services/search-service/dist/clips.js'));
  const out = openSync(file, 'w');
  const clipsOf = clips.clipsOf;
  clips.clipsOf = (matches, rules) => {
    writeSync(out, `${JSON.stringify({ matches, rules })}\n`);
    return clipsOf(matches, rules);
  };
}

function compare([a, b]) {
  const [before, after] = [JSON.parse(readFileSync(a, 'utf8')), JSON.parse(readFileSync(b, 'utf8'))];
  let differing = 0;
  for (const kind of Object.keys(before)) {
    const [x, y] = [before[kind], after[kind] ?? []];
    const diff = x.filter(
      (answer, i) => !y[i] || answer.status !== y[i].status || answer.body !== y[i].body || answer.next !== y[i].next,
    ).length;
    const bytes = x.reduce((sum, answer) => sum + answer.body.length + (answer.next?.length ?? 0), 0);
    const pages = x.filter((answer) => answer.next).length;
    console.log(
      `${diff === 0 && x.length === y.length ? 'same' : 'DIFF'}  ${kind}: ${x.length} answers and ${pages} second pages (${bytes} bytes), ${diff} differ`,
    );
    differing += diff + Math.abs(x.length - y.length);
  }
  process.exitCode = differing === 0 ? 0 : 1;
}

if (args.compare) compare(positionals);
else
  answers().catch((error) => {
    console.error(error);
    process.exit(1);
  });
