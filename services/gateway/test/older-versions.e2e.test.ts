/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * v1, v1.1 and its revisions over raw HTTP, as scripts written against their docs (and the
 * pre-0.1 python SDK) call them: create an index with that version's engine fields, upload,
 * wait, search with the JSON query, page, and read the exact keys each answer carries. The
 * video shows ORANGE 0–4 s, PLANET 4–8 s, GARDEN 6–8 s, BICYCLE 8–12 s on screen.
 */
import { wordsAndSubtitlesVideo, type GeneratedVideo } from '@vus/testing';
import request from 'supertest';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let words: GeneratedVideo;
let key: string;
// Every exchange goes through it: the answers are checked against the versions' OpenAPI documents at the end.
let recorder: RecordingProxy;
const api = () => request(recorder.url);
const keysOf = (value: unknown) => Object.keys(value as object).sort();

/** Polls the task until it is ready or failed (as every SDK's waitForDone does). */
async function waitForTask(path: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i++) {
    const res = await api().get(path).set('x-api-key', key);
    expect(res.status).toBe(200);
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`task ${path} did not finish`);
}

beforeAll(async () => {
  [stack, words] = await Promise.all([startIndexingStack({ worker: true }), wordsAndSubtitlesVideo()]);
  ({ key } = await stack.newOrg());
  recorder = await startRecordingProxy(stack.url);
}, 240_000);
afterAll(async () => {
  await recorder?.stop();
  await stack?.stop();
});

describe('v1.1 (python before 0.1)', () => {
  let indexId = '';
  let videoId = '';

  it('creates an index with engine_id and index_options, and shows it in those names', async () => {
    const created = await api()
      .post('/v1.1/indexes')
      .set('x-api-key', key)
      .send({
        index_name: 'v1.1 words',
        engine_id: 'marengo2.5',
        index_options: ['visual', 'conversation', 'text_in_video', 'logo'],
        addons: ['thumbnail'],
      });
    expect([created.status, keysOf(created.body)]).toEqual([201, ['_id']]);
    indexId = created.body._id as string;
    const index = await api().get(`/v1.1/indexes/${indexId}`).set('x-api-key', key);
    expect(keysOf(index.body)).toEqual([
      '_id',
      'addons',
      'created_at',
      'engine_id',
      'expires_at',
      'index_name',
      'index_options',
      'total_duration',
      'updated_at',
      'video_count',
    ]);
    expect(index.body).toMatchObject({ engine_id: 'marengo2.5', index_options: ['visual', 'conversation', 'text_in_video', 'logo'] });
    const list = await api().get('/v1.1/indexes?index_options=logo').set('x-api-key', key);
    expect(list.body.data.map((i: { _id: string }) => i._id)).toEqual([indexId]);
    expect(keysOf(list.body.page_info)).toEqual(['limit_per_page', 'page', 'total_page', 'total_results']);
    expect(list.headers.deprecation).toBe('true');
    expect(list.headers.link).toBe('</docs?version=v1.2>; rel="successor-version"');
  });

  it('refuses v1.2 engines and v1.3 models with v1.1 errors', async () => {
    for (const body of [
      { index_name: 'x', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual'] }] },
      { index_name: 'x', models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] },
    ]) {
      const res = await api().post('/v1.1/indexes').set('x-api-key', key).send(body);
      expect([res.status, res.body.code, res.body.message]).toEqual([400, 'parameter_not_provided', expect.stringContaining('engine_id')]);
    }
  });

  it('lists engines with allowed_index_options', async () => {
    const res = await api().get('/v1.1/engines/marengo2.5').set('x-api-key', key);
    expect(keysOf(res.body)).toEqual(['_id', 'allowed_index_options', 'author', 'created_at', 'finetune', 'ready', 'updated_at']);
  });

  it('uploads through POST /tasks and indexes', async () => {
    const created = await api().post('/v1.1/tasks').set('x-api-key', key).field('index_id', indexId).attach('video_file', words.path);
    expect([created.status, keysOf(created.body)]).toEqual([201, ['_id']]);
    const task = await waitForTask(`/v1.1/tasks/${created.body._id as string}`);
    expect(task.status).toBe('ready');
    videoId = task.video_id as string;
    const status = await api().get(`/v1.1/tasks/status?index_id=${indexId}`).set('x-api-key', key);
    expect(status.body).toMatchObject({ index_id: indexId, ready: 1, total_result: 1 });
  }, 180_000);

  it('searches with a JSON query: module_confidence on each clip, page_expired_at, pages by token', async () => {
    const first = await api()
      .post('/v1.1/search')
      .set('x-api-key', key)
      .send({ index_id: indexId, query: 'orange bicycle', search_options: ['text_in_video'], page_limit: 1 });
    expect(first.status).toBe(200);
    expect(keysOf(first.body)).toEqual(['data', 'page_info', 'search_pool']);
    expect(keysOf(first.body.page_info)).toEqual(['limit_per_page', 'next_page_token', 'page_expired_at', 'total_results']);
    expect(keysOf(first.body.data[0])).toEqual([
      'confidence',
      'end',
      'metadata',
      'module_confidence',
      'score',
      'start',
      'thumbnail_url',
      'video_id',
    ]);
    expect(first.body.data[0].module_confidence).toEqual({ text_in_video: expect.stringMatching(/^(high|medium|low)$/) });
    const next = await api()
      .get(`/v1.1/search/${first.body.page_info.next_page_token as string}`)
      .set('x-api-key', key);
    expect(next.status).toBe(200);
    expect(next.body.data.length).toBeGreaterThanOrEqual(1);
    expect(next.body.page_info.prev_page_token).toBeTruthy();
  });

  it('answers a multipart-era body (query_text) with its missing query', async () => {
    const res = await api()
      .post('/v1.1/search')
      .set('x-api-key', key)
      .send({ index_id: indexId, query_text: 'planet', search_options: ['visual'] });
    expect([res.status, res.body.code, res.body.message]).toEqual([400, 'parameter_not_provided', expect.stringContaining('query')]);
    expect(res.body.message).not.toContain('query_text');
  });

  it('combines queries at /beta/search and /combined-search, and pages them at /beta/search/{token}', async () => {
    const query = { $and: [{ text: 'planet' }, { text: 'garden' }] };
    for (const path of ['/v1.1/beta/search', '/v1.1.1/combined-search']) {
      const res = await api()
        .post(path)
        .set('x-api-key', key)
        .send({ index_id: indexId, search_options: ['text_in_video'], query });
      expect(res.status).toBe(200);
      expect(res.body.data[0]).toMatchObject({ video_id: videoId });
    }
    const paged = await api()
      .post('/v1.1/beta/search')
      .set('x-api-key', key)
      .send({
        index_id: indexId,
        query: { $or: [{ text: 'orange' }, { text: 'bicycle' }] },
        search_options: ['text_in_video'],
        page_limit: 1,
      });
    const token = paged.body.page_info.next_page_token as string;
    expect(token).toBeTruthy();
    expect((await api().get(`/v1.1/beta/search/${token}`).set('x-api-key', key)).status).toBe(200);
  });

  it('reads the video and its artifacts in v1.1 shapes', async () => {
    const video = await api().get(`/v1.1/indexes/${indexId}/videos/${videoId}`).set('x-api-key', key);
    expect(keysOf(video.body)).toEqual(expect.arrayContaining(['_id', 'created_at', 'metadata']));
    expect(video.body).not.toHaveProperty('index_id');
    expect(video.body).not.toHaveProperty('system_metadata');
    const text = await api().get(`/v1.1/indexes/${indexId}/videos/${videoId}/text-in-video`).set('x-api-key', key);
    expect(text.body.data.map((d: { value: string }) => d.value)).toEqual(expect.arrayContaining(['ORANGE']));
  });

  it.each([
    ['post', '/v1.1/gist', 'api_upgrade_required'],
    ['post', '/v1.1/search-v2', 'api_upgrade_required'],
    ['post', '/v1.1/tasks/external-provider', 'api_upgrade_required'],
    ['post', '/v1.1/analyze', 'api_upgrade_required'],
    ['get', '/v1.1/tasks/6528dde58f9cd95a98cbd075/video-id', 'endpoint_not_found'],
  ] as const)('%s %s → %s', async (method, path, code) => {
    const res = await api()[method](path).set('x-api-key', key).send({});
    expect([res.status, res.body.code]).toEqual([code === 'api_upgrade_required' ? 400 : 404, code]);
    if (code === 'api_upgrade_required') expect(res.body.docs_url).toMatch(/^\/docs\?version=v1\.[23]$/);
  });

  it('classify on a gateway without classify-service: 501 in the v1.1 error form', async () => {
    const res = await api()
      .post('/v1.1/classify')
      .set('x-api-key', key)
      .send({ video_id: videoId, labels: [{ name: 'a', prompts: ['b'] }] });
    expect([res.status, keysOf(res.body)]).toEqual([501, ['code', 'message']]);
  });
});

describe('v1 (the 2022 draft)', () => {
  let indexId = '';

  it('creates an index, and types its success bodies', async () => {
    const created = await api()
      .post('/v1/indexes')
      .set('x-api-key', key)
      .send({ index_name: 'v1 words', engine_id: 'marengo2.5', index_options: ['visual', 'text_in_video'] });
    expect([created.status, created.body]).toEqual([201, { _id: expect.any(String), type: 'index_create' }]);
    indexId = created.body._id as string;
    const list = await api().get('/v1/indexes').set('x-api-key', key);
    expect(list.body.type).toBe('index_list');
    expect(list.body.data[0]).toMatchObject({ _id: indexId, engine_id: 'marengo2.5', index_options: ['visual', 'text_in_video'] });
    expect(list.headers.deprecation).toBe('true');
  });

  it('answers errors with error_code', async () => {
    const res = await api()
      .post('/v1/indexes')
      .set('x-api-key', key)
      .send({ index_name: 'x', engine_id: 'marengo2.5', index_options: ['logo'] });
    expect([res.status, keysOf(res.body), res.body.error_code]).toEqual([400, ['error_code', 'message'], 104]);
    const missing = await api()
      .post('/v1/indexes')
      .set('x-api-key', key)
      .send({ index_name: 'x', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual'] }] });
    expect([missing.status, missing.body.error_code]).toEqual([400, 102]);
    const unauthorized = await api().get('/v1/indexes').set('x-api-key', 'nope');
    expect([unauthorized.status, unauthorized.body.error_code]).toEqual([401, 101]);
  });

  it('uploads and follows the task under /indexes/tasks, with its video-id', async () => {
    expect((await api().post('/v1/tasks').set('x-api-key', key).field('index_id', indexId).attach('video_file', words.path)).status).toBe(
      404,
    );
    const created = await api().post('/v1/indexes/tasks').set('x-api-key', key).field('index_id', indexId).attach('video_file', words.path);
    expect([created.status, created.body]).toEqual([201, { _id: expect.any(String), type: 'index_task_create' }]);
    const taskId = created.body._id as string;
    const task = await waitForTask(`/v1/indexes/tasks/${taskId}`);
    expect([task.status, task.type]).toEqual(['ready', 'index_task']);
    const videoId = await api().get(`/v1/indexes/tasks/${taskId}/video-id`).set('x-api-key', key);
    expect(videoId.body).toEqual({ video_id: task.video_id, type: 'index_task_video_id' });
    const tasks = await api().get(`/v1/indexes/tasks?index_id=${indexId}`).set('x-api-key', key);
    expect(tasks.body.data.map((t: { _id: string }) => t._id)).toEqual([taskId]);
  }, 180_000);

  it('searches and pages with next_page_id; clips carry metadata only', async () => {
    const first = await api()
      .post('/v1/search')
      .set('x-api-key', key)
      .send({ index_id: indexId, query: 'orange bicycle', search_options: ['text_in_video'], page_limit: 1 });
    expect(first.status).toBe(200);
    expect(keysOf(first.body)).toEqual(['data', 'page_info', 'search_pool', 'type']);
    expect(keysOf(first.body.page_info)).toEqual(['limit_per_page', 'next_page_id', 'page_expired_at', 'total_result']);
    expect(keysOf(first.body.data[0])).toEqual(['confidence', 'end', 'metadata', 'score', 'start', 'video_id']);
    const next = await api()
      .get(`/v1/search/${first.body.page_info.next_page_id as string}`)
      .set('x-api-key', key);
    expect([next.status, next.body.page_info.prev_page_id]).toEqual([200, expect.any(String)]);
  });

  it.each([
    ['post', '/v1/combined-search'],
    ['post', '/v1/beta/search'],
    ['get', '/v1/indexes/tasks/status?index_id=6528dde58f9cd95a98cbd075'],
    ['post', '/v1/generate'],
  ] as const)('%s %s → api_upgrade_required', async (method, path) => {
    const agent = api();
    const res = await agent[method](path)
      .set('x-api-key', key)
      .send({ index_id: indexId, query: { text: 'x' } });
    expect([res.status, res.body.error_code]).toEqual([400, 'api_upgrade_required']);
  });
});

// Last: every answer above, against its version's document (v1's typed bodies and error_code included).
it("every answer matches its version's OpenAPI document", async () => {
  expect(new Set(recorder.exchanges.map((e) => e.url.split('/')[1]))).toEqual(new Set(['v1', 'v1.1', 'v1.1.1']));
  expect(validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges))).toEqual([]);
});
