import type { Logger } from '@vus/core';
import { openWordNet } from '@vus/wordnet';
import type { AnalyzeServiceOptions } from './env';
import { createBundledProvider } from './extractive';
import { OpenAICompatibleProvider } from './openai';
import type { GenerationProvider } from './provider';

/**
 * The generation provider the options name: one given by a test, the OpenAI-compatible one when
 * LLM_* is set, else the bundled extractive one (on WordNet, whose indexes are read here, ≈ 0.3 s, at
 * start rather than in the first request), logged. `close` frees what it opened.
 */
export function chooseProvider(options: AnalyzeServiceOptions, logger: Logger): { provider: GenerationProvider; close(): void } {
  const chosen = providerOf(options, logger);
  logger.info({ provider: chosen.provider.name }, 'generation provider');
  return chosen;
}

function providerOf(options: AnalyzeServiceOptions, logger: Logger): { provider: GenerationProvider; close(): void } {
  if (options.provider) return { provider: options.provider, close: () => undefined };
  if (options.llm) return { provider: new OpenAICompatibleProvider({ ...options.llm, logger }), close: () => undefined };
  const wordnet = openWordNet();
  for (const pos of ['noun', 'verb'] as const) wordnet.indexEntry('video', pos);
  const bundled = createBundledProvider(wordnet);
  return { provider: bundled, close: () => (bundled.close(), wordnet.close()) };
}
