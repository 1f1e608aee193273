/**
 * What a generation provider does with a video's evidence. The bundled extractive provider
 * (extractive.ts) needs no model; an LLM provider would turn the same timeline into a prompt.
 */
import type { Timeline } from './evidence';
import type { Grounding } from './responses/grounding';

export const GIST_TYPES = ['title', 'topic', 'hashtag'] as const;
export type GistType = (typeof GIST_TYPES)[number];

export const SUMMARIZE_TYPES = ['summary', 'chapter', 'highlight'] as const;
export type SummarizeType = (typeof SUMMARIZE_TYPES)[number];

export interface Gist {
  title?: string;
  topics?: string[];
  hashtags?: string[];
}

export interface Chapter {
  /** 0-based, as the real API numbers them. */
  chapterNumber: number;
  start: number;
  end: number;
  title: string;
  summary: string;
}

/** Whole seconds (py 0.2 types them as int). */
export interface Highlight {
  start: number;
  end: number;
  highlight: string;
  summary: string;
}

export type Summary =
  { type: 'summary'; summary: string } | { type: 'chapter'; chapters: Chapter[] } | { type: 'highlight'; highlights: Highlight[] };

/** What a generation asks of a provider beside its evidence and prompt. */
export interface GenerationSettings {
  /** 0..1 (default 0.2); the extractive provider is deterministic and ignores it. */
  temperature?: number | undefined;
  /** The most output tokens wanted (the caller cuts the answer there too). */
  maxTokens?: number | undefined;
  /** Aborts when the caller has gone: a provider waiting on a model stops there. */
  signal?: AbortSignal | undefined;
}

/**
 * A result with the output tokens its provider counted (a model server's own usage); without
 * them the caller counts the text (@vus/core countTokens).
 */
export type Counted<T> = T & { outputTokens?: number | undefined };

export interface GenerationProvider {
  /** Logged with every generation and kept in its record. */
  readonly name: string;
  gist(timeline: Timeline, types: readonly GistType[], settings?: GenerationSettings): Promise<Counted<Gist>>;
  /** `prompt` steers what is picked (may be empty). */
  summarize(timeline: Timeline, type: SummarizeType, prompt: string, settings?: GenerationSettings): Promise<Counted<Summary>>;
  /**
   * The answer to an open prompt in pieces, each yielded as soon as it is produced; `usage` is
   * called with the provider's own output token count when it has one.
   */
  answer(
    timeline: Timeline,
    prompt: string,
    settings?: GenerationSettings & { usage?: (outputTokens: number) => void },
  ): AsyncIterable<string>;
  /** A value for a JSON schema (checked by the caller with ajv before it is returned), filled from the evidence. */
  fillSchema(timeline: Timeline, prompt: string, schema: object, settings?: GenerationSettings): Promise<unknown>;
  /**
   * The answer to a conversation over a knowledge store (responses), in pieces as they are produced:
   * every statement from the grounding's numbered moments, cited as `[n]`.
   */
  respond(grounding: Grounding, settings?: GenerationSettings & { usage?: (outputTokens: number) => void }): AsyncIterable<string>;
  /** A value for a JSON schema (checked by the caller), filled from the grounding's moments. */
  fillSchemaOver(grounding: Grounding, schema: object, settings?: GenerationSettings): Promise<unknown>;
}
