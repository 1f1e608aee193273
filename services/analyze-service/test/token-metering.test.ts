/**
 * Prompts are capped and answers metered by the one token counter (issue 28 item 9): a run of
 * letters is not one token, however long, and what is billed is the count of what was written.
 */
import { ApiError, createLogger, errors, systemClock } from '@vus/core';
import { countTokens } from '@vus/domain';
import type { MeteredUsage } from '@vus/events';
import { openWordNet } from '@vus/wordnet';
import { createAnalyzeService, type GenerationRecord, type StreamEvent, type VideoDirectory } from '../src/analyze';
import { ExtractiveProvider } from '../src/extractive';
import type { Counted, Gist, Summary } from '../src/provider';
import { cookingSources } from './fixtures';

const wordnet = openWordNet();
afterAll(() => wordnet.close());

/** 900 KB of one word: what a model (or a prompt) can send without a single space. */
const ONE_WORD = 'a'.repeat(900_000);

/** Answers with `pieces`, summarizes and gists with ONE_WORD, and reports no count of its own. */
class VerboseProvider extends ExtractiveProvider {
  constructor(private readonly pieces: readonly string[]) {
    super(wordnet);
  }
  override async *answer(): AsyncIterable<string> {
    yield* this.pieces;
  }
  override async summarize(): Promise<Counted<Summary>> {
    return { type: 'summary', summary: ONE_WORD };
  }
  override async gist(): Promise<Counted<Gist>> {
    return { title: ONE_WORD };
  }
}

function setup(pieces: readonly string[] = [ONE_WORD]) {
  const records: GenerationRecord[] = [];
  const usage: MeteredUsage[] = [];
  const directory: VideoDirectory = {
    async find(orgId, videoId) {
      if (videoId !== 'v1') throw errors.notFound('Video', videoId);
      return { id: 'v1', indexId: 'i1', version: '1', engines: ['pegasus1.2'] };
    },
    evidence: async () => cookingSources(),
  };
  const service = createAnalyzeService({
    directory,
    store: {
      record: async (generation, metered) => {
        records.push(generation);
        usage.push(...metered);
      },
    },
    provider: new VerboseProvider(pieces),
    clock: systemClock,
    logger: createLogger({ service: 'analyze-service', level: 'silent' }),
  });
  return { service, records, usage };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const billed = (usage: readonly MeteredUsage[]) => usage.find((u) => u.kind === 'output_tokens')?.quantity ?? 0;

describe('token counting (issue 28 item 9)', () => {
  it('a 900 KB one-word answer counts at least 900,000 / 4 tokens', () => {
    expect(countTokens(ONE_WORD)).toBeGreaterThanOrEqual(900_000 / 4);
  });

  it('a 900,000-character one-word prompt is refused with token_limit_exceeded', async () => {
    const error = await collect(setup(['ok']).service.analyze('o1', 'v1', ONE_WORD, {})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'token_limit_exceeded', httpStatus: 400 });
  });

  it('a one-word answer is cut at max_tokens, and the record and usage carry the count of what was written', async () => {
    const { service, records, usage } = setup();
    const events = await collect(service.analyze('o1', 'v1', 'Say it all', {}));
    const written = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    expect(events.at(-1)).toEqual({ type: 'end', finishReason: 'length', outputTokens: 4096 });
    expect(written.length).toBeLessThanOrEqual(4 * 4096);
    expect(countTokens(written)).toBe(4096);
    expect(records[0]).toMatchObject({ output: written, outputTokens: 4096, finishReason: 'length' });
    expect(billed(usage)).toBe(4096);
  });

  it('a word streamed in short pieces is metered as the whole text counts, not piece by piece', async () => {
    const pieces = Array.from({ length: 1000 }, () => 'abcdef');
    const { service, records, usage } = setup(pieces);
    const events = await collect(service.analyze('o1', 'v1', 'Say it all', {}));
    const written = pieces.join('');
    expect(events.at(-1)).toEqual({ type: 'end', finishReason: 'stop', outputTokens: countTokens(written) });
    expect(records[0]).toMatchObject({ output: written, outputTokens: countTokens(written) });
    expect(billed(usage)).toBe(countTokens(written));
    expect(billed(usage)).toBe(1500);
  });

  it('max_tokens cuts a word that arrives in pieces where the whole text reaches it', async () => {
    const { service, records } = setup(Array.from({ length: 100 }, () => 'abcdef'));
    const events = await collect(service.analyze('o1', 'v1', 'Say it all', { maxTokens: 10 }));
    expect(events.at(-1)).toEqual({ type: 'end', finishReason: 'length', outputTokens: 10 });
    expect(countTokens(records[0]!.output)).toBe(10);
  });

  it('a one-word summary and gist are cut or billed by what they carry', async () => {
    const { service, usage } = setup();
    const summary = await service.summarize('o1', 'v1', 'summary', '', { maxTokens: 100 });
    expect(summary).toMatchObject({ finishReason: 'length', outputTokens: 100 });
    expect(summary.summary).toEqual({ type: 'summary', summary: 'a'.repeat(400) });
    const gist = await service.gist('o1', 'v1', ['title']);
    expect(gist.outputTokens).toBe(900_000 / 4);
    expect(usage.filter((u) => u.kind === 'output_tokens').map((u) => u.quantity)).toEqual([100, 900_000 / 4]);
  });
});
