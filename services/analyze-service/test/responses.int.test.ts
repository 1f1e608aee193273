/**
 * Respond over gRPC with index-service and search-service beside it, on real PostgreSQL: three
 * videos of a knowledge store's internal index, written as the indexing worker writes them; a
 * question whose answer is said in one of them is searched, answered and cited at that video and
 * moment, by the bundled provider and by an OpenAI-compatible chat server on loopback (real HTTP,
 * answering from the numbered moments of its prompt). Sessions: a follow-up continues one, another
 * organization's session is not found, and the turns are kept with their usage events.
 */
import {
  createAnalyzeClient,
  createIndexClient,
  createSearchClient,
  type AnalyzeClient,
  type IndexClient,
  type SearchClient,
} from '@vus/clients';
import { createLogger, newId } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import type { RespondEvent } from '@vus/grpc/types/analyze/v1/RespondEvent';
import type { RespondRequest__Input } from '@vus/grpc/types/analyze/v1/RespondRequest';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { startSearchService, type RunningSearchService } from '@vus/search-service';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAnalyzeService, type RunningAnalyzeService } from '../src/main';
import { addGardenTourVideo } from './fixtures';

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

interface ChatRequest {
  messages: { role: string; content: string }[];
  stream?: boolean;
  response_format?: { type: string };
}

/**
 * A chat-completions server that answers as a grounded model would: the first numbered moment of
 * its system prompt whose lines mention the ferry, cited as [n], streamed in two chunks.
 */
function startChatServer(received: ChatRequest[], closed: (() => void)[]): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    res.on('close', () => closed.shift()?.());
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as ChatRequest;
      received.push(request);
      const system = request.messages[0]?.content ?? '';
      const moment = system.split(/\n(?=\[\d+\] )/).find((block) => /ferry/i.test(block) && /^\[\d+\] /.test(block));
      const n = moment ? /^\[(\d+)\]/.exec(moment)![1] : undefined;
      const chunks = n ? ['The ferry leaves ', `at noon [${n}].`] : ['No moment in the store bears on that.'];
      if (request.response_format) {
        // A JSON answer: the departure time, as a number unless the question asks for text.
        const departure = /as text/.test(request.messages.at(-1)?.content ?? '') ? 'noon' : 12;
        const content = JSON.stringify({ departure });
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content } }] }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // A model that stalls after its first words: only the caller going away ends it.
      if (/stall/.test(request.messages.at(-1)?.content ?? ''))
        return void res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'The' } }] })}\n\n`);
      for (const content of chunks) res.write(`data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ choices: [], usage: { completion_tokens: 9 } })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })),
  );
}

async function collect(events: AsyncIterable<RespondEvent>): Promise<RespondEvent[]> {
  const all: RespondEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('Respond over gRPC', () => {
  const dbs: ThrowawayDatabase[] = [];
  const running: { stop(): Promise<void> }[] = [];
  let index: IndexClient;
  let search: SearchClient;
  let bundled: AnalyzeClient;
  let openai: AnalyzeClient;
  let chat: { server: Server; baseUrl: string };
  const received: ChatRequest[] = [];
  const chatClosed: (() => void)[] = [];
  let analyzeDb: ThrowawayDatabase;
  const org = newId();
  const ctx = {
    orgId: org,
    get deadline() {
      return new Date(Date.now() + 60_000);
    },
  };
  let indexId: string;
  const videos: Record<'garden' | 'kitchen' | 'harbour', string> = { garden: '', kitchen: '', harbour: '' };
  let request: (content: string, more?: Partial<RespondRequest__Input>) => RespondRequest__Input;

  /** A video of the store whose lines are said (and searchable as speech) at the given times. */
  async function addSpokenVideo(filename: string, lines: [number, number, string][], labels: string[]): Promise<string> {
    const id = newId();
    await index.createVideo(ctx, {
      index_id: indexId,
      video_id: id,
      system_metadata: { filename, duration: 30, fps: 25, width: 1280, height: 720, size: 1000 },
      extractors_run: ['visual', 'conversation', 'text_in_video', 'logo'],
      media_blob_key: '',
    });
    const transcription = lines.map(([start, end, value]) => ({ start, end, value }));
    await index.putVideoArtifacts(ctx, {
      index_id: indexId,
      video_id: id,
      artifacts: { transcription, text_in_video: [], logo: [], thumbnails: [] },
    });
    await search.ingestSegments(ctx, {
      index_id: indexId,
      video_id: id,
      segments: [
        { start: 0, end: 30, modality: 'visual', labels },
        ...lines.map(([start, end, text]) => ({ start, end, modality: 'conversation', text })),
      ],
    });
    return id;
  }

  beforeAll(async () => {
    const [indexDb, searchDb] = [await createThrowawayDatabase(), await createThrowawayDatabase()];
    analyzeDb = await createThrowawayDatabase();
    dbs.push(indexDb, searchDb, analyzeDb);
    const indexService: RunningIndexService = await startIndexService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: indexDb.url },
      logger,
    });
    const searchService: RunningSearchService = await startSearchService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: searchDb.url },
      indexServiceAddress: indexService.address,
      logger,
    });
    chat = await startChatServer(received, chatClosed);
    const common = {
      bind: '127.0.0.1:0',
      database: { kind: 'postgres' as const, url: analyzeDb.url },
      indexServiceAddress: indexService.address,
      searchServiceAddress: searchService.address,
      logger,
    };
    const bundledService: RunningAnalyzeService = await startAnalyzeService(common);
    const openaiService: RunningAnalyzeService = await startAnalyzeService({
      ...common,
      llm: { baseUrl: chat.baseUrl, model: 'tiny-model', timeoutMs: 10_000 },
    });
    running.push(openaiService, bundledService, searchService, indexService);
    index = createIndexClient(indexService.address);
    search = createSearchClient(searchService.address);
    bundled = createAnalyzeClient(bundledService.address);
    openai = createAnalyzeClient(openaiService.address);

    // The store's internal index, as task-service makes it: Marengo to search, Pegasus to generate.
    const created = await index.createIndex(ctx, {
      name: 'knowledge store',
      models: [
        { name: 'marengo3.0', options: ['visual', 'conversation', 'text_in_video', 'logo'] },
        { name: 'pegasus1.2', options: ['visual', 'conversation'] },
      ],
      addons: [],
    });
    indexId = created.id;
    videos.garden = await addGardenTourVideo({ index, search }, ctx, indexId, [
      { start: 2, end: 5, modality: 'conversation', text: 'These roses bloom in June.' },
      { start: 16, end: 20, modality: 'conversation', text: 'The bicycle is parked by the gate.' },
    ]);
    videos.kitchen = await addSpokenVideo(
      'pasta_night.mp4',
      [
        [1, 4, 'Welcome to my kitchen.'],
        [21, 25, 'Boil the pasta for ten minutes.'],
      ],
      ['bowl', 'oven'],
    );
    videos.harbour = await addSpokenVideo(
      'harbour_walk.mp4',
      [
        [3, 6, 'The fishing boats come back at dawn.'],
        [12, 16, 'The ferry leaves at noon from the north pier.'],
      ],
      ['boat'],
    );
    const items = Object.entries(videos).map(([name, videoId]) => ({
      item_id: `ksi_${name}`,
      asset_type: 'video',
      video_id: videoId,
      title: `${name}.mp4`,
      duration: 30,
    }));
    request = (content, more = {}) => ({
      knowledge_store_id: 'ks_1',
      index_id: indexId,
      items,
      input: [{ role: 'user', content }],
      include_intermediate: true,
      ...more,
    });
  }, 120_000);

  afterAll(async () => {
    for (const client of [bundled, openai, search, index]) client?.close();
    for (const service of running) await service.stop();
    await new Promise((resolve) => chat?.server.close(resolve));
    for (const db of dbs) await db.drop();
  });

  it('bundled: the answer is said in one of three videos, and its citation points at that video and moment', async () => {
    const events = await collect(bundled.respond(ctx, request('When does the ferry leave?')));
    expect(events.map((e) => e.event)).toEqual(['started', 'intermediate', ...events.slice(2, -1).map(() => 'text_delta'), 'completed']);
    const step = events[1]!.intermediate!;
    expect(JSON.parse(step.detail_json)).toMatchObject({ query: 'When does the ferry leave?' });
    const done = events.at(-1)!.completed!;
    expect(done.text).toContain('The ferry leaves at noon from the north pier');
    expect(done.text).toBe(events.map((e) => e.text_delta?.delta ?? '').join(''));
    const [citation] = done.citations;
    expect(citation).toMatchObject({ item_id: 'ksi_harbour', video_id: videos.harbour, title: 'harbour.mp4' });
    expect(citation!.start_sec).toBeLessThanOrEqual(12);
    expect(citation!.end_sec).toBeGreaterThanOrEqual(16);
    expect(done.text.slice(citation!.start_index, citation!.end_index)).toMatch(/^\[\d+\]$/);
    expect(done).toMatchObject({ status: 'completed', incomplete_reason: '' });
    expect(done.input_tokens).toBeGreaterThan(0);
    expect(done.output_tokens).toBeGreaterThan(0);
  }, 60_000);

  it('bundled: a broad request in two sentences answers two sentences, each cited at the item it comes from', async () => {
    const events = await collect(bundled.respond(ctx, request('Summarize what happens in this knowledge store in two sentences.')));
    const done = events.at(-1)!.completed!;
    const sentences = done.text.split(/(?<=\]\.) /);
    expect(sentences).toHaveLength(2);
    expect(done.citations.map((c) => c.item_id)).toEqual(['ksi_garden', 'ksi_kitchen']);
    const said = { ksi_garden: /roses|bicycle|garden/i, ksi_kitchen: /kitchen|pasta|bowl|oven/i } as Record<string, RegExp>;
    done.citations.forEach((citation, i) => {
      expect(sentences[i]).toContain(`In "${citation.title}"`);
      expect(sentences[i]).toMatch(said[citation.item_id]!);
      expect(done.text.slice(citation.start_index, citation.end_index)).toBe(`[${i + 1}]`);
    });
  }, 60_000);

  it('a follow-up in the same session sees the earlier turn; the turns and their usage are kept', async () => {
    const first = await collect(bundled.respond(ctx, request('When does the ferry leave?')));
    const { session_id: sessionId, response_id: firstId } = first[0]!.started!;
    expect(sessionId).toMatch(/^sess_[0-9a-f-]{36}$/);
    const follow = await collect(bundled.respond(ctx, request('Now list the three most important moments', { session_id: sessionId })));
    expect(follow[0]!.started).toMatchObject({ session_id: sessionId, message_id: `msg_${sessionId}_1` });
    const query = JSON.parse(follow[1]!.intermediate!.detail_json) as { query: string };
    expect(query.query).toContain('ferry');
    const done = follow.at(-1)!.completed!;
    expect(done.citations.map((c) => c.item_id)).toContain('ksi_harbour');
    const { rows } = await analyzeDb.db.query<{ turn: number; id: string }>(
      'SELECT turn, id FROM response_turns WHERE session_id = $1 ORDER BY turn',
      [sessionId],
    );
    expect(rows).toEqual([
      { turn: 0, id: firstId },
      { turn: 1, id: follow[0]!.started!.response_id },
    ]);
    const usage = await analyzeDb.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox WHERE payload::text LIKE '%' || $1 || '%'`,
      [`response:${firstId}`],
    );
    expect(usage.rows[0]!.n).toBe(1);
  }, 60_000);

  it('a session of another organization is not found; one of another store is a bad session_id (400, as twelvelabs-js 1.3.4 says)', async () => {
    const first = await collect(bundled.respond(ctx, request('When does the ferry leave?')));
    const sessionId = first[0]!.started!.session_id;
    const otherOrg = { ...ctx, orgId: newId() };
    await expect(collect(bundled.respond(otherOrg, request('And then?', { session_id: sessionId })))).rejects.toMatchObject({
      code: 'resource_not_exist',
    });
    await expect(
      collect(bundled.respond(ctx, request('And then?', { session_id: sessionId, knowledge_store_id: 'ks_other' }))),
    ).rejects.toMatchObject({ code: 'parameter_invalid' });
  }, 60_000);

  it('OpenAI-compatible: the numbered moments are in the prompt, the [n] it cites maps back to the video and moment', async () => {
    received.length = 0;
    const events = await collect(openai.respond(ctx, request('When does the ferry leave?', { instructions: 'Answer in one sentence.' })));
    expect(received).toHaveLength(1);
    const system = received[0]!.messages[0]!.content;
    expect(system).toContain('Answer in one sentence.');
    expect(system).toMatch(
      /\[\d+\] "harbour\.mp4", 0:1\d-0:1\d\n( {2}.*\n)* {2}0:12-0:16 said: The ferry leaves at noon from the north pier\./,
    );
    expect(received[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'When does the ferry leave?' });
    expect(events.filter((e) => e.text_delta).map((e) => e.text_delta!.delta)).toHaveLength(2);
    const done = events.at(-1)!.completed!;
    expect(done.text).toMatch(/^The ferry leaves at noon \[\d+\]\.$/);
    expect(done.citations).toHaveLength(1);
    expect(done.citations[0]).toMatchObject({
      item_id: 'ksi_harbour',
      video_id: videos.harbour,
      start_index: done.text.indexOf('['),
      end_index: done.text.indexOf(']') + 1,
    });
    expect(done.output_tokens).toBe(9);
  }, 60_000);

  it('OpenAI-compatible: a json_schema answer is validated against the schema', async () => {
    const text_format = {
      type: 'json_schema',
      json_schema: JSON.stringify({ type: 'object', properties: { departure: { type: 'string' } }, required: ['departure'] }),
    };
    const events = await collect(openai.respond(ctx, request('When does the ferry leave, as text?', { text_format })));
    expect(JSON.parse(events.at(-1)!.completed!.text)).toEqual({ departure: 'noon' });
    expect(received.at(-1)!.response_format).toMatchObject({ type: 'json_schema' });
    // The model's answer that does not validate is never returned.
    await expect(collect(openai.respond(ctx, request('When does the ferry leave?', { text_format })))).rejects.toMatchObject({
      code: 'parameter_invalid',
    });
  }, 60_000);

  it('a caller that goes away stops the generation, and the turn is not kept', async () => {
    const modelStopped = new Promise<void>((resolve) => chatClosed.push(resolve));
    const abort = new AbortController();
    let sessionId = '';
    for await (const event of openai.respond(ctx, request('When does the ferry leave? (stall)'), abort.signal)) {
      if (event.started) sessionId = event.started.session_id;
      if (event.text_delta) abort.abort();
    }
    await modelStopped;
    // The service's turn ended with the model's answer cut off; give its last step a moment to (not) write.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { rows } = await analyzeDb.db.query('SELECT id FROM response_sessions WHERE id = $1', [sessionId]);
    expect(sessionId).not.toBe('');
    expect(rows).toEqual([]);
  }, 60_000);

  it('OpenAI-compatible: a follow-up sends the earlier turn as history', async () => {
    const first = await collect(openai.respond(ctx, request('When does the ferry leave?')));
    received.length = 0;
    await collect(openai.respond(ctx, request('And from which pier?', { session_id: first[0]!.started!.session_id })));
    expect(received[0]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'When does the ferry leave?' },
      { role: 'assistant', content: first.at(-1)!.completed!.text },
      { role: 'user', content: 'And from which pier?' },
    ]);
  }, 60_000);
});
