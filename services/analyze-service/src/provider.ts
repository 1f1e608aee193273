/**
 * What a generation provider does with a video's evidence. The bundled extractive provider
 * (extractive.ts) needs no model; an LLM provider would turn the same timeline into a prompt.
 */
import type { Timeline } from './evidence';

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
  | { type: 'summary'; summary: string }
  | { type: 'chapter'; chapters: Chapter[] }
  | { type: 'highlight'; highlights: Highlight[] };

export interface GenerationProvider {
  /** Logged with every generation and kept in its record. */
  readonly name: string;
  gist(timeline: Timeline, types: readonly GistType[]): Promise<Gist>;
  /** `prompt` steers what is picked (may be empty). */
  summarize(timeline: Timeline, type: SummarizeType, prompt: string): Promise<Summary>;
  /**
   * The answer to an open prompt in pieces, each yielded as soon as it is produced. `signal` aborts
   * when the caller has gone: a provider waiting on a model stops there.
   */
  answer(timeline: Timeline, prompt: string, signal?: AbortSignal): AsyncIterable<string>;
  /** A value for a JSON schema (already compiled and checked by the caller), filled from the evidence. */
  fillSchema(timeline: Timeline, prompt: string, schema: object): Promise<unknown>;
}
