/**
 * A provider for users who run a model: any OpenAI-compatible chat-completions server (vLLM,
 * Ollama, llama.cpp server, LM Studio), configured by URL, model and key. The video's evidence
 * timeline goes into the system prompt with the instruction to state only what it holds; answers
 * stream as server-sent chunks; JSON answers ask the server for `response_format: json_schema`
 * (and are still validated by the caller); usage is the server's.
 */
import { ApiError, type Logger } from '@vus/core';
import { HttpTimeout, send, type OutboundResponse } from '@vus/fetch';
import { z } from 'zod';
import { mergeRepeats, type Timeline } from './evidence';
import type { Counted, GenerationProvider, GenerationSettings, Gist, GistType, Summary, SummarizeType } from './provider';
import { groundedMessages, type Grounding } from './responses/grounding';
import { clock } from './text';

export interface OpenAICompatibleOptions {
  /** The API root, e.g. http://localhost:8000/v1 (…/chat/completions is appended). */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** The longest a model may take to start answering, and to send its next chunk. */
  timeoutMs?: number | undefined;
  logger: Logger;
}

/** Evidence lines beyond this are left out of the prompt (a long video's timeline would not fit a context). */
export const MAX_EVIDENCE_LINES = 400;

const KIND_LABEL = { speech: 'said', text: 'on-screen text', label: 'seen', logo: 'logo', metadata: 'metadata' } as const;

/** The timeline as the model reads it: one line per piece of evidence (repeats merged), with its time span. */
export function renderEvidence(timeline: Timeline): string {
  const items = mergeRepeats(timeline.items);
  const lines = items.slice(0, MAX_EVIDENCE_LINES).map((e) => `[${clock(e.start)}-${clock(e.end)}] ${KIND_LABEL[e.kind]}: ${e.text}`);
  const cut = items.length > MAX_EVIDENCE_LINES ? `\n(${items.length - MAX_EVIDENCE_LINES} more lines left out)` : '';
  return `Video "${timeline.title}", ${clock(timeline.duration)} long. Evidence found by indexing:\n${lines.join('\n')}${cut}`;
}

const SYSTEM = `You describe one video using only the evidence listed below: what was said, on-screen text, objects seen, logos and metadata, each with its time span.
Never describe anything the evidence does not contain. When asked about something the evidence does not show, say that the video does not show or mention it.
Give times as m:ss.`;

const chatResponse = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }), finish_reason: z.string().nullish() })).min(1),
  usage: z.object({ completion_tokens: z.number() }).nullish(),
});
const chunk = z.object({
  choices: z.array(z.object({ delta: z.object({ content: z.string().nullish() }).nullish() })).nullish(),
  usage: z.object({ completion_tokens: z.number() }).nullish(),
});

const gistShape = z.object({ title: z.string(), topics: z.array(z.string()), hashtags: z.array(z.string()) });
const chaptersShape = z.object({
  chapters: z.array(z.object({ start: z.number(), end: z.number(), title: z.string(), summary: z.string() })),
});
const highlightsShape = z.object({
  highlights: z.array(z.object({ start: z.number(), end: z.number(), highlight: z.string(), summary: z.string() })),
});

const GIST_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    topics: { type: 'array', items: { type: 'string' } },
    hashtags: { type: 'array', items: { type: 'string' } },
  },
  required: ['title', 'topics', 'hashtags'],
};
const span = { start: { type: 'number' }, end: { type: 'number' } };
const CHAPTERS_SCHEMA = {
  type: 'object',
  properties: {
    chapters: {
      type: 'array',
      items: {
        type: 'object',
        properties: { ...span, title: { type: 'string' }, summary: { type: 'string' } },
        required: ['start', 'end', 'title', 'summary'],
      },
    },
  },
  required: ['chapters'],
};
const HIGHLIGHTS_SCHEMA = {
  type: 'object',
  properties: {
    highlights: {
      type: 'array',
      items: {
        type: 'object',
        properties: { ...span, highlight: { type: 'string' }, summary: { type: 'string' } },
        required: ['start', 'end', 'highlight', 'summary'],
      },
    },
  },
  required: ['highlights'],
};

type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

interface Completion {
  content: string;
  outputTokens: number | undefined;
}

/** The model server failed us: retryable for the caller, with no host or detail in the message. */
const unavailable = (why: string) => new ApiError('model_unavailable', `The text generation model could not answer (${why}).`);

export class OpenAICompatibleProvider implements GenerationProvider {
  readonly name: string;
  private readonly url: URL;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`);
    this.name = `openai-compatible:${options.model}`;
  }

  async gist(timeline: Timeline, types: readonly GistType[], settings?: GenerationSettings): Promise<Counted<Gist>> {
    const asked =
      'Give a short title for the video, up to three topics (broad categories of what is shown and said) and up to five hashtags (single words, no #).';
    const { value, outputTokens } = await this.json(timeline, asked, GIST_SCHEMA, gistShape, settings);
    return {
      ...(types.includes('title') ? { title: value.title } : {}),
      ...(types.includes('topic') ? { topics: value.topics } : {}),
      ...(types.includes('hashtag') ? { hashtags: value.hashtags.map((h) => h.replace(/^#/, '')) } : {}),
      outputTokens,
    };
  }

  async summarize(timeline: Timeline, type: SummarizeType, prompt: string, settings?: GenerationSettings): Promise<Counted<Summary>> {
    const steering = prompt ? `\n${prompt}` : '';
    if (type === 'summary') {
      const { content, outputTokens } = await this.complete(timeline, `Summarize the video in plain sentences.${steering}`, settings);
      return { type, summary: content.trim(), outputTokens };
    }
    if (type === 'chapter') {
      const asked = `Divide the video into chapters (start and end in seconds, a title, a one-sentence summary), covering it in order.${steering}`;
      const { value, outputTokens } = await this.json(timeline, asked, CHAPTERS_SCHEMA, chaptersShape, settings);
      return {
        type,
        chapters: value.chapters.map((c, i) => ({ chapterNumber: i, start: c.start, end: c.end, title: c.title, summary: c.summary })),
        outputTokens,
      };
    }
    const asked = `List the most important moments (start and end in seconds, a short headline, a one-sentence summary).${steering}`;
    const { value, outputTokens } = await this.json(timeline, asked, HIGHLIGHTS_SCHEMA, highlightsShape, settings);
    return {
      type,
      highlights: value.highlights.map((h) => {
        const start = Math.max(0, Math.floor(h.start));
        return { start, end: Math.max(start + 1, Math.ceil(h.end)), highlight: h.highlight, summary: h.summary };
      }),
      outputTokens,
    };
  }

  answer(
    timeline: Timeline,
    prompt: string,
    settings?: GenerationSettings & { usage?: (outputTokens: number) => void },
  ): AsyncIterable<string> {
    return this.stream(this.messagesOf(timeline, prompt), settings);
  }

  respond(grounding: Grounding, settings?: GenerationSettings & { usage?: (outputTokens: number) => void }): AsyncIterable<string> {
    return this.stream(groundedMessages(grounding), settings);
  }

  async fillSchemaOver(grounding: Grounding, schema: object, settings?: GenerationSettings): Promise<unknown> {
    const { content } = await this.completeChat(groundedMessages(grounding), settings, {
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    try {
      return JSON.parse(content) as unknown;
    } catch {
      throw unavailable('its answer is not JSON');
    }
  }

  /** A chat's answer as the server streams it (server-sent chunks), piece by piece. */
  private async *stream(messages: ChatMessage[], settings?: GenerationSettings & { usage?: (outputTokens: number) => void }) {
    const response = await this.post(
      this.body(messages, settings, { stream: true, stream_options: { include_usage: true } }),
      settings?.signal,
    );
    let buffered = '';
    try {
      for await (const data of response.body as AsyncIterable<Buffer>) {
        buffered += data.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          const payload = line.startsWith('data:') ? line.slice(5).trim() : '';
          if (!payload || payload === '[DONE]') continue;
          const parsed = chunk.safeParse(JSON.parse(payload));
          if (!parsed.success) throw unavailable('an unreadable stream chunk');
          if (parsed.data.usage) settings?.usage?.(parsed.data.usage.completion_tokens);
          const text = parsed.data.choices?.[0]?.delta?.content;
          if (text) yield text;
        }
      }
    } catch (error) {
      if (settings?.signal?.aborted) return;
      throw error instanceof ApiError ? error : this.failure(response.explain(error));
    } finally {
      response.body.destroy();
    }
  }

  async fillSchema(timeline: Timeline, prompt: string, schema: object, settings?: GenerationSettings): Promise<unknown> {
    const { content } = await this.complete(timeline, prompt, settings, {
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    try {
      return JSON.parse(content) as unknown;
    } catch {
      throw unavailable('its answer is not JSON');
    }
  }

  /** One video's evidence as the system message, the prompt as the user's. */
  private messagesOf(timeline: Timeline, prompt: string): ChatMessage[] {
    return [
      { role: 'system', content: `${SYSTEM}\n\n${renderEvidence(timeline)}` },
      { role: 'user', content: prompt },
    ];
  }

  private body(messages: ChatMessage[], settings: GenerationSettings | undefined, extra: object): string {
    return JSON.stringify({
      model: this.options.model,
      messages,
      temperature: settings?.temperature ?? 0.2,
      ...(settings?.maxTokens ? { max_tokens: settings.maxTokens } : {}),
      ...extra,
    });
  }

  private async json<S extends z.ZodType>(
    timeline: Timeline,
    asked: string,
    schema: object,
    shape: S,
    settings?: GenerationSettings,
  ): Promise<{ value: z.infer<S>; outputTokens: number | undefined }> {
    const { content, outputTokens } = await this.complete(timeline, asked, settings, {
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      throw unavailable('its answer is not JSON');
    }
    const checked = shape.safeParse(parsed);
    if (!checked.success) throw unavailable('its answer does not have the asked shape');
    return { value: checked.data, outputTokens };
  }

  private complete(timeline: Timeline, prompt: string, settings: GenerationSettings | undefined, extra: object = {}): Promise<Completion> {
    return this.completeChat(this.messagesOf(timeline, prompt), settings, extra);
  }

  private async completeChat(messages: ChatMessage[], settings: GenerationSettings | undefined, extra: object = {}): Promise<Completion> {
    const response = await this.post(this.body(messages, settings, extra), settings?.signal);
    let text = '';
    try {
      for await (const data of response.body as AsyncIterable<Buffer>) text += data.toString('utf8');
    } catch (error) {
      throw this.failure(response.explain(error));
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw unavailable('an answer that is not JSON');
    }
    const parsed = chatResponse.safeParse(json);
    if (!parsed.success) throw unavailable('an answer that is not a chat completion');
    return { content: parsed.data.choices[0]!.message.content ?? '', outputTokens: parsed.data.usage?.completion_tokens };
  }

  private async post(body: string, signal: AbortSignal | undefined): Promise<OutboundResponse> {
    const timeoutMs = this.options.timeoutMs ?? 60_000;
    let response: OutboundResponse;
    try {
      response = await send({
        url: this.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body,
        // The operator's own server: no address rules.
        deadlines: { connectMs: 10_000, idleMs: timeoutMs },
        signal,
      });
    } catch (error) {
      throw this.failure(error);
    }
    if (response.status < 200 || response.status > 299) {
      response.body.destroy();
      this.options.logger.warn({ status: response.status, model: this.options.model }, 'the model server refused a generation');
      throw unavailable(`the model server answered ${response.status}`);
    }
    return response;
  }

  private failure(error: unknown): ApiError {
    this.options.logger.warn({ err: error, model: this.options.model }, 'the model server could not be reached');
    return unavailable(error instanceof HttpTimeout ? 'no answer in time' : 'the model server could not be reached');
  }
}
