import { createEmbedClient, createIndexClient } from '@vus/clients';
import { defineService, purgeResultSetsJob, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { labelTerms, openWordNet } from '@vus/wordnet';
import { join } from 'node:path';
import { createCombinedSearch } from './combined-search';
import { segmentCleanup } from './deletions';
import { searchEnvShape, searchOptionsFromEnv, type SearchServiceOptions } from './env';
import { queryExpansion } from './expansion';
import { indexDirectory } from './index-directory';
import { createIngest } from './ingest';
import { queryImageFetcher, queryModels } from './query-models';
import { createSearch, entitySearchParts } from './search';
import { searchServiceImplementation } from './server';
import { createSearchStore } from './store';
import { createVideoSegmentReader } from './video-segments';

/** Searchable segments (pgvector + full text), single and combined search, result pages. */
export const searchService = defineService({
  name: 'search-service',
  migrations: join(__dirname, '..', 'migrations'),
  consumes: true,
  env: searchEnvShape,
  fromEnv: searchOptionsFromEnv,
  async build({ db, clock, logger, onStop }, options: SearchServiceOptions) {
    const store = createSearchStore(db, options, logger);
    if (!(await store.vectorsEnabled())) logger.warn('PostgreSQL has no pgvector: search-service stores no vectors and searches text only');
    const wordnet = openWordNet();
    const indexClient = createIndexClient(options.indexServiceAddress);
    const embedClient = options.embedServiceAddress ? createEmbedClient(options.embedServiceAddress) : undefined;
    onStop(() => (indexClient.close(), embedClient?.close(), wordnet.close()));
    const search = createSearch({
      store,
      indexes: indexDirectory(indexClient),
      ...queryExpansion(wordnet, logger, onStop),
      models: queryModels(embedClient, logger),
      clock,
      logger,
      pageTtlMs: (options.pageTtlSeconds ?? 3600) * 1000,
      entities: entitySearchParts(db, options.taskServiceAddress, onStop),
    });
    const ingest = createIngest({ store, labelTerms: (label) => labelTerms(label, wordnet), prepareSearch: search.prepare, logger });
    const fetchImage = queryImageFetcher(options.fetchAllowHosts);
    return {
      implementation: searchServiceImplementation(
        { ingest, search, combined: createCombinedSearch(search), segments: createVideoSegmentReader(db), fetchImage },
        logger,
      ),
      consumers: [segmentCleanup(db, store)],
      withoutBus: "no event bus: deleted videos' segments stay until re-ingested or their index's are deleted",
      jobs: [purgeResultSetsJob(store, clock, logger)],
    };
  },
});
export type { SearchServiceOptions } from './env';
export type RunningSearchService = RunningService;
export const startSearchService = (options: KitOptions & SearchServiceOptions): Promise<RunningSearchService> =>
  startService(searchService, options);

if (require.main === module) runService(searchService);
