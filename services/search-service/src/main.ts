import { createIndexClient } from '@vus/clients';
import { createLogger, envAddress, envBoolean, loadConfig, logLevel, runMain, systemClock, type Clock, type Logger } from '@vus/core';
import { Database, migrate, type DatabaseTarget } from '@vus/db';
import { EVENTS_MIGRATIONS, handleOnce, isVideoDeleted, kafkaBusFromBrokers, type EventBus, type SubscriptionHandle } from '@vus/events';
import { DEFAULT_FETCH_POLICY, fetchBytes } from '@vus/fetch';
import { loadProto, SEARCH_SERVICE_NAME, startGrpcServer, watchReadiness } from '@vus/grpc';
import { createModelRegistry, modelsConfigFromEnv, modelsEnvSchema, type ModelRegistry } from '@vus/models';
import { join } from 'node:path';
import { z } from 'zod';
import { createCombinedSearch } from './combined-search';
import { expandQuery, labelTerms } from './expansion';
import { indexDirectory } from './index-directory';
import { createIngest } from './ingest';
import { createSearch, QUERY_IMAGE_MAX_BYTES, type QueryModels } from './search';
import { searchServiceImplementation } from './server';
import { createSegmentStore } from './store';
import { openWordNet } from './wordnet';

export const MIGRATIONS = { dir: join(__dirname, '..', 'migrations'), table: 'pgmigrations' };

/** The consumer group (and handled-events name) of search-service. */
export const SEARCH_CONSUMER = 'search-service';

/** The vector model name the indexing worker writes CLIP vectors under. */
export const VISUAL_VECTOR_MODEL = 'clip';

export interface SearchServiceOptions {
  /** host:port to listen on; port 0 picks a free one. */
  bind: string;
  database: DatabaseTarget;
  indexServiceAddress: string;
  /** `video.deleted` drops the video's segments; without a bus they stay until re-ingested or the index's segments are deleted. */
  bus?: EventBus | undefined;
  /** CLIP (text and image queries) and the object detector (image queries without CLIP), when present. */
  models?: ModelRegistry | undefined;
  logger: Logger;
  clock?: Clock;
  migrateOnStart?: boolean;
  /** How long result pages stay readable (the real API: about an hour). */
  pageTtlSeconds?: number;
  /** Hosts a query_media_url may reach even on private addresses (tests serve images on 127.0.0.1). */
  fetchAllowHosts?: readonly string[];
}

export interface RunningSearchService {
  address: string;
  stop(): Promise<void>;
}

const PURGE_EVERY_MS = 10 * 60 * 1000;
/** Expired sets are kept a day, so an old token reads "expired" rather than "unknown". */
const KEEP_EXPIRED_MS = 24 * 3600 * 1000;

export async function startSearchService(options: SearchServiceOptions): Promise<RunningSearchService> {
  const { logger, clock = systemClock } = options;
  const db = await Database.open(options.database);
  if (options.migrateOnStart ?? true) {
    await migrate(db, EVENTS_MIGRATIONS);
    await migrate(db, MIGRATIONS);
  }
  const store = createSegmentStore(db);
  if (!(await store.vectorsEnabled())) logger.warn('PostgreSQL has no pgvector: search-service stores no vectors and searches text only');

  const wordnet = openWordNet();
  const indexClient = createIndexClient(options.indexServiceAddress);
  const models = options.models;
  const queryModels: QueryModels = {
    async embedder() {
      const embedder = await models?.find('visual_embedder');
      return embedder && { model: VISUAL_VECTOR_MODEL, embedder };
    },
    detector: async () => models?.find('object_detector'),
  };
  const search = createSearch({
    store,
    indexes: indexDirectory(indexClient),
    expand: (text) => expandQuery(text, wordnet),
    models: queryModels,
    clock,
    logger,
    pageTtlMs: (options.pageTtlSeconds ?? 3600) * 1000,
  });
  const ingest = createIngest({ store, labelTerms: (label) => labelTerms(label, wordnet), logger });
  const fetchPolicy = { ...DEFAULT_FETCH_POLICY, allowHosts: options.fetchAllowHosts ?? [], maxBytes: QUERY_IMAGE_MAX_BYTES, idleTimeoutMs: 10_000 };

  const server = await startGrpcServer({
    bind: options.bind,
    logger,
    services: [
      {
        name: SEARCH_SERVICE_NAME,
        definition: loadProto().proto.vus.search.v1.SearchService.service,
        implementation: searchServiceImplementation(
          { ingest, search, combined: createCombinedSearch(search), fetchImage: (url) => fetchBytes(url, 'query_media_url', fetchPolicy) },
          logger,
        ),
      },
    ],
  });
  const stopWatching = watchReadiness(server, () => db.ping());

  let deletions: SubscriptionHandle | undefined;
  if (options.bus) {
    deletions = await options.bus.subscribe({
      group: SEARCH_CONSUMER,
      types: ['video.deleted'],
      handler: handleOnce(db, SEARCH_CONSUMER, async (event, tx) => {
        if (!event.org_id || !isVideoDeleted(event.payload)) return 'skipped';
        await store.deleteVideo(event.org_id, event.payload.index_id, event.payload.video_id, tx);
        return 'done';
      }),
    });
  }
  const purge = setInterval(() => {
    store.purgeResultSets(new Date(clock.now().getTime() - KEEP_EXPIRED_MS)).catch((error: unknown) => logger.warn({ err: error }, 'purging result sets failed'));
  }, PURGE_EVERY_MS);
  purge.unref();

  return {
    address: server.address,
    async stop() {
      clearInterval(purge);
      stopWatching();
      await deletions?.stop();
      await server.stop();
      indexClient.close();
      wordnet.close();
      await db.close();
    },
  };
}

const configSchema = z.object({
  ...modelsEnvSchema.shape,
  GRPC_BIND: z.string().default('0.0.0.0:50053'),
  /** PostgreSQL with pgvector for vector search (text search works without it). */
  DATABASE_URL: z.string().url(),
  MIGRATE_ON_START: envBoolean.default(true),
  INDEX_SERVICE_ADDR: envAddress,
  /** host:port[,host:port] of the Kafka brokers; unset: deleted videos' segments are not dropped. */
  KAFKA_BROKERS: z.string().optional(),
  SEARCH_PAGE_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 24 * 3600).default(3600),
  LOG_LEVEL: logLevel,
});

/** Cluster mode: one process, configured from the environment (the Helm chart's form). */
if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(configSchema);
    const logger = createLogger({ service: 'search-service', level: config.LOG_LEVEL });
    const bus = kafkaBusFromBrokers(config.KAFKA_BROKERS, 'search-service', logger);
    const service = await startSearchService({
      bind: config.GRPC_BIND,
      database: { kind: 'postgres', url: config.DATABASE_URL },
      indexServiceAddress: config.INDEX_SERVICE_ADDR,
      bus,
      models: createModelRegistry(modelsConfigFromEnv(config)),
      logger,
      migrateOnStart: config.MIGRATE_ON_START,
      pageTtlSeconds: config.SEARCH_PAGE_TTL_SECONDS,
    });
    return {
      async stop() {
        await service.stop();
        await bus?.close();
      },
    };
  });
}
