import { createIndexClient, createSearchClient } from '@vus/clients';
import { envAddress } from '@vus/core';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { openWordNet } from '@vus/wordnet';
import { join } from 'node:path';
import { createAnalyzeService } from './analyze';
import { serviceDirectory } from './directory';
import { ExtractiveProvider } from './extractive';
import type { GenerationProvider } from './provider';
import { analyzeServiceImplementation } from './server';
import { createGenerationStore } from './store';

export interface AnalyzeServiceOptions {
  /** index-service: videos, their indexes' engines and artifacts. */
  indexServiceAddress: string;
  /** search-service: the visual segments (shots and labels). */
  searchServiceAddress: string;
  /** Default: the bundled extractive provider. */
  provider?: GenerationProvider | undefined;
}

/** Gist, summaries, chapters, highlights and open prompts from a video's evidence; generation records. */
export const analyzeService = defineService({
  name: 'analyze-service',
  migrations: join(__dirname, '..', 'migrations'),
  env: { INDEX_SERVICE_ADDR: envAddress, SEARCH_SERVICE_ADDR: envAddress },
  fromEnv: (config): AnalyzeServiceOptions => ({ indexServiceAddress: config.INDEX_SERVICE_ADDR, searchServiceAddress: config.SEARCH_SERVICE_ADDR }),
  async build(scope, options: AnalyzeServiceOptions) {
    const { db, clock, logger } = scope;
    const index = createIndexClient(options.indexServiceAddress);
    const search = createSearchClient(options.searchServiceAddress);
    const wordnet = openWordNet();
    scope.onStop(() => (index.close(), search.close(), wordnet.close()));
    const provider = options.provider ?? new ExtractiveProvider(wordnet);
    logger.info({ provider: provider.name }, 'generation provider');
    const analyze = createAnalyzeService({ directory: serviceDirectory(index, search), store: createGenerationStore(db), provider, clock, logger });
    return { implementation: analyzeServiceImplementation(analyze, logger) };
  },
});

export type RunningAnalyzeService = RunningService;
export const startAnalyzeService = (options: KitOptions & AnalyzeServiceOptions): Promise<RunningAnalyzeService> => startService(analyzeService, options);

export type { GenerationProvider } from './provider';
export { ExtractiveProvider } from './extractive';

if (require.main === module) runService(analyzeService);
