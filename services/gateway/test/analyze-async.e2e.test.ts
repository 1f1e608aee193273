/*
 * Asynchronous analysis end to end with the official 1.x SDK, unchanged (v1.3): TwelveLabs.analyzeAsync
 * tasks (general by prompt, segmentation with custom segment definitions) and batches to their
 * results, through the gateway, analyze-service's job queue and the evidence index-service and
 * search-service hold. The video's evidence is written as the indexing worker writes it (the worker's
 * own path is generate.e2e's); every JSON answer is checked against the v1.3 OpenAPI document.
 */
import { createIndexClient, createSearchClient } from '@vus/clients';
import { newId } from '@vus/core';
import { parseAllowList } from '@vus/task-service';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { TwelveLabs } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let client: TwelveLabs;
let other: TwelveLabs;
let key: string;
let recorder: RecordingProxy;
let videoId: string;
let searchOnlyVideoId: string;
let receiver: Server;
/** Webhook bodies the receiver got, parsed. */
const hooks: { type: string; data: Record<string, unknown> }[] = [];
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A video with the evidence the worker would have written: words on screen, two lines said, two shots. */
async function addVideo(orgId: string, indexId: string): Promise<string> {
  const index = createIndexClient(stack.indexService.address);
  const search = createSearchClient(stack.searchService.address);
  const ctx = { orgId, deadline: new Date(Date.now() + 60_000) };
  const id = newId();
  try {
    await index.createVideo(ctx, {
      index_id: indexId,
      video_id: id,
      system_metadata: { filename: 'garden_tour.mp4', duration: 30, fps: 25, width: 1280, height: 720, size: 1000 },
      extractors_run: ['visual', 'conversation', 'text_in_video', 'logo'],
      media_blob_key: '',
    });
    await index.putVideoArtifacts(ctx, {
      index_id: indexId,
      video_id: id,
      artifacts: {
        transcription: [
          { start: 2, end: 5, value: 'These roses bloom in June.' },
          { start: 16, end: 20, value: 'The bicycle is parked by the gate.' },
        ],
        text_in_video: [{ start: 0, end: 4, value: 'GARDEN TOUR' }],
        logo: [],
        thumbnails: [],
      },
    });
    await search.ingestSegments(ctx, {
      index_id: indexId,
      video_id: id,
      segments: [
        { start: 0, end: 15, modality: 'visual', labels: ['potted plant', 'person'] },
        { start: 15, end: 30, modality: 'visual', labels: ['bicycle'] },
      ],
    });
    return id;
  } finally {
    index.close();
    search.close();
  }
}

async function createIndex(name: string, models: { model_name: string; model_options: string[] }[]): Promise<string> {
  const created = await request(stack.url).post('/v1.3/indexes').set('x-api-key', key).send({ index_name: name, models });
  expect(created.status).toBe(201);
  return (created.body as { _id: string })._id;
}

/** The SDK's error status, or undefined when the call succeeds. */
const statusOf = async (call: Promise<unknown>): Promise<number | undefined> => {
  try {
    await call;
    return undefined;
  } catch (error) {
    return (error as { statusCode?: number }).statusCode ?? -1;
  }
};

async function untilEnded(taskId: string) {
  for (;;) {
    const task = await client.analyzeAsync.tasks.retrieve(taskId);
    if (task.status === 'ready' || task.status === 'failed') return task;
    await sleep(100);
  }
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hooks.push(JSON.parse(body) as (typeof hooks)[number]);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  stack = await startIndexingStack({
    analyze: true,
    webhooks: { allowList: parseAllowList('localhost'), dispatcher: { pollMs: 50, retryBaseMs: 20 } },
  });
  recorder = await startRecordingProxy(stack.url);
  process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
  const org = await stack.newOrg();
  key = org.key;
  client = new TwelveLabs({ apiKey: key });
  other = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
  const marengo = { model_name: 'marengo3.0', model_options: ['visual', 'audio'] };
  const generative = await createIndex('generative', [marengo, { model_name: 'pegasus1.2', model_options: ['visual', 'audio'] }]);
  const searchOnly = await createIndex('search only', [marengo]);
  [videoId, searchOnlyVideoId] = await Promise.all([addVideo(org.orgId, generative), addVideo(org.orgId, searchOnly)]);
}, 120_000);
afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await recorder?.stop();
  await stack?.stop();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('analyzeAsync.tasks (twelvelabs-js 1.x)', () => {
  it('runs a general analysis by prompt to its result', async () => {
    const created = await client.analyzeAsync.tasks.create({
      customId: 'bike-question',
      video: { type: 'asset_id', assetId: videoId },
      prompt: 'Where is the bicycle?',
      temperature: 0.2,
      maxTokens: 1000,
    });
    expect(created).toMatchObject({ taskId: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'queued' });
    const task = await untilEnded(created.taskId);
    expect(task).toMatchObject({
      taskId: created.taskId,
      customId: 'bike-question',
      status: 'ready',
      videoSource: { type: 'asset_id', assetId: videoId, systemMetadata: { duration: 30 } },
      requestParams: { analysisMode: 'general', prompt: 'Where is the bicycle?', temperature: 0.2, maxTokens: 1000 },
      result: { finishReason: 'stop', usage: { outputTokens: expect.any(Number) } },
    });
    expect(task.result!.data).toContain('bicycle is parked by the gate');
    expect(task.createdAt).toBeInstanceOf(Date);
    expect(task.completedAt).toBeInstanceOf(Date);
    expect(task.error).toBeUndefined();
  });

  it('segments the video with custom segment definitions', async () => {
    const created = await client.analyzeAsync.tasks.create({
      modelName: 'pegasus1.5',
      video: { type: 'asset_id', assetId: videoId },
      analysisMode: 'time_based_metadata',
      responseFormat: {
        type: 'segment_definitions',
        segmentDefinitions: [
          {
            id: 'scene',
            description: 'A distinct scene or setting change in the video',
            fields: [
              { name: 'summary', type: 'string', description: 'What happens in this segment' },
              { name: 'key_objects', type: 'array', description: 'Notable objects visible in this segment', items: { type: 'string' } },
              { name: 'highlight_at', type: 'timestamp', description: 'The most representative moment', format: 'seconds' },
            ],
          },
        ],
        segmentTimeFormat: 'hh:mm:ss',
      },
      minSegmentDuration: 5,
      maxSegmentDuration: 30,
    });
    const task = await untilEnded(created.taskId);
    expect(task.status).toBe('ready');
    expect(task.requestParams).toMatchObject({ analysisMode: 'time_based_metadata', minSegmentDuration: 5, maxSegmentDuration: 30 });
    expect(task.requestParams!.prompt).toBeUndefined();
    const data = JSON.parse(task.result!.data) as { scene: { start_time: string; end_time: string; metadata: Record<string, unknown> }[] };
    expect(data.scene.map((s) => [s.start_time, s.end_time])).toEqual([
      ['00:00:00', '00:00:15'],
      ['00:00:15', '00:00:30'],
    ]);
    expect(data.scene[1]!.metadata.highlight_at).toBe(15);
    expect(JSON.stringify(data.scene[1]!.metadata)).toContain('bicycle');
  });

  it('fails a task on a video without a generative engine, saying why', async () => {
    const created = await client.analyzeAsync.tasks.create({
      video: { type: 'asset_id', assetId: searchOnlyVideoId },
      prompt: 'What happens?',
    });
    const task = await untilEnded(created.taskId);
    expect(task.status).toBe('failed');
    expect(task.error?.message).toMatch(/no generative engine/);
    expect(task.result).toBeUndefined();
  });

  it('lists tasks newest first with filters; a URL filter finds none', async () => {
    const listed = await client.analyzeAsync.tasks.list({ pageLimit: 50 });
    expect(listed.data.length).toBe(3);
    expect(listed.data[0]!.requestParams?.prompt).toBe('What happens?');
    expect(listed.pageInfo).toMatchObject({ page: 1, limitPerPage: 50, totalResults: 3 });
    const segmented = await client.analyzeAsync.tasks.list({ analysisMode: 'time_based_metadata' });
    expect(segmented.data.length).toBe(1);
    const failed = await client.analyzeAsync.tasks.list({ status: 'failed', assetId: searchOnlyVideoId });
    expect(failed.data.map((t) => t.status)).toEqual(['failed']);
    expect((await client.analyzeAsync.tasks.list({ videoUrl: 'https://example.com/video.mp4' })).data).toEqual([]);
  });

  it('refuses what cannot be analyzed with a clear error', async () => {
    const refusals = await Promise.all([
      statusOf(client.analyzeAsync.tasks.create({ video: { type: 'url', url: 'https://example.com/video.mp4' }, prompt: 'Hi' })),
      statusOf(client.analyzeAsync.tasks.create({ video: { type: 'asset_id', assetId: videoId } })),
      statusOf(client.analyzeAsync.tasks.create({ video: { type: 'asset_id', assetId: videoId }, prompt: 'Hi', maxTokens: 100 })),
      statusOf(
        client.analyzeAsync.tasks.create({
          video: { type: 'asset_id', assetId: videoId },
          promptV2: {
            inputText: 'Is there a <@tiger> here?',
            mediaSources: [{ name: 'tiger', mediaType: 'image', url: 'https://example.com/t.jpg' }],
          },
        }),
      ),
    ]);
    expect(refusals).toEqual([400, 400, 400, 501]);
    const body = await request(stack.url)
      .post('/v1.3/analyze/tasks')
      .set('x-api-key', key)
      .send({ video: { type: 'asset_id', asset_id: videoId }, prompt: 'Hi', max_tokens: 100 });
    expect(body.body).toMatchObject({ code: 'parameter_invalid', message: expect.stringContaining('512') });
  });

  it('answers another organization’s and unknown task ids 404; deletes a task', async () => {
    const [mine] = (await client.analyzeAsync.tasks.list({ pageLimit: 1 })).data;
    expect(await statusOf(other.analyzeAsync.tasks.retrieve(mine!.taskId))).toBe(404);
    expect(await statusOf(other.analyzeAsync.tasks.delete(mine!.taskId))).toBe(404);
    expect(await statusOf(client.analyzeAsync.tasks.retrieve(newId()))).toBe(404);
    expect(await statusOf(client.analyzeAsync.tasks.retrieve('not-an-id'))).toBe(404);
    await client.analyzeAsync.tasks.delete(mine!.taskId);
    expect(await statusOf(client.analyzeAsync.tasks.retrieve(mine!.taskId))).toBe(404);
  });
});

describe('analyze.task webhooks', () => {
  it('sends analyze.task.ready and analyze.task.failed to an endpoint registered for them', async () => {
    const url = `http://localhost:${(receiver.address() as AddressInfo).port}/hook`;
    const registered = await request(stack.url)
      .post('/v1.3/webhooks')
      .set('x-api-key', key)
      .send({ url, event_types: ['analyze.task.ready', 'analyze.task.failed'] });
    expect(registered.status).toBe(201);
    const ready = await client.analyzeAsync.tasks.create({
      customId: 'hooked',
      video: { type: 'asset_id', assetId: videoId },
      prompt: 'What is shown?',
    });
    const failed = await client.analyzeAsync.tasks.create({
      video: { type: 'asset_id', assetId: searchOnlyVideoId },
      prompt: 'What is shown?',
    });
    const about = (taskId: string) => hooks.find((h) => h.data.task_id === taskId);
    while (!about(ready.taskId) || !about(failed.taskId)) await sleep(50);
    expect(about(ready.taskId)).toMatchObject({
      type: 'analyze.task.ready',
      data: { task_id: ready.taskId, custom_id: 'hooked', batch_id: null, status: 'ready', error: null },
    });
    expect(about(failed.taskId)).toMatchObject({
      type: 'analyze.task.failed',
      data: { status: 'failed', custom_id: null, error: { message: expect.stringContaining('no generative engine') } },
    });
    await request(stack.url)
      .delete(`/v1.3/webhooks/${(registered.body as { _id: string })._id}`)
      .set('x-api-key', key);
  });
});

describe('analyzeAsync.batches (twelvelabs-js 1.x)', () => {
  it('runs a batch with defaults and per-item overrides to completed, and streams its results', async () => {
    const created = await client.analyzeAsync.batches.create({
      modelName: 'pegasus1.5',
      analysisMode: 'general',
      defaults: { prompt: { inputText: 'What is written on screen?' }, temperature: 0.2, maxTokens: 4096 },
      requests: [
        { video: { type: 'asset_id', assetId: videoId }, customId: 'summary-001' },
        { video: { type: 'asset_id', assetId: searchOnlyVideoId }, customId: 'summary-002' },
        { video: { type: 'asset_id', assetId: videoId }, customId: 'bike-003', prompt: { inputText: 'Where is the bicycle?' } },
      ],
    });
    expect(created).toMatchObject({ status: 'pending', totalItems: 3 });
    expect(created.expiresAt.getTime() - created.createdAt.getTime()).toBe(24 * 3_600_000);
    expect(created.items.map((i) => i.customId)).toEqual(['summary-001', 'summary-002', 'bike-003']);

    let batch = await client.analyzeAsync.batches.retrieve(created.batchId);
    while (batch.status !== 'completed') {
      expect(['pending', 'processing']).toContain(batch.status);
      await sleep(100);
      batch = await client.analyzeAsync.batches.retrieve(created.batchId);
    }
    expect(batch).toMatchObject({
      analysisMode: 'general',
      modelName: 'pegasus1.5',
      readyItems: 2,
      failedItems: 1,
      canceledItems: 0,
      queuedItems: 0,
    });
    expect(batch.completedAt).toBeInstanceOf(Date);

    const results = [];
    for await (const item of await client.analyzeAsync.batches.results(created.batchId)) results.push(item);
    expect(results.map((r) => [r.taskId, r.customId, r.status])).toEqual(
      created.items.map((i, n) => [i.taskId, i.customId, n === 1 ? 'failed' : 'ready']),
    );
    expect(results[0]!.data!.data).toContain('GARDEN TOUR');
    expect(results[1]!.error?.message).toMatch(/no generative engine/);
    expect(results[2]!.data!.data).toContain('bicycle is parked by the gate');
    // Each item is an analysis task of its own.
    const third = await client.analyzeAsync.tasks.retrieve(created.items[2]!.taskId);
    expect(third).toMatchObject({ customId: 'bike-003', status: 'ready', requestParams: { prompt: 'Where is the bicycle?' } });

    const listed = [];
    for await (const b of await client.analyzeAsync.batches.list({ status: ['completed'], analysisMode: ['general'] }))
      listed.push(b.batchId);
    expect(listed).toEqual([created.batchId]);
    expect(await statusOf(client.analyzeAsync.batches.cancel(created.batchId))).toBe(400);
    expect(await statusOf(other.analyzeAsync.batches.retrieve(created.batchId))).toBe(404);
    expect(await statusOf(other.analyzeAsync.batches.delete(created.batchId))).toBe(404);
    await client.analyzeAsync.batches.delete(created.batchId);
    expect(await statusOf(client.analyzeAsync.batches.retrieve(created.batchId))).toBe(404);
    expect(await statusOf(client.analyzeAsync.tasks.retrieve(created.items[0]!.taskId))).toBe(404);
  });

  it('segments every video of a batch', async () => {
    const created = await client.analyzeAsync.batches.create({
      modelName: 'pegasus1.5',
      analysisMode: 'time_based_metadata',
      defaults: {
        responseFormat: {
          type: 'segment_definitions',
          segmentDefinitions: [
            { id: 'moments', description: 'Moments', fields: [{ name: 'segment_title', type: 'string', description: 'A short headline' }] },
          ],
        },
        minSegmentDuration: 2,
      },
      requests: [{ video: { type: 'asset_id', assetId: videoId }, customId: 'ep-001' }],
    });
    for (let batch = await client.analyzeAsync.batches.retrieve(created.batchId); batch.status !== 'completed'; await sleep(100))
      batch = await client.analyzeAsync.batches.retrieve(created.batchId);
    const results = [];
    for await (const item of await client.analyzeAsync.batches.results(created.batchId)) results.push(item);
    expect(results[0]!.status).toBe('ready');
    expect(Object.keys(JSON.parse(results[0]!.data!.data) as object)).toEqual(['moments']);
  });

  it('refuses a batch over 1,000 requests, saying the limit, and unknown batches 404', async () => {
    const huge = await request(stack.url)
      .post('/v1.3/analyze/batches')
      .set('x-api-key', key)
      .send({
        model_name: 'pegasus1.5',
        analysis_mode: 'general',
        defaults: { prompt: { input_text: 'Hi' } },
        requests: Array.from({ length: 1001 }, () => ({ video: { type: 'asset_id', asset_id: videoId } })),
      });
    expect(huge.status).toBe(400);
    expect(huge.body).toMatchObject({ code: 'parameter_invalid', message: expect.stringContaining('at most 1000 requests') });
    expect(await statusOf(client.analyzeAsync.batches.retrieve(newId()))).toBe(404);
    const results = await request(stack.url).get(`/v1.3/analyze/batches/${newId()}/results`).set('x-api-key', key);
    expect(results.status).toBe(404);
    expect(results.body).toMatchObject({ code: 'resource_not_exist' });
  });

  it('is v1.3 only', async () => {
    const old = await request(stack.url).get('/v1.2/analyze/batches').set('x-api-key', key);
    expect(old.status).toBe(400);
    expect(old.body).toMatchObject({ code: 'api_upgrade_required' });
  });

  it('answers as the v1.3 OpenAPI document says', async () => {
    expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
  });
});
