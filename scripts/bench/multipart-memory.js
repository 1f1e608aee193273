#!/usr/bin/env node
/**
 * The gateway's peak memory (RSS) for the largest multipart requests it accepts and refuses
 * (issue 15, defect 5). The server is embedded mode (`npm start`: the gateway and every service
 * in one process, PGlite, a throwaway DATA_DIR) in a child process on loopback; before each request
 * its peak RSS is reset (/proc/<pid>/clear_refs, Linux) and read after the answer
 * (/proc/<pid>/status VmHWM). Every request is sent whole, even after an early answer, as an
 * attacker would. The limits are embedded mode's: 1 MiB of text (BODY_LIMIT_BYTES), 2 GiB per
 * video (API-CONTRACT §5.3). Bounded: about 7 GiB over loopback in all, one at a time, and one
 * 2 GiB upload on disk, removed at the end. Uses the build:
 *
 *   npm run build && node scripts/bench/multipart-memory.js
 */
'use strict';
const { mkdtempSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { mib, residentKib, startEmbeddedServer } = require('./lib');

const MIB = 1024 * 1024;
const UPLOAD_BYTES = 2 * 1024 * MIB;
const KEY = 'bench-multipart-key-0123456789abcdef';
const BOUNDARY = '----vus-bench-boundary-7d1f0c';

/** A multipart part: `{ name, filename?, size, byte }` (size bytes of one repeated byte) or `{ name, value }`. */
function* multipartChunks(parts) {
  const block = Buffer.alloc(MIB, 0x61);
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const type = part.filename ? 'content-type: application/octet-stream\r\n' : '';
    yield Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: ${disposition}\r\n${type}\r\n`);
    if (part.value !== undefined) yield Buffer.from(part.value);
    else for (let left = part.size; left > 0; left -= MIB) yield left >= MIB ? block : block.subarray(0, left);
    yield Buffer.from('\r\n');
  }
  yield Buffer.from(`--${BOUNDARY}--\r\n`);
}

/** Sends a streamed multipart body with backpressure; resolves with the answer once both are done. */
function sendMultipart(url, parts) {
  return new Promise((resolve, reject) => {
    let answer;
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          answer = { status: res.statusCode, body: Buffer.concat(chunks).toString().slice(0, 160) };
        });
      },
    );
    req.on('error', (error) => (answer ? resolve(answer) : reject(error)));
    const chunks = multipartChunks(parts);
    const pump = () => {
      for (let next = chunks.next(); !next.done; next = chunks.next()) {
        if (req.destroyed) return;
        if (!req.write(next.value)) return void req.once('drain', pump);
      }
      req.end();
    };
    req.on('close', () => (answer ? resolve(answer) : setTimeout(() => (answer ? resolve(answer) : reject(new Error('no answer'))), 500)));
    pump();
  });
}

function postJson(url, body) {
  return fetch(url, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
    async (r) => ({ status: r.status, body: await r.json() }),
  );
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'vus-bench-multipart-'));
  const server = await startEmbeddedServer(dataDir, KEY);
  const pid = server.child.pid;
  try {
    const index = await postJson(`${server.url}/v1.3/indexes`, {
      index_name: 'bench',
      models: [{ model_name: 'marengo2.7', model_options: ['visual'] }],
    });
    if (index.status !== 200 && index.status !== 201) throw new Error(`index: ${index.status} ${JSON.stringify(index.body)}`);
    const indexId = index.body._id;
    const textUpToLimit = [
      { name: 'index_id', value: indexId },
      ...Array.from({ length: 7 }, (_, i) => ({ name: `note_${i}`, value: 'n'.repeat(128 * 1024) })),
    ];
    const thousandParts = Array.from({ length: 1000 }, (_, i) => ({ name: `part_${i}`, filename: 'upload', size: MIB }));
    const scenarios = [
      ['refused: 1,000 file parts of 1 MiB to POST /v1.3/indexes', '/v1.3/indexes', thousandParts],
      ['refused: 1,000 file parts of 1 MiB to POST /v1.3/tasks', '/v1.3/tasks', [{ name: 'index_id', value: indexId }, ...thousandParts]],
      ['refused: 1,000 file parts of 1 MiB to an unknown endpoint', '/v1.3/no-such-endpoint', thousandParts],
      [
        'refused: a video_file 1 MiB over the 2 GiB limit',
        '/v1.3/tasks',
        [
          { name: 'index_id', value: indexId },
          { name: 'video_file', filename: 'big.mp4', size: UPLOAD_BYTES + MIB },
        ],
      ],
      [
        'accepted: a 5 MiB query image and 896 KiB of text to POST /v1.3/search',
        '/v1.3/search',
        [
          { name: 'search_options', value: 'visual' },
          { name: 'query_media_type', value: 'image' },
          { name: 'query_media_file', filename: 'q.png', size: 5 * MIB },
          ...textUpToLimit,
        ],
      ],
      [
        'accepted: a 2 GiB video_file and 896 KiB of text to POST /v1.3/tasks',
        '/v1.3/tasks',
        [...textUpToLimit, { name: 'video_file', filename: 'big.mp4', size: UPLOAD_BYTES }],
      ],
    ];
    console.log(`embedded server pid ${pid}; idle RSS ${mib(residentKib(pid).now)}\n`);
    for (const [name, path, parts] of scenarios) {
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // peak RSS := current RSS
      const before = residentKib(pid).now;
      const answer = await sendMultipart(`${server.url}${path}`, parts);
      await new Promise((r) => setTimeout(r, 200));
      const peak = residentKib(pid).peak;
      console.log(
        `${name}\n  answer ${answer.status} ${answer.body}\n  RSS before ${mib(before)}, peak ${mib(peak)} (+${mib(peak - before)})\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
