#!/usr/bin/env node
/**
 * How long organization B's upload waits behind organization A's work. A fresh `npm start` (a
 * temporary DATA_DIR, PORT=0, FETCH_ALLOW_HOSTS=127.0.0.1, the defaults otherwise) in a child
 * process; organization B's key from `npm run keys -- create --org b`. Two scenarios:
 *
 * - downloads (default; issue 28 item 10): a loopback server trickles bytes without end;
 *   organization A (the first key's) queues four video_url tasks on it, then B uploads a small video.
 * - `--uploads N` (issue 30): the server indexes WORKER_CONCURRENCY (`--concurrency`, default 2)
 *   videos at once; A uploads N copies of a 30 s excerpt of the SDK's example, and once A's tasks
 *   are indexing B uploads a small video. Work-conserving fairness (libs/jobs orgsAfterOthers): A's
 *   queue fills every slot while B has nothing queued, and B's upload takes the next slot that frees.
 *
 * Prints the seconds from B's upload until its task is `indexing` and `ready`, and the status of
 * A's tasks at that moment (with --uploads, also the most of A's tasks indexing at once before B
 * came). Uses the build:
 *
 *   npm run build && node scripts/bench/fairness.js [--rate BYTES_PER_SECOND] [--give-up SECONDS] [--uploads N [--concurrency C]]
 *
 * --rate: the trickle (default 40960, above libs/fetch's 32 KiB/s floor, so that A's downloads run
 * until the hour's bound; a few bytes per second are cut by the floor after 30 s).
 * --give-up: stop waiting for B after this long (default 600).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { basename, join } = require('node:path');
const { parseArgs } = require('node:util');
const { silentVideo, speechFixture, speechFixtureExcerpt, startNpmStart } = require('@vus/testing');

const ROOT = join(__dirname, '..', '..');
const SLOW_TASKS = 4;
/** Seconds of the SDK's example that each of A's uploads holds (--uploads). */
const EXCERPT_SEC = 30;

/** A server whose every answer is endless `x`s at `bytesPerSecond` (ten writes a second). */
async function trickleServer(bytesPerSecond) {
  const open = new Set();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4' });
    open.add(res);
    const chunk = Buffer.alloc(Math.max(1, Math.round(bytesPerSecond / 10)), 0x78);
    const timer = setInterval(() => res.write(chunk), 100);
    res.on('close', () => {
      clearInterval(timer);
      open.delete(res);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/slow.mp4`,
    open: () => open.size,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function api(baseUrl, key, method, path, body) {
  const init = { method, headers: { 'x-api-key': key } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

const createIndex = (baseUrl, key, name) =>
  api(baseUrl, key, 'POST', '/v1.3/indexes', { index_name: name, models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] });

function form(fields) {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
}

/** `npm run keys -- create --org <org>` against the running instance (found through DATA_DIR). */
function createKey(dataDir, org) {
  const run = spawnSync('npm', ['run', '--silent', 'keys', '--', 'create', '--org', org], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  const key = run.stdout.trim().split('\n').pop();
  if (run.status !== 0 || !key) throw new Error(`npm run keys failed: ${run.stderr}`);
  return key;
}

function upload(baseUrl, key, indexId, path) {
  const file = new File([readFileSync(path)], basename(path), { type: 'video/mp4' });
  return api(baseUrl, key, 'POST', '/v1.3/tasks', form({ index_id: indexId, video_file: file }));
}

const statusesOf = (baseUrl, key, tasks) =>
  Promise.all(tasks.map(async (t) => (await api(baseUrl, key, 'GET', `/v1.3/tasks/${t._id}`)).status));

/** A's work: four video_url tasks on the trickle server, downloading before B comes. */
async function slowDownloads(baseUrl, keyA, trickle) {
  const indexA = await createIndex(baseUrl, keyA, 'a');
  const tasks = [];
  for (let n = 0; n < SLOW_TASKS; n++) {
    tasks.push(await api(baseUrl, keyA, 'POST', '/v1.3/tasks', form({ index_id: indexA._id, video_url: trickle.url })));
  }
  for (const deadline = Date.now() + 60_000; trickle.open() === 0; await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error('no download of A started');
  }
  return { tasks, described: `A: ${SLOW_TASKS} video_url tasks`, before: '' };
}

/** A's work: `count` uploads, indexing (as many at once as the server's slots allow) before B comes. */
async function queuedUploads(baseUrl, keyA, count, concurrency) {
  const indexA = await createIndex(baseUrl, keyA, 'a');
  const video = await speechFixtureExcerpt(speechFixture('twelvelabs-example'), EXCERPT_SEC);
  const tasks = [];
  for (let n = 0; n < count; n++) tasks.push(await upload(baseUrl, keyA, indexA._id, video));
  // Until as many of A's tasks index as B could ever find busy (the slots, or all of A's): the most at once before B came.
  let mostIndexing = 0;
  for (const deadline = Date.now() + 120_000; mostIndexing < Math.min(count, concurrency); await new Promise((r) => setTimeout(r, 250))) {
    mostIndexing = Math.max(mostIndexing, (await statusesOf(baseUrl, keyA, tasks)).filter((s) => s === 'indexing').length);
    if (Date.now() > deadline) break;
  }
  return {
    tasks,
    described: `A: ${count} uploads of ${EXCERPT_SEC} s of the example, WORKER_CONCURRENCY=${concurrency}`,
    before: `; A's tasks indexing at once before B came: ${mostIndexing} of ${concurrency} slots`,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      rate: { type: 'string', default: '40960' },
      'give-up': { type: 'string', default: '600' },
      uploads: { type: 'string', default: '0' },
      concurrency: { type: 'string', default: '2' },
    },
  });
  const rate = Number(values.rate);
  const giveUpMs = Number(values['give-up']) * 1000;
  const uploads = Number(values.uploads);
  const concurrency = Number(values.concurrency);
  const dataDir = mkdtempSync(join(tmpdir(), 'vus-bench-fairness-'));
  const trickle = await trickleServer(rate);
  const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', FETCH_ALLOW_HOSTS: '127.0.0.1' };
  const server = await startNpmStart(uploads > 0 ? { ...env, WORKER_CONCURRENCY: String(concurrency) } : env, 120_000);
  try {
    const keyA = server.apiKey;
    if (!keyA) throw new Error(`no first key printed:\n${server.output()}`);
    const keyB = createKey(dataDir, 'b');
    const { baseUrl } = server;

    const a = uploads > 0 ? await queuedUploads(baseUrl, keyA, uploads, concurrency) : await slowDownloads(baseUrl, keyA, trickle);

    const indexB = await createIndex(baseUrl, keyB, 'b');
    const video = await silentVideo();
    const started = performance.now();
    const task = await upload(baseUrl, keyB, indexB._id, video.path);
    const seen = {};
    let status;
    let statusesOfA;
    for (;;) {
      ({ status } = await api(baseUrl, keyB, 'GET', `/v1.3/tasks/${task._id}`));
      seen[status] ??= (performance.now() - started) / 1000;
      // A's tasks as B's starts indexing (the downloads: as it ends).
      if (status === 'indexing' && uploads > 0) statusesOfA ??= await statusesOf(baseUrl, keyA, a.tasks);
      if (status === 'ready' || status === 'failed') break;
      if (performance.now() - started > giveUpMs) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    statusesOfA ??= await statusesOf(baseUrl, keyA, a.tasks);
    const at = (s) => (seen[s] === undefined ? 'never' : `${seen[s].toFixed(1)} s`);
    console.log(`${uploads > 0 ? '' : `trickle: ${rate} bytes/s; `}${a.described}; B: one ${basename(video.path)} upload${a.before}`);
    console.log(`B's task: ${status} (indexing after ${at('indexing')}, ready after ${at('ready')})`);
    console.log(
      `A's tasks ${uploads > 0 ? 'as B’s indexed' : 'then'}: ${statusesOfA.join(', ')}${uploads > 0 ? '' : `; A's downloads open: ${trickle.open()}`}`,
    );
  } finally {
    await server.stop();
    await trickle.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
