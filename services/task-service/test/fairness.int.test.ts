/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * One organization's slow downloads must not hold up another organization (issue 15 defect 4,
 * issue 28 item 10). Organization A queues four tasks whose video_url trickles a byte at a time
 * and never ends; organization B then queues an upload and a video_url of a server that answers at
 * once. On the worker's defaults (one indexing slot, as `npm start` has), both of B's tasks are
 * indexed while all of A's downloads are still going: a download runs in the fetch stage's own
 * slots, never in the indexing slot, and one organization gets at most its share of those.
 */
import { newId } from '@vus/core';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { textScenesVideo } from '@vus/testing';
import { createReadStream } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WORKER_DEFAULTS } from '../src/worker/start';
import { startTaskStack, type TaskStack } from './stack';

const ORG_A = newId();
const ORG_B = newId();
const SLOW_TASKS = 4;

let stack: TaskStack;
let server: Server;
let baseUrl: string;
let scenesPath: string;
const trickling = new Set<ServerResponse>();
let mostTricklingAtOnce = 0;

beforeAll(async () => {
  scenesPath = (await textScenesVideo()).path;
  // /slow.mp4: headers at once, then one byte every 200 ms, forever (a download that never
  // finishes); /scenes.mp4: a real video, whole and at once.
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4' });
    if (req.url === '/scenes.mp4') {
      createReadStream(scenesPath).pipe(res);
      return;
    }
    trickling.add(res);
    mostTricklingAtOnce = Math.max(mostTricklingAtOnce, trickling.size);
    const timer = setInterval(() => res.write('x'), 200);
    res.on('close', () => {
      clearInterval(timer);
      trickling.delete(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stack = await startTaskStack({
    name: 'fairness',
    // The worker's defaults (one indexing slot; the fetch stage's slots and per-organization cap).
    // The download limits are far away here (their own tests are libs/fetch's): A's downloads stay slow, not failed.
    worker: () => ({ fetch: { allowHosts: ['127.0.0.1'], idleTimeoutMs: 120_000, rateWindowMs: 600_000 } }),
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  for (const res of trickling) res.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const waitUntil = async (condition: () => boolean, what: string) => {
  for (const deadline = Date.now() + 20_000; !condition(); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
};

it('indexes organization B’s upload and video_url while organization A’s slow downloads go on', async () => {
  const indexA = await stack.createIndex(ORG_A, ['visual']);
  const slow: Task[] = [];
  for (let n = 0; n < SLOW_TASKS; n++) {
    slow.push(
      await stack.rpc<Task>(ORG_A, (md, opts, cb) =>
        stack.tasks.CreateTask({ index_id: indexA, video_url: `${baseUrl}/slow.mp4` }, md, opts, cb),
      ),
    );
  }
  await waitUntil(() => trickling.size >= 1, 'a download of A to start');

  const indexB = await stack.createIndex(ORG_B, ['visual', 'text_in_video']);
  const upload = await stack.upload(scenesPath);
  const uploaded = await stack.rpc<Task>(ORG_B, (md, opts, cb) =>
    stack.tasks.CreateTask({ index_id: indexB, video_blob_key: upload, filename: 'scenes.mp4' }, md, opts, cb),
  );
  const fetched = await stack.rpc<Task>(ORG_B, (md, opts, cb) =>
    stack.tasks.CreateTask({ index_id: indexB, video_url: `${baseUrl}/scenes.mp4` }, md, opts, cb),
  );
  expect(await stack.waitForTask(ORG_B, uploaded.id, { timeoutMs: 90_000 })).toMatchObject({ status: 'ready', failure: null });
  expect(await stack.waitForTask(ORG_B, fetched.id, { timeoutMs: 90_000 })).toMatchObject({ status: 'ready', failure: null });

  // A's tasks are all still downloading, at most its share of the fetch slots at once.
  for (const task of slow) expect((await stack.getTask(ORG_A, task.id)).status).toBe('uploading');
  expect(trickling.size).toBeGreaterThanOrEqual(1);
  expect(mostTricklingAtOnce).toBeLessThanOrEqual(WORKER_DEFAULTS.fetchPerOrgLimit);
}, 180_000);
