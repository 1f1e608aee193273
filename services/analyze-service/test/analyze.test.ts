import { ApiError, errors, systemClock, createLogger } from '@vus/core';
import { openWordNet } from '@vus/wordnet';
import { createAnalyzeService, type GenerationRecord, type StreamEvent, type VideoDirectory, type VideoRef } from '../src/analyze';
import { ExtractiveProvider } from '../src/extractive';
import { cookingSources } from './fixtures';

const wordnet = openWordNet();
afterAll(() => wordnet.close());

const ORG = 'org1';
const VIDEOS: Record<string, VideoRef> = {
  v1: { id: 'v1', indexId: 'i1', version: '1', engines: ['marengo2.7', 'pegasus1.2'] },
  searchOnly: { id: 'searchOnly', indexId: 'i2', version: '1', engines: ['marengo2.7'] },
};

function setup() {
  const records: GenerationRecord[] = [];
  let evidenceLoads = 0;
  const directory: VideoDirectory = {
    async find(orgId, videoId) {
      const video = orgId === ORG ? VIDEOS[videoId] : undefined;
      if (!video) throw errors.notFound('Video', videoId);
      return video;
    },
    async evidence() {
      evidenceLoads += 1;
      return cookingSources();
    },
  };
  const service = createAnalyzeService({
    directory,
    store: { record: async (r) => void records.push(r) },
    provider: new ExtractiveProvider(wordnet),
    clock: systemClock,
    logger: createLogger({ service: 'analyze-service', level: 'silent' }),
  });
  return { service, records, loads: () => evidenceLoads };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const codeOf = (error: unknown) => (error instanceof ApiError ? error.code : String(error));

describe('analyze-service domain', () => {
  it('streams start, the answer in pieces with running token counts, and end; records the generation', async () => {
    const { service, records } = setup();
    const events = await collect(service.analyze(ORG, 'v1', 'When is the pasta boiled?', {}));
    expect(events[0]).toEqual({ type: 'start', generationId: expect.any(String) });
    const texts = events.filter((e) => e.type === 'text');
    expect(texts.length).toBeGreaterThan(0);
    const end = events.at(-1)!;
    expect(end).toEqual({ type: 'end', finishReason: 'stop', outputTokens: expect.any(Number) });
    expect(texts.at(-1)).toMatchObject({ outputTokens: (end as { outputTokens: number }).outputTokens });
    expect(records).toEqual([
      expect.objectContaining({
        kind: 'analyze',
        status: 'completed',
        orgId: ORG,
        videoId: 'v1',
        provider: 'extractive',
        finishReason: 'stop',
      }),
    ]);
    expect(records[0]!.output).toContain('Boil the pasta');
  });

  it('cuts the answer at max_tokens with finish_reason length', async () => {
    const { service, records } = setup();
    const events = await collect(service.analyze(ORG, 'v1', 'What is this video about?', { maxTokens: 5 }));
    expect(events.at(-1)).toEqual({ type: 'end', finishReason: 'length', outputTokens: 5 });
    expect(records[0]).toMatchObject({ outputTokens: 5, finishReason: 'length' });
  });

  it('a consumer that stops reading cancels the generation; what was produced is still recorded', async () => {
    const { service, records } = setup();
    for await (const event of service.analyze(ORG, 'v1', 'What is this video about?', {})) {
      if (event.type === 'text') break;
    }
    expect(records).toEqual([expect.objectContaining({ status: 'cancelled', outputTokens: expect.any(Number) })]);
    expect(records[0]!.outputTokens).toBeGreaterThan(0);
  });

  it('an aborted signal stops generation before the next piece', async () => {
    const { service, records } = setup();
    const abort = new AbortController();
    const events: StreamEvent[] = [];
    for await (const event of service.analyze(ORG, 'v1', 'What is this video about?', {}, abort.signal)) {
      events.push(event);
      if (event.type === 'text') abort.abort();
    }
    expect(events.filter((e) => e.type === 'text')).toHaveLength(1);
    expect(events.some((e) => e.type === 'end')).toBe(false);
    expect(records[0]).toMatchObject({ status: 'cancelled' });
  });

  it('json_schema: one JSON text that validates', async () => {
    const { service } = setup();
    const schema = JSON.stringify({
      type: 'object',
      properties: { title: { type: 'string' }, topics: { type: 'array', items: { type: 'string' } } },
      required: ['title'],
    });
    const events = await collect(service.analyze(ORG, 'v1', 'Give the title and topics', { jsonSchema: schema }));
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    expect(JSON.parse(text)).toMatchObject({ title: 'Tomato Pasta' });
  });

  it('caches the timeline per video version', async () => {
    const { service, loads } = setup();
    await service.gist(ORG, 'v1', ['title']);
    await service.summarize(ORG, 'v1', 'summary', '', {});
    expect(loads()).toBe(1);
  });

  it('summarize: chapters within max_tokens keep only the chapters that fit', async () => {
    const { service } = setup();
    const all = await service.summarize(ORG, 'v1', 'chapter', '', {});
    const cut = await service.summarize(ORG, 'v1', 'chapter', '', { maxTokens: 1 });
    expect(all.finishReason).toBe('stop');
    expect(cut).toMatchObject({ finishReason: 'length', summary: { type: 'chapter', chapters: [] } });
  });

  it.each<[string, () => Promise<unknown>, string]>([
    ['an index without a generative engine', () => setup().service.gist(ORG, 'searchOnly', ['title']), 'engine_not_supported'],
    ['an unknown video', () => setup().service.gist(ORG, 'nope', ['title']), 'resource_not_exist'],
    ["another organization's video", () => setup().service.gist('org2', 'v1', ['title']), 'resource_not_exist'],
    ['no gist types', () => setup().service.gist(ORG, 'v1', []), 'parameter_not_provided'],
    ['an unknown gist type', () => setup().service.gist(ORG, 'v1', ['poem']), 'parameter_invalid'],
    ['an unknown summarize type', () => setup().service.summarize(ORG, 'v1', 'essay', '', {}), 'parameter_invalid'],
    ['an empty prompt', () => collect(setup().service.analyze(ORG, 'v1', '   ', {})), 'parameter_not_provided'],
    ['a prompt over 2000 tokens', () => collect(setup().service.analyze(ORG, 'v1', 'word '.repeat(2001), {})), 'token_limit_exceeded'],
    ['temperature above 1', () => collect(setup().service.analyze(ORG, 'v1', 'hi', { temperature: 1.5 })), 'parameter_invalid'],
    ['a negative temperature', () => setup().service.summarize(ORG, 'v1', 'summary', '', { temperature: -0.1 }), 'parameter_invalid'],
    ['max_tokens above 4096', () => collect(setup().service.analyze(ORG, 'v1', 'hi', { maxTokens: 5000 })), 'parameter_invalid'],
    ['fractional max_tokens', () => collect(setup().service.analyze(ORG, 'v1', 'hi', { maxTokens: 2.5 })), 'parameter_invalid'],
    [
      'a schema that is not a JSON schema',
      () => collect(setup().service.analyze(ORG, 'v1', 'hi', { jsonSchema: '{"type":12}' })),
      'parameter_invalid',
    ],
    [
      'a schema on chapters',
      () => setup().service.summarize(ORG, 'v1', 'chapter', '', { jsonSchema: '{"type":"object"}' }),
      'parameter_invalid',
    ],
  ])('refuses %s', async (_name, call, code) => {
    expect(codeOf(await call().catch((e: unknown) => e))).toBe(code);
  });
});
