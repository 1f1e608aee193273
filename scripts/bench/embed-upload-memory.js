#!/usr/bin/env node
/**
 * The gateway's peak memory (RSS) for the largest embedding uploads it accepts, and what a refused
 * one costs (issue 28, defect 8): v1.2 POST /embed/tasks with a 95 MiB video_file (multipart), six
 * at once, POST /embed-v2/tasks and /embed-v2 with 15 MiB of JSON (a base64 video), and a 95 MiB
 * upload of an organization past its embed_video requests per minute (answered before its body is
 * read: the bench reports how much of it was sent before the answer). At the end, what is left under
 * blobs/embed-tasks/ once the tasks are done (the media is not a video: each task fails).
 * The server is embedded mode (`npm start`) in a child process on loopback, as in multipart-memory.js
 * (peak RSS reset through /proc/<pid>/clear_refs and read from VmHWM; Linux). Uses the build:
 *
 *   npm run build && node scripts/bench/embed-upload-memory.js
 */
'use strict';
const { existsSync, mkdtempSync, readdirSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { mib, residentKib, startEmbeddedServer } = require('./lib');

const MIB = 1024 * 1024;
const KEY = 'bench-embed-upload-key-0123456789abcdef';
const BOUNDARY = '----vus-bench-embed-boundary-41c2';
/** The Free plan's embed_video requests per minute (SPEC §8). */
const EMBED_VIDEO_RPM = 25;

/** A multipart body: the engine name, then a video_file of `size` bytes. */
function* multipartVideo(size) {
  const block = Buffer.alloc(MIB, 0x61);
  yield Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="engine_name"\r\n\r\nMarengo-retrieval-2.6\r\n`);
  yield Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="video_file"; filename="v.mp4"\r\ncontent-type: video/mp4\r\n\r\n`,
  );
  for (let left = size; left > 0; left -= MIB) yield left >= MIB ? block : block.subarray(0, left);
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

/** A /embed-v2 JSON body whose video is `size` bytes of base64 text. */
function* jsonVideo(size) {
  yield Buffer.from('{"input_type":"video","model_name":"marengo3.0","video":{"media_source":{"base64_string":"');
  const block = Buffer.alloc(MIB, 0x41); // 'A'
  for (let left = size; left > 0; left -= MIB) yield left >= MIB ? block : block.subarray(0, left);
  yield Buffer.from('"}}}');
}

/**
 * Sends a streamed body with backpressure and a Content-Length; resolves with the answer and how
 * many bytes had been written when it came.
 */
function send(url, contentType, chunks) {
  const all = [...chunks];
  const length = all.reduce((sum, c) => sum + c.length, 0);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answer;
    const req = http.request(
      url,
      { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': contentType, 'content-length': length } },
      (res) => {
        const sentAtAnswer = sent;
        const parts = [];
        res.on('data', (c) => parts.push(c));
        res.on('end', () => {
          answer = { status: res.statusCode, body: Buffer.concat(parts).toString().slice(0, 120), sentAtAnswer, length };
          resolve(answer);
        });
      },
    );
    req.on('error', (error) => (answer ? resolve(answer) : setTimeout(() => (answer ? resolve(answer) : reject(error)), 500)));
    let at = 0;
    const pump = () => {
      for (; at < all.length; at += 1) {
        if (req.destroyed) return;
        sent += all[at].length;
        if (!req.write(all[at])) return void req.once('drain', () => ((at += 1), pump()));
      }
      req.end();
    };
    pump();
  });
}

/** Files under a folder, recursively. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [e.name]));
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'vus-bench-embed-upload-'));
  const server = await startEmbeddedServer(dataDir, KEY);
  const pid = server.child.pid;
  const multipart = `multipart/form-data; boundary=${BOUNDARY}`;
  const measure = async (name, run) => {
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // peak RSS := current RSS
    const before = residentKib(pid).now;
    const answers = await run();
    await new Promise((r) => setTimeout(r, 200));
    const peak = residentKib(pid).peak;
    console.log(`${name}\n  RSS before ${mib(before)}, peak ${mib(peak)} (+${mib(peak - before)})`);
    for (const a of [answers].flat())
      console.log(`  answer ${a.status} after ${(a.sentAtAnswer / MIB).toFixed(1)} of ${(a.length / MIB).toFixed(1)} MiB sent: ${a.body}`);
    console.log('');
    return [answers].flat();
  };
  try {
    console.log(`embedded server pid ${pid}; idle RSS ${mib(residentKib(pid).now)}\n`);
    const tasks = [];
    const taskIds = (answers) => {
      for (const a of answers) if (a.status === 200 || a.status === 202) tasks.push(JSON.parse(a.body)._id);
    };
    taskIds(
      await measure('accepted: v1.2 POST /embed/tasks, a 95 MiB video_file', () =>
        send(`${server.url}/v1.2/embed/tasks`, multipart, multipartVideo(95 * MIB)),
      ),
    );
    taskIds(
      await measure('accepted: six v1.2 POST /embed/tasks at once, 95 MiB video_file each', () =>
        Promise.all(Array.from({ length: 6 }, () => send(`${server.url}/v1.2/embed/tasks`, multipart, multipartVideo(95 * MIB)))),
      ),
    );
    taskIds(
      await measure('accepted: POST /v1.3/embed-v2/tasks, 15 MiB of JSON (base64 video)', () =>
        send(`${server.url}/v1.3/embed-v2/tasks`, 'application/json', jsonVideo(15 * MIB)),
      ),
    );
    await measure('answered (not a video): POST /v1.3/embed-v2, 15 MiB of JSON (base64 video)', () =>
      send(`${server.url}/v1.3/embed-v2`, 'application/json', jsonVideo(15 * MIB)),
    );
    // Use up this minute's embed_video requests (nine so far) with small ones, then a large upload is refused.
    for (let used = 9; used < EMBED_VIDEO_RPM; used += 1)
      await send(`${server.url}/v1.3/embed-v2`, 'application/json', [Buffer.from('{"input_type":"video"}')]);
    await measure('refused (rate limit): v1.2 POST /embed/tasks, a 95 MiB video_file', () =>
      send(`${server.url}/v1.2/embed/tasks`, multipart, multipartVideo(95 * MIB)),
    );
    await measure('refused (rate limit): POST /v1.3/embed-v2, 15 MiB of JSON', () =>
      send(`${server.url}/v1.3/embed-v2`, 'application/json', jsonVideo(15 * MIB)),
    );
    // The tasks fail (the media is not a video); then their media is removed.
    const blobDir = join(dataDir, 'blobs', 'embed-tasks');
    for (let waited = 0; waited < 120_000 && filesUnder(blobDir).length > 0; waited += 500) await new Promise((r) => setTimeout(r, 500));
    console.log(`${tasks.length} tasks made; files left under blobs/embed-tasks/ once they were done: ${filesUnder(blobDir).length}`);
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
