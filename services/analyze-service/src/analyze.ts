/**
 * analyze-service's domain: checks a request, finds the video and its evidence (cached per video
 * version), runs the provider, counts output tokens, enforces max_tokens and records every
 * generation (finished, cut short or cancelled) with its usage.
 */
import { ApiError, errors, type Clock, type Logger } from '@vus/core';
import { checkPromptText, countTokens, familyOfEngine, PROMPT_LIMITS, TokenTally, truncateToTokens } from '@vus/domain';
import type { MeteredUsage } from '@vus/events';
import { randomUUID } from 'node:crypto';
import { assembleTimeline, type EvidenceSources, type Timeline } from './evidence';
import {
  GIST_TYPES,
  SUMMARIZE_TYPES,
  type Counted,
  type GenerationProvider,
  type GenerationSettings,
  type Gist,
  type GistType,
  type Summary,
  type SummarizeType,
} from './provider';
import { compileResponseSchema, type ResponseSchema } from './response-format';
import type { TaskSpec } from './async-spec';
import { maxTokensOf } from './async-rules';
import { segmentVideo, timelineWithin, type Span } from './segments';

/** The most output tokens one generation may produce (OAS-1.3: 4096). */
export const MAX_OUTPUT_TOKENS = 4096;
/** The longest prompt (API-CONTRACT §5.7: at most 2000 tokens). */
export const MAX_PROMPT_TOKENS = PROMPT_LIMITS.tokens;

/** A video as found for the caller's organization, with what tells its evidence apart over time. */
export interface VideoRef {
  id: string;
  indexId: string;
  /** Changes when the video is re-indexed or its metadata changes: the cache key's second half. */
  version: string;
  /** Engine (model) names of its index. */
  engines: string[];
}

/** The other services, as the domain needs them (directory.ts calls them over gRPC). */
export interface VideoDirectory {
  /** The video in any index of the organization; resource_not_exist when it has none by that id. */
  find(orgId: string, videoId: string): Promise<VideoRef>;
  /** Aborting `signal` cancels the calls (the caller went away). */
  evidence(orgId: string, video: VideoRef, signal?: AbortSignal): Promise<EvidenceSources>;
}

export type GenerationKind = 'gist' | SummarizeType | 'analyze';
export type GenerationStatus = 'completed' | 'cancelled' | 'failed';

export interface GenerationRecord {
  id: string;
  orgId: string;
  videoId: string;
  indexId: string;
  kind: GenerationKind;
  provider: string;
  prompt: string;
  output: string;
  outputTokens: number;
  finishReason: 'stop' | 'length' | '';
  status: GenerationStatus;
  createdAt: Date;
}

export interface GenerationStore {
  /** The generation and its usage (the `usage.recorded` events), in one transaction. */
  record(generation: GenerationRecord, usage: readonly MeteredUsage[]): Promise<void>;
}

/**
 * What a generation is metered for (SPEC §8, Analyze): its output tokens (TPM/TPD, and spend) and
 * the minutes of the video it read (DPH/DPD), each under a key of its own. A generation that
 * failed before producing anything counts nothing; one cut short or cancelled counts what it used.
 */
export function generationUsage(generation: GenerationRecord, videoSeconds: number): MeteredUsage[] {
  const base = { occurredAt: generation.createdAt, category: 'analyze' } as const;
  const usage: MeteredUsage[] = [];
  if (generation.outputTokens > 0) {
    usage.push({ ...base, kind: 'output_tokens', quantity: generation.outputTokens, idempotencyKey: `generation:${generation.id}` });
  }
  if (videoSeconds > 0 && (generation.status !== 'failed' || generation.outputTokens > 0)) {
    usage.push({ ...base, kind: 'media_seconds', quantity: videoSeconds, idempotencyKey: `generation:${generation.id}/video` });
  }
  return usage;
}

/** Timelines by `orgId/videoId@version`, the most recent `capacity` (a Map in insertion order is an LRU). */
export class TimelineCache {
  private readonly entries = new Map<string, Promise<Timeline>>();
  constructor(private readonly capacity = 64) {}

  get(key: string, load: () => Promise<Timeline>): Promise<Timeline> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const loading = load();
    this.entries.set(key, loading);
    // A failed load is not kept: the next request tries again.
    loading.catch(() => this.entries.get(key) === loading && this.entries.delete(key));
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return loading;
  }
}

export interface GenerationOptions {
  temperature?: number | undefined;
  /** 0 or unset: MAX_OUTPUT_TOKENS. */
  maxTokens?: number | undefined;
  /** The JSON schema as text, when the answer must be JSON. */
  jsonSchema?: string | undefined;
  /** Only this part of the video (an async task's start_time/end_time): its evidence, and its seconds metered. */
  window?: Partial<Span> | undefined;
}

/** What an asynchronous analysis produced (runTask). */
export interface TaskOutput {
  generationId: string;
  data: string;
  finishReason: 'stop' | 'length';
  outputTokens: number;
  /** The whole video's duration, seconds (the task's video_source.system_metadata). */
  videoDuration: number;
}

export type StreamEvent =
  | { type: 'start'; generationId: string }
  | { type: 'text'; text: string; outputTokens: number }
  | { type: 'end'; finishReason: 'stop' | 'length'; outputTokens: number };

export interface AnalyzeDeps {
  directory: VideoDirectory;
  store: GenerationStore;
  provider: GenerationProvider;
  clock: Clock;
  logger: Logger;
  cache?: TimelineCache;
}

/** The options checked (`maxTokensParam`: what the caller's API calls max_tokens), the schema compiled. */
export function checkOptions(
  options: GenerationOptions,
  maxTokensParam = 'max_tokens',
): {
  maxTokens: number;
  temperature: number | undefined;
  schema: ResponseSchema | undefined;
} {
  const { temperature, maxTokens } = options;
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0 && temperature <= 1)) {
    throw errors.invalid('temperature', 'It must be a number from 0 to 1.');
  }
  if (maxTokens !== undefined && maxTokens !== 0 && !(Number.isInteger(maxTokens) && maxTokens >= 1 && maxTokens <= MAX_OUTPUT_TOKENS)) {
    throw errors.invalid(maxTokensParam, `It must be an integer from 1 to ${MAX_OUTPUT_TOKENS}.`);
  }
  return {
    maxTokens: maxTokens || MAX_OUTPUT_TOKENS,
    temperature,
    schema: options.jsonSchema === undefined ? undefined : compileResponseSchema(options.jsonSchema),
  };
}

function checkPrompt(prompt: string, required: boolean): string {
  const trimmed = prompt.trim();
  if (required && trimmed.length === 0) throw errors.notProvided('prompt');
  checkPromptText('prompt', trimmed);
  return trimmed;
}

/** Output tokens of a gist or summary: of the text it carries. */
function textOf(result: Gist | Summary): string {
  if ('type' in result) {
    if (result.type === 'summary') return result.summary;
    if (result.type === 'chapter') return result.chapters.map((c) => `${c.title} ${c.summary}`).join(' ');
    return result.highlights.map((h) => `${h.highlight} ${h.summary}`).join(' ');
  }
  return [result.title ?? '', ...(result.topics ?? []), ...(result.hashtags ?? [])].join(' ');
}

/** A summary within max_tokens: the text cut, or the chapters/highlights that fit. */
function limitSummary(summary: Summary, maxTokens: number): { summary: Summary; finishReason: 'stop' | 'length' } {
  if (summary.type === 'summary') {
    const cut = truncateToTokens(summary.summary, maxTokens);
    return { summary: { type: 'summary', summary: cut.text }, finishReason: cut.truncated ? 'length' : 'stop' };
  }
  const items = summary.type === 'chapter' ? summary.chapters : summary.highlights;
  let used = 0;
  let kept = 0;
  for (const item of items) {
    used += countTokens(
      textOf(
        summary.type === 'chapter' ? { type: 'chapter', chapters: [item as never] } : { type: 'highlight', highlights: [item as never] },
      ),
    );
    if (used > maxTokens) break;
    kept += 1;
  }
  const finishReason = kept < items.length ? 'length' : 'stop';
  return summary.type === 'chapter'
    ? { summary: { type: 'chapter', chapters: summary.chapters.slice(0, kept) }, finishReason }
    : { summary: { type: 'highlight', highlights: summary.highlights.slice(0, kept) }, finishReason };
}

/**
 * The pieces of `source` until `signal` aborts: a provider waiting for its next piece (a model
 * server, say) is left at once and told to stop (return()), not waited for.
 */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncIterable<T> {
  const iterator = source[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal?.aborted) resolve('aborted');
    signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted' || next.done) return;
      yield next.value;
    }
  } finally {
    void iterator.return?.()?.catch(() => undefined);
  }
}

/**
 * The timeline within an analysis window (start_time/end_time of an async task) and the seconds
 * metered: the window's, the whole video's without one. A window past the video's end is refused.
 */
export function clipped(timeline: Timeline, window: Partial<Span> | undefined): { timeline: Timeline; seconds: number } {
  if (!window || (window.start === undefined && window.end === undefined)) return { timeline, seconds: timeline.duration };
  const start = window.start ?? 0;
  const end = window.end ?? timeline.duration;
  if (start >= timeline.duration) throw errors.invalid('start_time', `It must be less than the video's duration (${timeline.duration} s).`);
  if (end > timeline.duration + 0.5) throw errors.invalid('end_time', `It must not exceed the video's duration (${timeline.duration} s).`);
  const span = { start, end: Math.min(end, timeline.duration) };
  return { timeline: timelineWithin(timeline, span), seconds: span.end - span.start };
}

export function createAnalyzeService(deps: AnalyzeDeps) {
  const cache = deps.cache ?? new TimelineCache();

  /** The video, refused unless its index has a generative (Pegasus) engine, and its timeline. */
  async function timelineOf(orgId: string, videoId: string): Promise<Timeline> {
    const video = await deps.directory.find(orgId, videoId);
    if (!video.engines.some((engine) => familyOfEngine(engine) === 'pegasus')) {
      throw new ApiError(
        'engine_not_supported',
        `The video ${videoId} is in index ${video.indexId}, which has no generative engine. Text generation needs an index with a Pegasus engine (pegasus1.1, pegasus1.2).`,
      );
    }
    return cache.get(`${orgId}/${video.id}@${video.version}`, async () => assembleTimeline(await deps.directory.evidence(orgId, video)));
  }

  async function record(
    orgId: string,
    timeline: Timeline,
    fields: Pick<GenerationRecord, 'id' | 'kind' | 'prompt' | 'output' | 'outputTokens' | 'finishReason' | 'status'>,
    billedSeconds = timeline.duration,
  ) {
    const generation: GenerationRecord = {
      ...fields,
      orgId,
      videoId: timeline.videoId,
      indexId: timeline.indexId,
      provider: deps.provider.name,
      createdAt: deps.clock.now(),
    };
    await deps.store.record(generation, generationUsage(generation, billedSeconds));
    deps.logger.info(
      {
        generationId: generation.id,
        kind: generation.kind,
        provider: generation.provider,
        outputTokens: generation.outputTokens,
        status: generation.status,
      },
      'generation recorded',
    );
  }

  /** The answer's pieces, or the filled schema as one JSON text. */
  async function* pieces(
    timeline: Timeline,
    prompt: string,
    schema: ResponseSchema | undefined,
    settings: GenerationSettings & { usage?: (outputTokens: number) => void },
  ): AsyncIterable<string> {
    if (!schema) {
      yield* deps.provider.answer(timeline, prompt, settings);
      return;
    }
    const value = await deps.provider.fillSchema(timeline, prompt, schema.schema, settings);
    schema.check(value);
    yield JSON.stringify(value);
  }

  const service = {
    async gist(orgId: string, videoId: string, types: readonly string[]) {
      if (types.length === 0) throw errors.notProvided('types');
      const unknown = types.find((t) => !(GIST_TYPES as readonly string[]).includes(t));
      if (unknown !== undefined) throw errors.invalid('types', `${unknown} is not one of ${GIST_TYPES.join(', ')}.`);
      const timeline = await timelineOf(orgId, videoId);
      const { outputTokens: counted, ...gist } = await deps.provider.gist(timeline, [...new Set(types)] as GistType[]);
      const id = randomUUID();
      const outputTokens = counted ?? countTokens(textOf(gist));
      await record(orgId, timeline, {
        id,
        kind: 'gist',
        prompt: '',
        output: JSON.stringify(gist),
        outputTokens,
        finishReason: 'stop',
        status: 'completed',
      });
      return { id, gist, outputTokens };
    },

    async summarize(orgId: string, videoId: string, type: string, prompt: string, options: GenerationOptions) {
      if (!type) throw errors.notProvided('type');
      if (!(SUMMARIZE_TYPES as readonly string[]).includes(type))
        throw errors.invalid('type', `It must be one of ${SUMMARIZE_TYPES.join(', ')}.`);
      const steering = checkPrompt(prompt, false);
      const { maxTokens, temperature, schema } = checkOptions(options);
      if (schema && type !== 'summary') throw errors.invalid('response_format', 'A JSON schema applies to summaries of type summary.');
      const timeline = await timelineOf(orgId, videoId);
      const settings = { temperature, maxTokens };
      let produced: Counted<Summary>;
      if (schema) {
        const value = await deps.provider.fillSchema(timeline, steering, schema.schema, settings);
        schema.check(value);
        produced = { type: 'summary', summary: JSON.stringify(value) };
      } else {
        produced = await deps.provider.summarize(timeline, type as SummarizeType, steering, settings);
      }
      const { summary, finishReason } = limitSummary(produced, maxTokens);
      const id = randomUUID();
      // The provider's own count, unless this server cut its answer.
      const outputTokens = (finishReason === 'stop' ? produced.outputTokens : undefined) ?? countTokens(textOf(summary));
      await record(orgId, timeline, {
        id,
        kind: summary.type,
        prompt: steering,
        output: JSON.stringify(summary),
        outputTokens,
        finishReason,
        status: 'completed',
      });
      return { id, summary, outputTokens, finishReason };
    },

    /**
     * An open prompt, as events: start, the answer's pieces as they are produced (cut at
     * max_tokens), end. Aborting `signal` (the caller went away) stops generation; the record keeps
     * what was produced.
     */
    async *analyze(
      orgId: string,
      videoId: string,
      prompt: string,
      options: GenerationOptions,
      signal?: AbortSignal,
    ): AsyncIterable<StreamEvent> {
      const asked = checkPrompt(prompt, true);
      const { maxTokens, temperature, schema } = checkOptions(options);
      const { timeline, seconds } = clipped(await timelineOf(orgId, videoId), options.window);
      const id = randomUUID();
      let output = '';
      let outputTokens = 0;
      let finishReason: 'stop' | 'length' = 'stop';
      // Until it ends or fails: a consumer that stops reading (the caller went away) cancelled it.
      let status: GenerationStatus = 'cancelled';
      try {
        yield { type: 'start', generationId: id };
        let reported: number | undefined;
        const settings = { temperature, maxTokens, signal, usage: (tokens: number) => (reported = tokens) };
        // What is written, counted as one text: a word split across pieces costs what it costs whole.
        const written = new TokenTally();
        for await (const piece of untilAborted(pieces(timeline, asked, schema, settings), signal)) {
          const cut = written.take(piece, maxTokens);
          outputTokens = written.total;
          if (cut.text.length > 0) {
            output += cut.text;
            yield { type: 'text', text: cut.text, outputTokens };
          }
          if (cut.truncated) {
            finishReason = 'length';
            break;
          }
        }
        // A model server's own count of a whole answer; this server's when it cut the answer.
        if (finishReason === 'stop' && reported !== undefined) outputTokens = reported;
        if (!signal?.aborted) {
          status = 'completed';
          yield { type: 'end', finishReason, outputTokens };
        }
      } catch (error) {
        status = 'failed';
        throw error;
      } finally {
        await record(
          orgId,
          timeline,
          {
            id,
            kind: 'analyze',
            prompt: asked,
            output,
            outputTokens,
            finishReason: status === 'completed' ? finishReason : '',
            status,
          },
          seconds,
        ).catch((error: unknown) => deps.logger.error({ err: error, generationId: id }, 'could not record the generation'));
      }
    },

    /**
     * One asynchronous analysis task: general analysis is the open prompt above (at most
     * MAX_OUTPUT_TOKENS generated, whatever larger max_tokens the task allows), the segmentation
     * mode fills its segment definitions (segments.ts). Metered like /analyze: the generation's
     * output tokens and the seconds of video it read.
     */
    async runTask(orgId: string, spec: TaskSpec, signal?: AbortSignal): Promise<TaskOutput> {
      const window = { start: spec.startTime, end: spec.endTime };
      const limit = maxTokensOf(spec.analysisMode, spec.maxTokens);
      const whole = await timelineOf(orgId, spec.videoId);
      if (spec.analysisMode === 'general') {
        const out: TaskOutput = { generationId: '', data: '', finishReason: 'stop', outputTokens: 0, videoDuration: whole.duration };
        const options = {
          temperature: spec.temperature,
          maxTokens: Math.min(limit, MAX_OUTPUT_TOKENS),
          jsonSchema: spec.jsonSchema,
          window,
        };
        for await (const event of service.analyze(orgId, spec.videoId, spec.prompt, options, signal)) {
          if (event.type === 'start') out.generationId = event.generationId;
          else if (event.type === 'text') out.data += event.text;
          else Object.assign(out, { finishReason: event.finishReason, outputTokens: event.outputTokens });
        }
        return out;
      }
      const { seconds } = clipped(whole, window);
      const id = randomUUID();
      const settings = { temperature: spec.temperature, signal };
      const segments = await segmentVideo(whole, spec, (part, prompt, schema) => deps.provider.fillSchema(part, prompt, schema, settings));
      const cut = truncateToTokens(JSON.stringify(segments), limit);
      const outputTokens = countTokens(cut.text);
      const finishReason = cut.truncated ? 'length' : 'stop';
      await record(
        orgId,
        whole,
        { id, kind: 'analyze', prompt: '', output: cut.text, outputTokens, finishReason, status: 'completed' },
        seconds,
      );
      return { generationId: id, data: cut.text, finishReason, outputTokens, videoDuration: whole.duration };
    },
  };
  return service;
}

export type AnalyzeService = ReturnType<typeof createAnalyzeService>;
