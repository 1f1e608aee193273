/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 *
 * Usage over the event bus (issue 20, item 3), through real requests: billing-service goes down,
 * audio embeddings are still served (their usage waits in embed-service's outbox and on the bus),
 * billing-service comes back and meters each of them exactly once: one ledger entry per request
 * and per second of audio, and the organization's Embed - Audio minutes debited once.
 */
import { startBillingService, type RunningBillingService } from '@vus/billing-service';
import { createLogger } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { startEmbedService, type RunningEmbedService } from '@vus/embed-service';
import { InProcessEventBus } from '@vus/events';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { memoryLimiters } from '@vus/limits';
import { runFfmpeg } from '@vus/media';
import { cocoDetectorProvider, ModelRegistry, paddleOcrProvider } from '@vus/models';
import { waitFor } from '@vus/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startGateway, type RunningGateway } from '../src/main';

const ADMIN_TOKEN = 'usage-outage-admin-token-0123';
const logger = createLogger({ service: 'usage-outage-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

let dir: string;
let billingDb: ThrowawayDatabase;
let bus: InProcessEventBus;
let models: ModelRegistry;
let billing: RunningBillingService | undefined;
let indexService: RunningIndexService;
let embedService: RunningEmbedService;
let gateway: RunningGateway;
let toneBase64: string;
const limiters = memoryLimiters();

/** billing-service on its database, the bus and the gateway's counters; `bind` reuses an address. */
const startBilling = (bind: string) =>
  startBillingService({
    bind,
    database: { kind: 'postgres', url: billingDb.url },
    bus,
    logger,
    mail: { kind: 'folder', dir: join(dir, 'mail'), from: 'billing@test' },
    limiters,
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vus-usage-outage-'));
  const tone = join(dir, 'tone.wav');
  await runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=12', tone]);
  toneBase64 = (await readFile(tone)).toString('base64');
  billingDb = await createThrowawayDatabase();
  bus = new InProcessEventBus({ logger, retryDelayMs: 10 });
  models = new ModelRegistry([cocoDetectorProvider(), paddleOcrProvider()]);
  billing = await startBilling('127.0.0.1:0');
  indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, bus, logger });
  embedService = await startEmbedService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, bus, logger, models });
  gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    database: { kind: 'pglite', dataDir: 'memory://' },
    indexServiceAddress: indexService.address,
    embedServiceAddress: embedService.address,
    billingServiceAddress: billing.address,
    limiters,
    limitsCacheMs: 100,
    adminToken: ADMIN_TOKEN,
    logger,
  });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await embedService?.stop();
  await indexService?.stop();
  await billing?.stop();
  await bus?.close();
  await models?.dispose();
  await billingDb?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const admin = (method: 'get' | 'post' | 'put', path: string) =>
  request(gateway.url)[method](`/admin${path}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

const embedAudio = (key: string) =>
  request(gateway.url)
    .post('/v1.3/embed-v2')
    .set('x-api-key', key)
    .send({ input_type: 'audio', model_name: 'marengo3.0', audio: { media_source: { base64_string: toneBase64 } } });

/** The organization's ledger as billing-service keeps it. */
async function ledger(orgId: string): Promise<{ unit_kind: string; quantity: string; amount_micros: string }[]> {
  const { rows } = await billingDb.db.query<{ unit_kind: string; quantity: string; amount_micros: string }>(
    'SELECT unit_kind, quantity::text, amount_micros::text FROM spend_entries WHERE org_id = $1 ORDER BY unit_kind, recorded_at',
    [orgId],
  );
  return rows;
}

it('serves requests while billing-service is down, then meters each of them exactly once', async () => {
  const orgId = (await admin('post', '/organizations').send({ name: 'outage' }).expect(201)).body._id as string;
  const key = (await admin('post', `/organizations/${orgId}/keys`).send({}).expect(201)).body.key as string;
  // One minute of audio an hour: three 12 s embeddings debited once leave 24 s; debited twice, none.
  await admin('put', `/organizations/${orgId}/billing/enterprise`)
    .send({ limits: [{ category: 'embed_audio', dimension: 'DPH', limit: 1 }] })
    .expect(200);
  expect((await embedAudio(key)).status).toBe(200); // the gateway knows the plan now

  const address = billing!.address;
  await billing!.stop();
  billing = undefined;
  for (let i = 0; i < 2; i++) expect((await embedAudio(key)).status).toBe(200);

  billing = await startBilling(address);
  await waitFor(async () => (await ledger(orgId)).length === 6, 'three requests and their seconds in the ledger');
  await bus.drain();
  const entries = await ledger(orgId);
  expect(entries.map((e) => e.unit_kind)).toEqual(['embed_second', 'embed_second', 'embed_second', 'request', 'request', 'request']);
  const seconds = entries.filter((e) => e.unit_kind === 'embed_second').map((e) => Number(e.quantity));
  expect(seconds.every((s) => s >= 12 && s <= 13)).toBe(true);

  // Debited once: 36 s of the hour's 60 are gone, so a fourth request is admitted (24 s left: 0 whole minutes).
  const fourth = await embedAudio(key);
  expect(fourth.status).toBe(200);
  expect(fourth.headers['x-ratelimit-duration-remaining']).toBe('0');
  await waitFor(async () => (await ledger(orgId)).length === 8, 'the fourth request in the ledger');
  // 48 s now: the fifth is admitted; once it is debited (60 s) the hour is spent.
  expect((await embedAudio(key)).status).toBe(200);
  await waitFor(async () => (await ledger(orgId)).length === 10, 'the fifth request in the ledger');
  expect((await embedAudio(key)).status).toBe(429);
  const spend = (await admin('get', `/organizations/${orgId}/billing`).expect(200)).body.month_spend_usd as number;
  expect(spend).toBeCloseTo(seconds[0]! * 5 * 700e-6, 6);
}, 120_000);
