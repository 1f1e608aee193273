import { createIndexClient, createSearchClient } from '@vus/clients';
import { defineService, purgeResultSetsJob, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { createClassify } from './classify';
import { serviceDirectory } from './directory';
import { classifyEnvShape, classifyOptionsFromEnv, type ClassifyServiceOptions } from './env';
import { classifyServiceImplementation } from './server';
import { createResultSetStore } from './store';

/** Classification of videos and whole indexes into classes of prompts; its result pages. */
export const classifyService = defineService({
  name: 'classify-service',
  migrations: join(__dirname, '..', 'migrations'),
  env: classifyEnvShape,
  fromEnv: classifyOptionsFromEnv,
  async build({ db, clock, logger, onStop }, options: ClassifyServiceOptions) {
    const index = createIndexClient(options.indexServiceAddress);
    const search = createSearchClient(options.searchServiceAddress);
    onStop(() => (index.close(), search.close()));
    const store = createResultSetStore(db);
    const classify = createClassify({
      directory: serviceDirectory(index, search),
      store,
      clock,
      pageTtlMs: (options.pageTtlSeconds ?? 3600) * 1000,
    });
    return {
      implementation: classifyServiceImplementation(classify, logger),
      jobs: [purgeResultSetsJob(store, clock, logger)],
    };
  },
});

export type { ClassifyServiceOptions } from './env';
export type RunningClassifyService = RunningService;
export const startClassifyService = (options: KitOptions & ClassifyServiceOptions): Promise<RunningClassifyService> =>
  startService(classifyService, options);

if (require.main === module) runService(classifyService);
