/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Embedded mode meters media minutes as the cluster does: the worker reserves each probed video
 * in the embedded billing-service against the organization's plan, and its spend reaches billing
 * as the task's usage event (on the in-process bus); a video longer than the minutes left fails its
 * task with the rate-limit reason. The gateway admits and reports (X-RateLimit-Duration-*) on the
 * counters billing-service debits.
 */
import { createLogger } from '@vus/core';
import { runFfmpeg } from '@vus/media';
import { generateVideo, textScenesVideo, waitFor } from '@vus/testing';
import { mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedded } from '../src/main';

// One PGlite per service, then two videos through the worker.
jest.setTimeout(180_000);

const ADMIN_TOKEN = 'metering-test-admin-token';
/** billing-service's default price: $0.042 per minute of video. */
const MICROS_PER_VIDEO_SECOND = 700;

type Json = Record<string, unknown>;

let dataDir: string;
let running: Awaited<ReturnType<typeof startEmbedded>>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'vus-embedded-metering-'));
  running = await startEmbedded(
    { DATA_DIR: dataDir, PORT: '0', VUS_ADMIN_TOKEN: ADMIN_TOKEN, VUS_BOOTSTRAP_API_KEY: '', MODELS_DIR: join(dataDir, 'no-models') },
    createLogger({ service: 'embedded-test', level: 'silent' }),
  );
});

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const json = init.body !== undefined && !(init.body instanceof FormData);
  const response = await fetch(`${running.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...init.headers, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(init.body) : (init.body as FormData | undefined),
  });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Json, headers: response.headers };
}

const admin = (path: string, method = 'GET', body?: unknown) =>
  call(`/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body });

/** The organization's month spend in micro-dollars, as billing-service has it. */
async function monthSpendMicros(orgId: string): Promise<number> {
  const { status, body } = await admin(`/organizations/${orgId}/billing`);
  expect(status).toBe(200);
  return Math.round((body.month_spend_usd as number) * 1_000_000);
}

/** The task once settled, and the minutes the gateway said were left when it admitted the upload. */
async function indexVideo(
  apiKey: string,
  indexId: string,
  path: string,
  filename: string,
): Promise<{ task: Json; minutesLeft: string | null }> {
  const headers = { 'x-api-key': apiKey };
  const form = new FormData();
  form.append('index_id', indexId);
  form.append('video_file', await openAsBlob(path), filename);
  const created = await call('/v1.3/tasks', { method: 'POST', headers, body: form });
  expect(created.status).toBe(200);
  for (;;) {
    const { body } = await call(`/v1.3/tasks/${created.body._id as string}`, { headers });
    if (body.status === 'ready' || body.status === 'failed')
      return { task: body, minutesLeft: created.headers.get('x-ratelimit-duration-remaining') };
    await new Promise((r) => setTimeout(r, 200));
  }
}

it('reserves each video against the plan, records its spend in billing, and fails a video longer than the minutes left', async () => {
  // An organization whose plan allows one minute of indexing per hour.
  const org = await admin('/organizations', 'POST', { name: 'one-minute' });
  const orgId = org.body._id as string;
  const key = (await admin(`/organizations/${orgId}/keys`, 'POST', {})).body.key as string;
  const plan = await admin(`/organizations/${orgId}/billing/enterprise`, 'PUT', {
    limits: [{ category: 'index', dimension: 'DPH', limit: 1 }],
  });
  expect(plan.status).toBe(200);
  const index = await call('/v1.3/indexes', {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: { index_name: 'metered', models: [{ model_name: 'marengo3.0', model_options: ['visual'] }] },
  });
  expect(index.status).toBe(201);
  const indexId = index.body._id as string;

  // 12 s: indexed, its seconds debited and charged.
  const { task: first, minutesLeft: beforeFirst } = await indexVideo(key, indexId, (await textScenesVideo()).path, 'scenes.mp4');
  expect(first.status).toBe('ready');
  expect(beforeFirst).toBe('1');
  const seconds = Math.ceil((first.system_metadata as { duration: number }).duration);
  // The spend arrives with the usage event, asynchronously.
  await waitFor(async () => (await monthSpendMicros(orgId)) > 0, 'the first video’s spend');
  expect(await monthSpendMicros(orgId)).toBe(seconds * MICROS_PER_VIDEO_SECOND);

  // 50 s would fit an untouched hour, not the 48 s left: the task fails and nothing more is charged.
  const long = await generateVideo('metering-50s', {
    width: 640,
    height: 360,
    fps: 5,
    audio: 'tone',
    container: 'mp4',
    scenes: [{ durationSec: 50, background: '0x37474f' }],
  });
  const { task: second, minutesLeft: beforeSecond } = await indexVideo(key, indexId, long.path, 'long.mp4');
  // The gateway counts in the worker's budgets: 48 s left is no whole minute, and still admitted.
  expect(beforeSecond).toBe('0');
  expect(second).toMatchObject({ status: 'failed', error: { code: 'too_many_requests', message: expect.stringMatching(/DPH:1\/hour/) } });
  expect(await monthSpendMicros(orgId)).toBe(seconds * MICROS_PER_VIDEO_SECOND);
});

it('meters an audio embedding: embed-service’s usage event reaches billing-service on the in-process bus', async () => {
  const org = await admin('/organizations', 'POST', { name: 'embedder' });
  const orgId = org.body._id as string;
  const key = (await admin(`/organizations/${orgId}/keys`, 'POST', {})).body.key as string;
  const tone = join(dataDir, 'tone.wav');
  await runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=6', tone]);
  const embedded = await call('/v1.3/embed-v2', {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: {
      input_type: 'audio',
      model_name: 'marengo3.0',
      audio: { media_source: { base64_string: readFileSync(tone).toString('base64') } },
    },
  });
  expect(embedded.status).toBe(200);
  // 6 s of audio at the embedded-seconds price (billing-service's default, as a video second's).
  await waitFor(async () => (await monthSpendMicros(orgId)) > 0, 'the embedding’s spend');
  expect(await monthSpendMicros(orgId)).toBe(6 * MICROS_PER_VIDEO_SECOND);
});
