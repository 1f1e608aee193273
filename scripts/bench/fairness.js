#!/usr/bin/env node
/**
 * How long organization B's upload waits behind organization A's slow downloads (issue 28 item 10).
 * A fresh `npm start` (a temporary DATA_DIR, PORT=0, FETCH_ALLOW_HOSTS=127.0.0.1, the defaults
 * otherwise) in a child process; a loopback server that trickles bytes without end; organization A
 * (the first key's) queues four video_url tasks on it; organization B (a key from
 * `npm run keys -- create --org b`) then uploads a small video. Prints the seconds from B's upload
 * until its task is `indexing` and `ready`, and the status of A's tasks at that moment. Uses the build:
 *
 *   npm run build && node scripts/bench/fairness.js [--rate BYTES_PER_SECOND] [--give-up SECONDS]
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
const { silentVideo, startNpmStart } = require('@vus/testing');

const ROOT = join(__dirname, '..', '..');
const SLOW_TASKS = 4;

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

async function main() {
  const { values } = parseArgs({ options: { rate: { type: 'string', default: '40960' }, 'give-up': { type: 'string', default: '600' } } });
  const rate = Number(values.rate);
  const giveUpMs = Number(values['give-up']) * 1000;
  const dataDir = mkdtempSync(join(tmpdir(), 'vus-bench-fairness-'));
  const trickle = await trickleServer(rate);
  const server = await startNpmStart({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', FETCH_ALLOW_HOSTS: '127.0.0.1' }, 120_000);
  try {
    const keyA = server.apiKey;
    if (!keyA) throw new Error(`no first key printed:\n${server.output()}`);
    const keyB = createKey(dataDir, 'b');
    const { baseUrl } = server;

    const indexA = await createIndex(baseUrl, keyA, 'a');
    const slow = [];
    for (let n = 0; n < SLOW_TASKS; n++) {
      slow.push(await api(baseUrl, keyA, 'POST', '/v1.3/tasks', form({ index_id: indexA._id, video_url: trickle.url })));
    }
    for (const deadline = Date.now() + 60_000; trickle.open() === 0; await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > deadline) throw new Error('no download of A started');
    }

    const indexB = await createIndex(baseUrl, keyB, 'b');
    const video = await silentVideo();
    const file = new Blob([readFileSync(video.path)], { type: 'video/mp4' });
    const started = performance.now();
    const task = await api(
      baseUrl,
      keyB,
      'POST',
      '/v1.3/tasks',
      form({ index_id: indexB._id, video_file: new File([file], basename(video.path)) }),
    );
    const seen = {};
    let status;
    for (;;) {
      ({ status } = await api(baseUrl, keyB, 'GET', `/v1.3/tasks/${task._id}`));
      seen[status] ??= (performance.now() - started) / 1000;
      if (status === 'ready' || status === 'failed') break;
      if (performance.now() - started > giveUpMs) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const statusesOfA = await Promise.all(slow.map(async (t) => (await api(baseUrl, keyA, 'GET', `/v1.3/tasks/${t._id}`)).status));
    const at = (s) => (seen[s] === undefined ? 'never' : `${seen[s].toFixed(1)} s`);
    console.log(`trickle: ${rate} bytes/s; A: ${SLOW_TASKS} video_url tasks; B: one ${basename(video.path)} upload`);
    console.log(`B's task: ${status} (indexing after ${at('indexing')}, ready after ${at('ready')})`);
    console.log(`A's tasks then: ${statusesOfA.join(', ')}; A's downloads open: ${trickle.open()}`);
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
