/**
 * The OpenAI-compatible provider against a fake chat-completions server on loopback (real HTTP):
 * what it sends (the evidence in the prompt, the model, temperature, max_tokens, response_format)
 * and how it reads what comes back (server-sent chunks, usage, JSON answers still validated),
 * through the domain as analyze-service runs it.
 */
import { ApiError, createLogger, errors, systemClock } from '@vus/core';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnalyzeService, type GenerationRecord, type StreamEvent } from '../src/analyze';
import { OpenAICompatibleProvider, renderEvidence } from '../src/openai';
import { cookingSources, cookingTimeline } from './fixtures';

const logger = createLogger({ service: 'test', level: 'silent' });

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  temperature: number;
  max_tokens?: number;
  stream?: boolean;
  response_format?: { type: string; json_schema: { name: string; schema: object } };
}

/** How the fake server answers the next requests. */
let answer: (request: ChatRequest, res: ServerResponse) => void;
const received: ChatRequest[] = [];
let lastRequestClosed: Promise<void> = Promise.resolve();

const json = (res: ServerResponse, content: string, completionTokens = 11) =>
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ choices: [{ message: { content }, finish_reason: 'stop' }], usage: { completion_tokens: completionTokens } }));
const sse = (res: ServerResponse, data: object | string) =>
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    lastRequestClosed = new Promise((resolve) => res.on('close', resolve));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.headers.authorization !== 'Bearer sk-test') return void res.writeHead(404).end();
      const request = JSON.parse(body) as ChatRequest;
      received.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  received.length = 0;
});

function setup(url = baseUrl) {
  const records: GenerationRecord[] = [];
  const service = createAnalyzeService({
    directory: {
      find: async (_org, id) => {
        if (id !== 'v1') throw errors.notFound('Video', id);
        return { id, indexId: 'i1', version: '1', engines: ['pegasus1.2'] };
      },
      evidence: async () => cookingSources(),
    },
    store: { record: async (r) => void records.push(r) },
    provider: new OpenAICompatibleProvider({ baseUrl: url, model: 'tiny-model', apiKey: 'sk-test', timeoutMs: 5_000, logger }),
    clock: systemClock,
    logger,
  });
  return { service, records };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const codeOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  return error instanceof ApiError ? error.code : error;
};

describe('OpenAI-compatible provider', () => {
  it('puts the evidence timeline in the prompt, and maps server-sent chunks to text events with the server usage', async () => {
    answer = (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ delta: { role: 'assistant' } }] });
      sse(res, { choices: [{ delta: { content: 'At 0:21 the speaker says ' } }] });
      sse(res, { choices: [{ delta: { content: '"Boil the pasta for ten minutes".' } }] });
      sse(res, { choices: [], usage: { prompt_tokens: 300, completion_tokens: 14 } });
      sse(res, '[DONE]');
      res.end();
    };
    const { service, records } = setup();
    const events = await collect(service.analyze('org', 'v1', 'When is the pasta boiled?', { temperature: 0.7, maxTokens: 100 }));
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('At 0:21 the speaker says "Boil the pasta for ten minutes".');
    expect(events.at(-1)).toEqual({ type: 'end', finishReason: 'stop', outputTokens: 14 });
    expect(records[0]).toMatchObject({ provider: 'openai-compatible:tiny-model', outputTokens: 14, status: 'completed' });

    const [request] = received;
    expect(request).toMatchObject({ model: 'tiny-model', temperature: 0.7, max_tokens: 100, stream: true });
    expect(request!.messages[0]!.content).toContain(renderEvidence(cookingTimeline()));
    expect(request!.messages[0]!.content).toContain('[0:00-0:03] on-screen text: TOMATO PASTA');
    expect(request!.messages[0]!.content).toContain('said: Boil the pasta for ten minutes.');
    expect(request!.messages[1]).toEqual({ role: 'user', content: 'When is the pasta boiled?' });
  });

  it('passes response_format through and still validates the answer', async () => {
    const schema = {
      type: 'object',
      properties: { dish: { type: 'string' }, minutes: { type: 'integer' } },
      required: ['dish', 'minutes'],
    };
    answer = (_request, res) => json(res, '{"dish":"tomato pasta","minutes":10}');
    const { service } = setup();
    const events = await collect(service.analyze('org', 'v1', 'What is cooked and for how long?', { jsonSchema: JSON.stringify(schema) }));
    expect(received[0]!.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema } });
    expect(
      JSON.parse(
        events
          .filter((e) => e.type === 'text')
          .map((e) => (e as { text: string }).text)
          .join(''),
      ),
    ).toEqual({ dish: 'tomato pasta', minutes: 10 });

    answer = (_request, res) => json(res, '{"dish":"tomato pasta","minutes":"ten"}');
    expect(await codeOf(collect(service.analyze('org', 'v1', 'What is cooked?', { jsonSchema: JSON.stringify(schema) })))).toBe(
      'parameter_invalid',
    );
  });

  it('gist and chapters come from JSON answers, with the server usage', async () => {
    answer = (request, res) =>
      request.response_format?.json_schema.schema &&
      'chapters' in (request.response_format.json_schema.schema as { properties: object }).properties
        ? json(
            res,
            '{"chapters":[{"start":0,"end":20,"title":"Tomato Pasta","summary":"The dish is introduced."},{"start":20,"end":40,"title":"Cooking","summary":"The pasta is boiled."}]}',
            30,
          )
        : json(res, '{"title":"Tomato Pasta","topics":["Food and drink"],"hashtags":["#pasta","tomato"]}', 9);
    const { service } = setup();
    const gist = await service.gist('org', 'v1', ['title', 'hashtag']);
    expect(gist).toMatchObject({ gist: { title: 'Tomato Pasta', hashtags: ['pasta', 'tomato'] }, outputTokens: 9 });
    expect(gist.gist).not.toHaveProperty('topics');
    const chapters = await service.summarize('org', 'v1', 'chapter', '', {});
    expect(chapters).toMatchObject({
      outputTokens: 30,
      summary: {
        type: 'chapter',
        chapters: [
          { chapterNumber: 0, title: 'Tomato Pasta' },
          { chapterNumber: 1, start: 20 },
        ],
      },
    });
  });

  it.each<[string, (request: ChatRequest, res: ServerResponse) => void]>([
    ['answers 500', (_request, res) => void res.writeHead(500).end('boom')],
    ['answers something that is not a chat completion', (_request, res) => void res.writeHead(200).end('{"nope":true}')],
    ['answers a gist that is not JSON', (_request, res) => json(res, 'Tomato Pasta!')],
  ])('a model server that %s is model_unavailable', async (_name, reply) => {
    answer = reply;
    expect(await codeOf(setup().service.gist('org', 'v1', ['title']))).toBe('model_unavailable');
  });

  it('a model server that cannot be reached is model_unavailable, without its address in the message', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise((resolve) => closed.close(resolve));
    const error = await setup(url)
      .service.summarize('org', 'v1', 'summary', '', {})
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_unavailable' });
    expect((error as Error).message).not.toContain('127.0.0.1');
  });

  it('a caller that goes away mid-stream closes the request to the model server', async () => {
    answer = (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ delta: { content: 'At 0:01 the speaker says "Welcome".' } }] });
      // …and then nothing more, as a slow model would.
    };
    const { service, records } = setup();
    const abort = new AbortController();
    for await (const event of service.analyze('org', 'v1', 'Describe the video', {}, abort.signal))
      if (event.type === 'text') abort.abort();
    await lastRequestClosed;
    expect(records[0]).toMatchObject({ status: 'cancelled' });
    expect(records[0]!.outputTokens).toBeGreaterThan(0);
  });
});
