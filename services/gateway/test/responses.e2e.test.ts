/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * POST /responses end to end (issue 33), through twelvelabs-js 1.x's own responses.create and
 * createStream: three videos indexed by the real pipeline as items of one knowledge store (the
 * worker reads their subtitles), a question whose answer is said in one of them answered with a
 * citation of that item and moment — by the bundled provider, and by an OpenAI-compatible server
 * (a loopback stand-in that answers from the numbered moments of its prompt) — the same question
 * streamed and read event by event against the SDK's event types, a follow-up in the session, a
 * selection narrowing the answer to one item, and every answer (JSON and each SSE event) checked
 * against the v1.3 OpenAPI document.
 */
import { generateVideo, type GeneratedVideo } from '@vus/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TwelveLabs, type TwelvelabsApi } from 'twelvelabs-js';
import { startIndexingStack, type IndexingStack, type IndexingStackOptions } from './indexing-stack';
import { readyAsset, sleep } from './sdk-assets';
import { documentsFor, startRecordingProxy, validateExchanges, type RecordingProxy } from './openapi-recorder';

let stack: IndexingStack;
let client: TwelveLabs;
let recorder: RecordingProxy;
let ksId: string;
const items: Record<'garden' | 'station' | 'bakery', string> = { garden: '', station: '', bakery: '' };
const savedBaseUrl = process.env.TWELVELABS_BASE_URL;

/** The sentence that answers the question, said from 4.5 s to 7.5 s of the garden video. */
const ANSWER = { text: 'The gardener prunes the roses every spring.', startSec: 4.5, endSec: 7.5 };
const QUESTION = 'When does the gardener prune the roses?';

/** 8 s, 640x480, a word on screen and two subtitle cues: what the worker reads and search finds. */
const video = (name: string, word: string, first: string, second: string): Promise<GeneratedVideo> =>
  generateVideo(`responses-${name}`, {
    width: 640,
    height: 480,
    fps: 25,
    audio: 'tone',
    container: 'mp4',
    scenes: [
      { durationSec: 4, background: '0x1f3b73', texts: [{ text: word }] },
      { durationSec: 4, background: '0x2e7d32', texts: [{ text: word }] },
    ],
    subtitles: {
      codec: 'mov_text',
      language: 'eng',
      cues: [
        { startSec: 0.5, endSec: 3.5, text: first },
        { startSec: ANSWER.startSec, endSec: ANSWER.endSec, text: second },
      ],
    },
  });

async function readyItem(storeId: string, assetId: string): Promise<string> {
  const item = await client.knowledgeStoreItems.create(storeId, { assetId, assetType: 'video' });
  for (;;) {
    const now = await client.knowledgeStoreItems.retrieve(storeId, item.id!);
    if (now.status === 'ready') return item.id!;
    if (now.status === 'failed') throw new Error(`item ${item.id} failed`);
    await sleep(300);
  }
}

/** A stack (with the provider its options name) and a store of the three videos' items, for the describe block it is called in. */
function withStore(stackOptions: () => IndexingStackOptions): void {
  beforeAll(async () => {
    const [started, garden, station, bakery] = await Promise.all([
      startIndexingStack({ worker: true, analyze: true, ...stackOptions() }),
      video('garden', 'GARDEN', 'Welcome to the rose garden tour.', ANSWER.text),
      video('station', 'STATION', 'Welcome aboard the night train.', 'The train leaves the station at nine.'),
      video('bakery', 'BAKERY', 'Good morning from the bakery.', 'Bake the bread for forty minutes.'),
    ]);
    stack = started;
    recorder = await startRecordingProxy(stack.url);
    process.env.TWELVELABS_BASE_URL = `${recorder.url}/v1.3`;
    client = new TwelveLabs({ apiKey: (await stack.newOrg()).key });
    const assets = await Promise.all([garden, station, bakery].map((v) => readyAsset(client, v.path)));
    ksId = (await client.knowledgeStores.create({ name: 'ks-responses' })).id!;
    // One at a time: the first item makes the store's index, which two items added at once both tried to make.
    for (const [n, name] of (['garden', 'station', 'bakery'] as const).entries()) items[name] = await readyItem(ksId, assets[n]!);
  }, 400_000);
  afterAll(async () => {
    process.env.TWELVELABS_BASE_URL = savedBaseUrl;
    await recorder?.stop();
    await stack?.stop();
  });
}

const ask = (content: string, extra: Partial<TwelvelabsApi.ResponsesCreateRequest> = {}) => ({
  knowledgeStoreId: ksId,
  input: [{ type: 'message' as const, role: 'user' as const, content }],
  ...extra,
});

/** The final answer's text and citations. */
function answerOf(response: TwelvelabsApi.ResponseObject) {
  const message = response.output!.find((o) => o.type === 'message')!;
  const [part] = message.content!;
  return { text: part!.text, annotations: part!.annotations };
}

/** Every answer recorded, JSON and each streamed event, against the v1.3 OpenAPI document. */
async function expectDocumented(): Promise<void> {
  const failures = validateExchanges(recorder.exchanges, await documentsFor(stack.url, recorder.exchanges));
  expect(failures).toEqual([]);
  expect(recorder.exchanges.some((e) => e.contentType.startsWith('text/event-stream'))).toBe(true);
}

describe('the bundled provider', () => {
  withStore(() => ({}));

  let first: TwelvelabsApi.ResponseObject;

  describe('responses.create (twelvelabs-js 1.x)', () => {
    it('answers from the video that says it, citing that item and moment', async () => {
      first = await client.responses.create(ask(QUESTION));
      expect(first).toMatchObject({ type: 'response', object: 'response', status: 'completed', knowledgeStoreId: ksId });
      expect(first.sessionId).toMatch(/^sess_/);
      expect(first.usage!.outputTokens).toBeGreaterThan(0);
      const { text, annotations } = answerOf(first);
      expect(text).toContain('prunes the roses');
      expect(annotations.length).toBeGreaterThan(0);
      for (const a of annotations) {
        expect(a).toMatchObject({ type: 'video_citation', itemId: items.garden });
        // The moment holds the sentence said.
        expect(a.startSec!).toBeLessThanOrEqual(ANSWER.startSec);
        expect(a.endSec!).toBeGreaterThanOrEqual(ANSWER.endSec - 0.5);
        expect([...text].slice(a.startIndex, a.endIndex + 1).join('')).toMatch(/^\[\d+\]$/);
        expect(a.hlsUrl).toMatch(/\/hls\/[^/]+\/index\.m3u8$/);
      }
      // The signed thumbnail is served without a key.
      const thumbnail = annotations[0]!.thumbnailUrl!;
      const res = await fetch(thumbnail.replace(recorder.url, stack.url));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^image\//);
    });

    it('continues the conversation in its session', async () => {
      const next = await client.responses.create(ask('And what else happens in that garden?', { sessionId: first.sessionId }));
      expect(next.sessionId).toBe(first.sessionId);
      expect(next.id).not.toBe(first.id);
      expect(answerOf(next).annotations.every((a) => a.itemId === items.garden)).toBe(true);
    });

    it('narrows the answer to a selection named by {{sel:0}}', async () => {
      // Two videos welcome someone (the garden and the station); the selection names the station's.
      const wide = answerOf(await client.responses.create(ask('Who is welcomed?')));
      expect(new Set(wide.annotations.map((a) => a.itemId))).toEqual(new Set([items.garden, items.station]));
      const narrowed = await client.responses.create(
        ask('Who is welcomed in {{sel:0}}?', { selections: [{ kind: 'item', id: items.station }], include: ['intermediate_outputs'] }),
      );
      expect(narrowed.output!.map((o) => o.type)).toEqual(['function_call', 'function_call_output', 'message']);
      const { text, annotations } = answerOf(narrowed);
      expect(text).toContain('night train');
      expect(annotations.length).toBeGreaterThan(0);
      expect(annotations.every((a) => a.itemId === items.station)).toBe(true);
    });
  });

  describe('responses.createStream (twelvelabs-js 1.x)', () => {
    it('streams the answer as the SDK’s events, in order, ending with the completed response', async () => {
      const stream = await client.responses.createStream(ask(QUESTION));
      const events: TwelvelabsApi.ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const types = events.map((e) => e.type);
      expect(events.map((e) => e.sequenceNumber)).toEqual(events.map((_e, i) => i));
      expect(types.slice(0, 4)).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
      ]);
      expect(types.slice(-4)).toEqual([
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta!] : []));
      expect(deltas.length).toBe(types.length - 8);
      const done = events.find(
        (e): e is TwelvelabsApi.ResponseStreamEvent.ResponseOutputTextDone => e.type === 'response.output_text.done',
      )!;
      expect(deltas.join('')).toBe(done.text);
      const completed = events[events.length - 1] as TwelvelabsApi.ResponseStreamEvent.ResponseCompleted;
      const { text, annotations } = answerOf(completed.response!);
      expect(text).toBe(done.text);
      expect(text).toContain('prunes the roses');
      expect(annotations.length).toBeGreaterThan(0);
      expect(annotations.every((a) => a.itemId === items.garden)).toBe(true);
    });
  });

  describe('the OpenAPI document', () => {
    it('describes every answer given, each streamed event too', expectDocumented);
  });
});

/**
 * An OpenAI-compatible chat server on loopback that answers as a grounded model would: the sentence
 * of the numbered moment (in its system prompt) that says what the question asks, cited as `[n]`,
 * streamed in three chunks; "No moment…" when none does.
 */
interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content: string }[];
}
const chats: ChatRequest[] = [];
let llm: Server;

function groundedAnswer(request: ChatRequest): string {
  const system = request.messages[0]!.content;
  const moment = /^\[(\d+)\] [^\n]*(?:\n {2}[^\n]*)*/gm;
  for (const match of system.matchAll(moment)) if (match[0].includes('prunes the roses')) return `${ANSWER.text} [${match[1]}]`;
  return 'No moment in the store bears on that.';
}

describe('an OpenAI-compatible server', () => {
  beforeAll(async () => {
    llm = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
        const request = JSON.parse(body) as ChatRequest;
        chats.push(request);
        const answer = groundedAnswer(request);
        const thirds = [0, 1, 2].map((k) => answer.slice((k * answer.length) / 3, ((k + 1) * answer.length) / 3));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const content of thirds) res.write(`data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 200, completion_tokens: 11 } })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => llm.close(() => resolve())));
  withStore(() => ({
    analyzeLlm: { baseUrl: `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`, model: 'grounded', timeoutMs: 20_000 },
  }));

  it('answers with the model’s words, its [n] a citation of the moment it names', async () => {
    const response = await client.responses.create(ask(QUESTION));
    const { text, annotations } = answerOf(response);
    expect(text).toBe(`${ANSWER.text} [${/\[(\d+)\]/.exec(text)![1]}]`);
    expect(response.usage).toEqual({ inputTokens: expect.any(Number), outputTokens: 11 });
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatchObject({ type: 'video_citation', itemId: items.garden });
    expect(annotations[0]!.startSec!).toBeLessThanOrEqual(ANSWER.startSec);
    expect(annotations[0]!.endSec!).toBeGreaterThanOrEqual(ANSWER.endSec - 0.5);
    expect([...text].slice(annotations[0]!.startIndex, annotations[0]!.endIndex + 1).join('')).toMatch(/^\[\d+\]$/);
    // The model read the moments in its system prompt, and the question last.
    const chat = chats[chats.length - 1]!;
    expect(chat.model).toBe('grounded');
    expect(chat.messages[0]!.content).toContain('prunes the roses');
    expect(chat.messages[chat.messages.length - 1]).toEqual({ role: 'user', content: QUESTION });
  });

  it('streams the model’s chunks as output_text deltas', async () => {
    const stream = await client.responses.createStream(ask(QUESTION));
    const events: TwelvelabsApi.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta!] : []));
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    const completed = events[events.length - 1] as TwelvelabsApi.ResponseStreamEvent.ResponseCompleted;
    expect(completed.type).toBe('response.completed');
    const { text, annotations } = answerOf(completed.response!);
    expect(deltas.join('')).toBe(text);
    expect(annotations.map((a) => a.itemId)).toEqual([items.garden]);
  });

  it('describes every answer given, each streamed event too', expectDocumented);
});
