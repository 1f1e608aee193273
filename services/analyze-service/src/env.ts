import { envAddress } from '@vus/core';
import { z } from 'zod';
import type { OpenAICompatibleOptions } from './openai';
import type { GenerationProvider } from './provider';

/**
 * analyze-service's environment beside the kit's. ANALYZE_PROVIDER picks the generation provider
 * for the deployment: `extractive` (bundled, no model) or `openai` (any OpenAI-compatible
 * chat-completions server at LLM_BASE_URL, e.g. http://vllm:8000/v1).
 */
export const analyzeEnvShape = {
  INDEX_SERVICE_ADDR: envAddress,
  SEARCH_SERVICE_ADDR: envAddress,
  ANALYZE_PROVIDER: z.enum(['extractive', 'openai']).default('extractive'),
  LLM_BASE_URL: z.string().url().optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
};

export function analyzeOptionsFromEnv(config: z.infer<z.ZodObject<typeof analyzeEnvShape>>): AnalyzeServiceOptions {
  const base = { indexServiceAddress: config.INDEX_SERVICE_ADDR, searchServiceAddress: config.SEARCH_SERVICE_ADDR };
  if (config.ANALYZE_PROVIDER === 'extractive') return base;
  if (!config.LLM_BASE_URL || !config.LLM_MODEL) throw new Error('ANALYZE_PROVIDER=openai needs LLM_BASE_URL and LLM_MODEL');
  return {
    ...base,
    llm: { baseUrl: config.LLM_BASE_URL, model: config.LLM_MODEL, apiKey: config.LLM_API_KEY, timeoutMs: config.LLM_TIMEOUT_MS },
  };
}

export interface AnalyzeServiceOptions {
  /** index-service: videos, their indexes' engines and artifacts. */
  indexServiceAddress: string;
  /** search-service: the visual segments (shots and labels). */
  searchServiceAddress: string;
  /** An OpenAI-compatible chat-completions server to generate with; unset: the bundled extractive provider. */
  llm?: Omit<OpenAICompatibleOptions, 'logger'> | undefined;
  /** A provider object (tests); wins over `llm`. */
  provider?: GenerationProvider | undefined;
  /** How often the analysis task runner looks for work without being woken (tests shorten it). */
  taskPollMs?: number | undefined;
}
