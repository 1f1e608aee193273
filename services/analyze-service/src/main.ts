import { createIndexClient, createSearchClient } from '@vus/clients';
import { JOBS_MIGRATIONS } from '@vus/jobs';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { createAnalyzeService } from './analyze';
import { asyncAnalysisWithJobs } from './async';
import { asyncAnalysisImplementation } from './async-server';
import { serviceDirectory } from './directory';
import { analyzeEnvShape, analyzeOptionsFromEnv, type AnalyzeServiceOptions } from './env';
import { chooseProvider } from './provider-choice';
import { serviceResponses } from './responses/library';
import { analyzeServiceImplementation } from './server';
import { createGenerationStore } from './store';

/** Gist, summaries, chapters, highlights and open prompts from a video's evidence; generation records. */
export const analyzeService = defineService({
  name: 'analyze-service',
  migrations: join(__dirname, '..', 'migrations'),
  // Analysis tasks (/analyze/tasks, /analyze/batches) run as jobs of the job queue.
  libraryMigrations: [JOBS_MIGRATIONS],
  // Each generation's and response's usage (output tokens, the video's minutes) is a usage.recorded event; each analysis task's end an analyze-task.status-changed.
  outbox: true,
  env: analyzeEnvShape,
  fromEnv: analyzeOptionsFromEnv,
  async build(scope, options: AnalyzeServiceOptions) {
    const { db, clock, logger, eventsWritten } = scope;
    const index = createIndexClient(options.indexServiceAddress);
    const search = createSearchClient(options.searchServiceAddress);
    const generation = chooseProvider(options, logger);
    scope.onStop(() => (index.close(), search.close(), generation.close()));
    const shared = { provider: generation.provider, clock, logger };
    const store = createGenerationStore(db, eventsWritten);
    const analyze = createAnalyzeService({ directory: serviceDirectory(index, search), store, ...shared });
    const { asyncAnalysis, jobs } = asyncAnalysisWithJobs({ db, analyze, clock, logger, eventsWritten, pollMs: options.taskPollMs });
    const handlers = analyzeServiceImplementation(analyze, serviceResponses({ db, eventsWritten, index, search, ...shared }), logger);
    return { implementation: { ...handlers, ...asyncAnalysisImplementation(asyncAnalysis, logger) }, jobs };
  },
});

export type RunningAnalyzeService = RunningService;
export const startAnalyzeService = (options: KitOptions & AnalyzeServiceOptions): Promise<RunningAnalyzeService> =>
  startService(analyzeService, options);

export type { AnalyzeServiceOptions } from './env';
export type { GenerationProvider } from './provider';
export { createBundledProvider, ExtractiveProvider } from './extractive';
export { assembleTimeline } from './evidence';
// The budgets a hostile response_format meets, for suites that watch them (the gateway's fuzz).
export { FILL_LIMITS, fillSchema, noFillUsage, type FillUsage } from './schema-fill';
export { CHECK_LIMITS, compileResponseSchema } from './response-format';
export { PATTERN_LIMITS } from './linear-regexp';

if (require.main === module) runService(analyzeService);
