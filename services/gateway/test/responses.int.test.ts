/**
 * POST /responses through the gateway against stand-in services (task-service's item resolution,
 * analyze-service's Respond, index-service's videos and thumbnails) on loopback gRPC: what the
 * gateway asks (scope, selections spelled out), the JSON answer, the SSE stream as the SDK's own
 * stream client reads it, refusals before anything is written, failures after, and disconnects.
 */
import { ApiError, createLogger } from '@vus/core';
import { implement, implementServerStream, loadProto, startGrpcServer, toTimestamp, type RunningGrpcServer } from '@vus/grpc';
import type { AnalyzeServiceHandlers } from '@vus/grpc/types/analyze/v1/AnalyzeService';
import type { RespondEvent__Input } from '@vus/grpc/types/analyze/v1/RespondEvent';
import type { RespondRequest } from '@vus/grpc/types/analyze/v1/RespondRequest';
import type { IndexServiceHandlers } from '@vus/grpc/types/index/v1/IndexService';
import type { TaskServiceHandlers } from '@vus/grpc/types/task/v1/TaskService';
import type { ResolvedKnowledgeStoreItem__Input } from '@vus/grpc/types/task/v1/ResolvedKnowledgeStoreItem';
import { TwelveLabs } from 'twelvelabs-js';
import { startGateway, type RunningGateway } from '../src/main';

const logger = createLogger({ service: 'test', level: 'silent' });

const STORE = '6528dde58f9cd95a98cbd075';
const EMPTY_STORE = '6528dde58f9cd95a98cbd079';
const VIDEO_ITEM = '6528dde58f9cd95a98cbd076';
const IMAGE_ITEM = '6528dde58f9cd95a98cbd077';
const QUEUED_ITEM = '6528dde58f9cd95a98cbd078';
const COLLECTION = '6528dde58f9cd95a98cbd07a';
const INDEX = '6528dde58f9cd95a98cbd07b';
const SESSION = 'sess_0199aa2e-5b3b-7a01-9018-cc51681121ea';

const ITEMS: ResolvedKnowledgeStoreItem__Input[] = [
  { item_id: VIDEO_ITEM, asset_type: 'video', status: 'ready', video_id: 'video-garden', title: 'garden.mp4', duration: 30 },
  { item_id: IMAGE_ITEM, asset_type: 'image', status: 'ready', video_id: 'video-photo', title: 'photo.png', duration: 2 },
  { item_id: QUEUED_ITEM, asset_type: 'video', status: 'queued', video_id: '', title: 'later.mp4', duration: 0 },
];

const TEXT = 'Roses bud at 4 s [1]. 🌹 A photo [2].';
const at = (marker: string) => ({ start_index: TEXT.indexOf(marker), end_index: TEXT.indexOf(marker) + marker.length });
const started = {
  started: {
    response_id: 'resp_0199aa2e-5b3c-7d4e-8f90-123456789abc',
    session_id: SESSION,
    created_at: toTimestamp(new Date('2026-11-28T11:00:00.250Z')),
    message_id: `msg_${SESSION}_0`,
  },
};
const completed: RespondEvent__Input = {
  completed: {
    text: TEXT,
    citations: [
      { ...at('[1]'), item_id: VIDEO_ITEM, video_id: 'video-garden', start_sec: 4, end_sec: 9, title: 'garden.mp4' },
      { ...at('[2]'), item_id: IMAGE_ITEM, video_id: 'video-photo', start_sec: 0, end_sec: 2, title: 'photo.png' },
    ],
    input_tokens: 120,
    output_tokens: 14,
    status: 'completed',
  },
};
const step = { intermediate: { kind: 'retrieval', summary: 'Searched 2 item(s)', detail_json: '{"query":"roses","moments":[]}' } };

/** What Respond does next: the events it yields, a failure, or waiting until the caller goes away. */
type Script = (request: RespondRequest, signal: AbortSignal) => AsyncIterable<RespondEvent__Input>;
const answers: Script = async function* (request) {
  yield started;
  if (request.include_intermediate) yield step;
  yield { text_delta: { delta: TEXT.slice(0, 10) } };
  yield { text_delta: { delta: TEXT.slice(10) } };
  yield completed;
};

let script: Script = answers;
const asked: RespondRequest[] = [];
/** The ids of each ListVideos the gateway made (the cited videos' streams). */
const videoLists: string[][] = [];
let cancelled = 0;
let services: RunningGrpcServer;
let gateway: RunningGateway;
let key: string;
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

beforeAll(async () => {
  const proto = loadProto().proto.vus;
  services = await startGrpcServer({
    bind: '127.0.0.1:0',
    logger,
    services: [
      {
        name: 'vus.task.v1.TaskService',
        definition: proto.task.v1.TaskService.service,
        implementation: implement<TaskServiceHandlers>(
          {
            ResolveKnowledgeStoreItems: async (request) => {
              if (request.knowledge_store_id === EMPTY_STORE) return { index_id: '', items: [] };
              if (request.knowledge_store_id !== STORE)
                throw new ApiError('resource_not_exist', 'Knowledge store with id … does not exist.');
              if (request.collection_ids.length > 0) return { index_id: INDEX, items: ITEMS.filter((i) => i.item_id !== VIDEO_ITEM) };
              return { index_id: INDEX, items: ITEMS };
            },
            GetKnowledgeStoreItemCollection: async () => ({
              id: COLLECTION,
              knowledge_store_id: STORE,
              name: 'Photos and later',
              member_count: 2,
            }),
          },
          logger,
        ),
      },
      {
        name: 'vus.analyze.v1.AnalyzeService',
        definition: proto.analyze.v1.AnalyzeService.service,
        implementation: {
          ...implement<AnalyzeServiceHandlers>({}, logger),
          Respond: implementServerStream<RespondRequest, RespondEvent__Input>(async function* (request, _ctx, signal) {
            asked.push(request);
            signal.addEventListener('abort', () => cancelled++);
            yield* script(request, signal);
          }, logger),
        },
      },
      {
        name: 'vus.index.v1.IndexService',
        definition: proto.index.v1.IndexService.service,
        implementation: implement<IndexServiceHandlers>(
          {
            ListVideos: async (request) => {
              const ids = request.filter?.ids ?? [];
              videoLists.push(ids);
              const data = ids.map((id) => ({
                id,
                index_id: request.index_id,
                system_metadata: { duration: 30, filename: 'x.mp4' },
                hls: id === 'video-garden' ? { video_url: `videos/${id}/hls/index.m3u8`, status: 'COMPLETE' } : null,
              }));
              return {
                data,
                page_info: { page: 1, limit_per_page: request.page?.page_limit ?? 10, total_page: 1, total_results: ids.length },
              };
            },
            GetVideoThumbnail: async (request) => {
              if (request.video_id !== 'video-garden') throw new ApiError('resource_not_exist', 'no thumbnail');
              return { time: Math.floor(request.time ?? 0), content_type: 'image/jpeg' };
            },
          },
          logger,
        ),
      },
    ],
  });
  gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    database: { kind: 'pglite', dataDir: 'memory://' },
    indexServiceAddress: services.address,
    taskServiceAddress: services.address,
    analyzeServiceAddress: services.address,
    logger,
  });
  const org = await gateway.keys.createOrganization('asker');
  key = (await gateway.keys.createKey(org.id, 'test')).secret;
  process.env.TWELVELABS_BASE_URL = `${gateway.url}/v1.3`;
}, 60_000);

afterAll(async () => {
  process.env.TWELVELABS_BASE_URL = savedBaseUrl;
  await gateway?.stop();
  await services?.stop(1000);
});

beforeEach(() => {
  script = answers;
  asked.length = 0;
  videoLists.length = 0;
});

const post = (body: unknown, version = 'v1.3') =>
  fetch(`${gateway.url}/${version}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
const ask = (extra: Record<string, unknown> = {}) => ({ knowledge_store_id: STORE, input: 'When do the roses bud?', ...extra });

/** The frames of an SSE body: each `event:` and its `data:`, and the last line. */
function frames(body: string): { event?: string; data: string }[] {
  return body
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      return { ...(event ? { event } : {}), data: lines.find((l) => l.startsWith('data: '))!.slice(6) };
    });
}

describe('POST /responses (stream: false)', () => {
  it('asks analyze-service over the ready items and answers with the response object', async () => {
    const res = await post(ask());
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(asked[0]).toMatchObject({
      knowledge_store_id: STORE,
      index_id: INDEX,
      items: [
        { item_id: VIDEO_ITEM, asset_type: 'video', video_id: 'video-garden', title: 'garden.mp4', duration: 30 },
        { item_id: IMAGE_ITEM, asset_type: 'image', video_id: 'video-photo', title: 'photo.png', duration: 2 },
      ],
      input: [{ role: 'user', content: 'When do the roses bud?' }],
      session_id: '',
      include_intermediate: false,
      selections: [],
    });
    expect(body).toMatchObject({
      id: started.started.response_id,
      type: 'response',
      object: 'response',
      status: 'completed',
      incomplete_details: null,
      session_id: SESSION,
      knowledge_store_id: STORE,
      usage: { input_tokens: 120, output_tokens: 14 },
      created_at: '2026-11-28T11:00:00Z',
    });
    const [message] = body.output as { content: { text: string; annotations: Record<string, unknown>[] }[] }[];
    expect(message).toMatchObject({
      type: 'message',
      id: `msg_${SESSION}_0`,
      status: 'completed',
      role: 'assistant',
      phase: 'final_answer',
    });
    const [part] = message!.content;
    expect(part!.text).toBe(TEXT);
    const [video, image] = part!.annotations;
    // Code points, the end inclusive: the emoji before [2] is one.
    const points = [...TEXT];
    expect(points.slice(video!.start_index as number, (video!.end_index as number) + 1).join('')).toBe('[1]');
    expect(points.slice(image!.start_index as number, (image!.end_index as number) + 1).join('')).toBe('[2]');
    expect(video).toMatchObject({ type: 'video_citation', item_id: VIDEO_ITEM, start_sec: 4, end_sec: 9, title: 'garden.mp4' });
    expect(video!.thumbnail_url).toMatch(new RegExp(`^${gateway.url}/thumbnails/${INDEX}/video-garden\\?.*t=4&`));
    expect(video!.hls_url).toMatch(new RegExp(`^${gateway.url}/hls/[^/]+/index\\.m3u8$`));
    // Both cited videos were looked up in one call.
    expect(videoLists).toEqual([['video-garden', 'video-photo']]);
    // An image item: no moment, no stream; its thumbnail is null when the index has none.
    expect(image).toEqual({ type: 'image_citation', ...image, thumbnail_url: null, hls_url: null });
    expect(image).not.toHaveProperty('start_sec');
  });

  it('includes the steps when asked, as function calls before the message', async () => {
    const body = (await (await post(ask({ include: ['intermediate_outputs'] }))).json()) as { output: Record<string, unknown>[] };
    expect(asked[0]!.include_intermediate).toBe(true);
    expect(body.output.map((o) => o.type)).toEqual(['function_call', 'function_call_output', 'message']);
    expect(body.output[0]).toMatchObject({ name: 'retrieval', arguments: '{"query":"roses"}' });
  });

  it('shows no step that was not asked for, streamed or not', async () => {
    script = async function* () {
      yield started;
      yield step;
      yield completed;
    };
    const body = (await (await post(ask())).json()) as { output: { type: string }[] };
    expect(body.output.map((o) => o.type)).toEqual(['message']);
    const streamed = await (await post(ask({ stream: true }))).text();
    expect(streamed).not.toContain('function_call');
  });

  it('spells selections out for analyze-service: an item by its title, a collection by its name and members', async () => {
    const res = await post(
      ask({
        input: [{ type: 'message', role: 'user', content: 'Compare {{sel:0}} with {{sel:1}}.' }],
        selections: [
          { kind: 'item', id: VIDEO_ITEM },
          { kind: 'collection', id: COLLECTION },
        ],
        session_id: SESSION,
        instructions: 'Be brief.',
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { a: { type: 'string' } } } } },
        max_output_tokens: 64,
        temperature: 0.5,
      }),
    );
    expect(res.status).toBe(200);
    expect(asked[0]).toMatchObject({
      session_id: SESSION,
      instructions: 'Be brief.',
      text_format: { type: 'json_schema', json_schema: '{"type":"object","properties":{"a":{"type":"string"}}}' },
      max_output_tokens: 64,
      temperature: 0.5,
      selections: [
        { kind: 'item', id: VIDEO_ITEM, label: 'garden.mp4', item_ids: [VIDEO_ITEM] },
        { kind: 'collection', id: COLLECTION, label: 'Photos and later', item_ids: [IMAGE_ITEM, QUEUED_ITEM] },
      ],
    });
  });

  it.each([
    ['a {{sel:N}} naming no selection', ask({ input: 'Describe {{sel:0}}' }), 400, 'parameter_invalid'],
    ['an unknown store', ask({ knowledge_store_id: '6528dde58f9cd95a98cbd0ff' }), 404, 'resource_not_exist'],
    ['a store with no items', ask({ knowledge_store_id: EMPTY_STORE }), 400, 'parameter_invalid'],
    [
      'a selected item not of the store',
      ask({ selections: [{ kind: 'item', id: '6528dde58f9cd95a98cbd0ee' }] }),
      404,
      'resource_not_exist',
    ],
    ['a selected item not ready', ask({ selections: [{ kind: 'item', id: QUEUED_ITEM }] }), 400, 'parameter_invalid'],
  ])('refuses %s without asking analyze-service', async (_case, body, status, code) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ code });
    expect(asked).toHaveLength(0);
  });

  it('passes analyze-service’s refusal on as the usual JSON error (an unknown session)', async () => {
    script = async function* () {
      yield* [];
      throw new ApiError('resource_not_exist', `Session with id ${SESSION} does not exist.`);
    };
    const res = await post(ask({ session_id: SESSION, stream: true }));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual({ code: 'resource_not_exist', message: `Session with id ${SESSION} does not exist.` });
  });

  it('is an error when the answer fails after it started', async () => {
    script = async function* () {
      yield started;
      throw new ApiError('service_unavailable', 'Search is unavailable.');
    };
    const res = await post(ask());
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'service_unavailable' });
  });

  it('is v1.3 only', async () => {
    const res = await post(ask(), 'v1.2');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'api_upgrade_required' });
  });
});

describe('POST /responses (stream: true)', () => {
  it('writes the events as Server-Sent Events, then data: [DONE]', async () => {
    const res = await post(ask({ stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await res.text();
    expect(body.endsWith('\n\ndata: [DONE]\n\n')).toBe(true);
    const sent = frames(body);
    const events = sent.slice(0, -1).map((f) => ({ event: f.event, ...(JSON.parse(f.data) as { type: string; sequence_number: number }) }));
    expect(sent[sent.length - 1]).toEqual({ data: '[DONE]' });
    expect(events.every((e) => e.event === e.type)).toBe(true);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('is read by the SDK’s own stream client, event by event', async () => {
    const client = new TwelveLabs({ apiKey: key });
    const stream = await client.responses.createStream({
      knowledgeStoreId: STORE,
      input: [{ type: 'message', role: 'user', content: 'When do the roses bud?' }],
      include: ['intermediate_outputs'],
    });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.join('')).toBe(TEXT);
    const last = events[events.length - 1]!;
    expect(last.type === 'response.completed' && last.response).toMatchObject({
      id: started.started.response_id,
      sessionId: SESSION,
      status: 'completed',
      usage: { inputTokens: 120, outputTokens: 14 },
      createdAt: new Date('2026-11-28T11:00:00Z'),
    });
  });

  it('ends a failure after the start with response.failed, then [DONE]', async () => {
    script = async function* () {
      yield started;
      yield { text_delta: { delta: 'Roses ' } };
      throw new Error('a database went away: postgres://internal-host:5432');
    };
    const body = await (await post(ask({ stream: true }))).text();
    expect(body).not.toContain('internal-host');
    const sent = frames(body);
    expect(sent[sent.length - 1]).toEqual({ data: '[DONE]' });
    const failed = JSON.parse(sent[sent.length - 2]!.data) as Record<string, unknown>;
    expect(failed).toMatchObject({
      type: 'response.failed',
      response: {
        status: 'failed',
        error: { code: 'internal_error', message: 'The response failed.' },
        output: [{ type: 'message', status: 'incomplete', content: [{ text: 'Roses ' }] }],
      },
    });
  });

  it('cancels the answer when the client goes away', async () => {
    const before = cancelled;
    let opened!: () => void;
    const started$ = new Promise<void>((resolve) => (opened = resolve));
    script = async function* (_request, signal) {
      yield started;
      opened();
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve());
        setTimeout(resolve, 30_000).unref();
      });
    };
    const abort = new AbortController();
    const res = await fetch(`${gateway.url}/v1.3/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(ask({ stream: true })),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    await started$;
    abort.abort();
    for (let waited = 0; cancelled === before && waited < 10_000; waited += 25) await new Promise((r) => setTimeout(r, 25));
    expect(cancelled).toBe(before + 1);
  });
});
