/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * One organization's slow tasks must not hold every worker slot (issue 15, defect 4): organization A
 * queues three tasks whose video_url trickles a byte at a time and never ends; organization B then
 * queues one upload. With two slots, B's task is indexed while A's downloads are still going, and
 * A never has both slots.
 */
import { newId } from '@vus/core';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { textScenesVideo } from '@vus/testing';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTaskStack, type TaskStack } from './stack';

const ORG_A = newId();
const ORG_B = newId();

let stack: TaskStack;
let trickle: Server;
let trickleUrl: string;
const open = new Set<ServerResponse>();
let mostOpenAtOnce = 0;

beforeAll(async () => {
  // Headers at once, then one byte every 200 ms, forever: a download that never finishes.
  trickle = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4' });
    open.add(res);
    mostOpenAtOnce = Math.max(mostOpenAtOnce, open.size);
    const timer = setInterval(() => res.write('x'), 200);
    res.on('close', () => {
      clearInterval(timer);
      open.delete(res);
    });
  });
  await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
  trickleUrl = `http://127.0.0.1:${(trickle.address() as AddressInfo).port}/slow.mp4`;
  stack = await startTaskStack({
    name: 'fairness',
    // The download limits are far away here (their own tests are libs/fetch's): A's downloads stay slow, not failed.
    worker: () => ({ concurrency: 2, fetch: { allowHosts: ['127.0.0.1'], idleTimeoutMs: 120_000, rateWindowMs: 600_000 } }),
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  for (const res of open) res.destroy();
  await new Promise((resolve) => trickle?.close(resolve));
});

it('indexes organization B’s task while organization A’s slow downloads hold one slot', async () => {
  const indexA = await stack.createIndex(ORG_A, ['visual']);
  const slow: Task[] = [];
  for (let n = 0; n < 3; n++) {
    slow.push(
      await stack.rpc<Task>(ORG_A, (md, opts, cb) => stack.tasks.CreateTask({ index_id: indexA, video_url: trickleUrl }, md, opts, cb)),
    );
  }
  const waitUntil = async (condition: () => boolean, what: string) => {
    for (const deadline = Date.now() + 20_000; !condition(); await new Promise((r) => setTimeout(r, 25))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  };
  await waitUntil(() => open.size >= 1, 'a download of A to start');

  const indexB = await stack.createIndex(ORG_B, ['visual', 'text_in_video']);
  const upload = await stack.upload((await textScenesVideo()).path);
  const quick = await stack.rpc<Task>(ORG_B, (md, opts, cb) =>
    stack.tasks.CreateTask({ index_id: indexB, video_blob_key: upload, filename: 'scenes.mp4' }, md, opts, cb),
  );
  const done = await stack.waitForTask(ORG_B, quick.id, { timeoutMs: 60_000 });
  expect(done).toMatchObject({ status: 'ready', failure: null });

  // A's tasks are still downloading, one at a time: it never held both slots.
  for (const task of slow) expect((await stack.getTask(ORG_A, task.id)).status).toBe('uploading');
  expect(mostOpenAtOnce).toBe(1);
}, 120_000);
