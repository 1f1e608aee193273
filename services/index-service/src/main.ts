import { blobEnvShape, openBlobStore, type BlobStore } from '@vus/blob';
import { createLogger, envBoolean, isApiError, loadConfig, logLevel, runMain, systemClock, type Clock, type Logger } from '@vus/core';
import { Database, migrate, type DatabaseTarget } from '@vus/db';
import { EVENTS_MIGRATIONS, kafkaBusFromBrokers, startOutboxRelay, type EventBus } from '@vus/events';
import { INDEX_SERVICE_NAME, loadProto, startGrpcServer, watchReadiness } from '@vus/grpc';
import { join } from 'node:path';
import { z } from 'zod';
import { createIndexService } from './indexes';
import { indexServiceImplementation } from './server';
import { createIndexStore, createVideoStore } from './store';
import { createVideoService, type BlobReader } from './videos';

export const MIGRATIONS = { dir: join(__dirname, '..', 'migrations'), table: 'pgmigrations' };

export interface IndexServiceOptions {
  /** host:port to listen on; port 0 picks a free one. */
  bind: string;
  database: DatabaseTarget;
  /** Where committed events go; without one they wait in the outbox until a relay runs. */
  bus?: EventBus | undefined;
  logger: Logger;
  clock?: Clock;
  migrateOnStart?: boolean;
  /**
   * The blob store the indexing worker writes thumbnails to (GetVideoThumbnail reads them);
   * without one, thumbnail bytes answer service_unavailable.
   */
  blobs?: BlobStore | undefined;
}

export interface RunningIndexService {
  address: string;
  stop(): Promise<void>;
}

export async function startIndexService(options: IndexServiceOptions): Promise<RunningIndexService> {
  const { logger, clock = systemClock } = options;
  const db = await Database.open(options.database);
  if (options.migrateOnStart ?? true) {
    await migrate(db, EVENTS_MIGRATIONS);
    await migrate(db, MIGRATIONS);
  }
  const relay = startOutboxRelay({ db, bus: options.bus, logger });
  if (!options.blobs) logger.warn('no blob store configured: thumbnail bytes cannot be served');

  const indexStore = createIndexStore(db);
  const eventsWritten = () => relay?.wake();
  const indexes = createIndexService({ store: indexStore, clock, eventsWritten });
  const videos = createVideoService({ store: createVideoStore(db), indexes: indexStore, blobs: options.blobs && blobReader(options.blobs), clock, eventsWritten });
  const server = await startGrpcServer({
    bind: options.bind,
    logger,
    services: [
      { name: INDEX_SERVICE_NAME, definition: loadProto().proto.vus.index.v1.IndexService.service, implementation: indexServiceImplementation(indexes, videos, logger) },
    ],
  });
  const stopWatching = watchReadiness(server, () => db.ping());

  return {
    address: server.address,
    async stop() {
      stopWatching();
      await server.stop();
      await relay?.stop();
      await db.close();
    },
  };
}

/** Thumbnails are small (tens of kB): read whole, so they fit one gRPC answer. */
function blobReader(store: BlobStore): BlobReader {
  return {
    async read(key) {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of await store.get(key)) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      } catch (error) {
        if (isApiError(error) && error.code === 'resource_not_exist') return undefined;
        throw error;
      }
    },
  };
}

const configSchema = z.object({
  ...blobEnvShape,
  GRPC_BIND: z.string().default('0.0.0.0:50051'),
  DATABASE_URL: z.string().url(),
  MIGRATE_ON_START: envBoolean.default(true),
  /** host:port[,host:port] of the Kafka brokers; unset: events wait in the outbox. */
  KAFKA_BROKERS: z.string().optional(),
  LOG_LEVEL: logLevel,
});

/** Cluster mode: one process, configured from the environment (the Helm chart's form). */
if (require.main === module) {
  runMain(async () => {
    const config = loadConfig(configSchema);
    const logger = createLogger({ service: 'index-service', level: config.LOG_LEVEL });
    const bus = kafkaBusFromBrokers(config.KAFKA_BROKERS, 'index-service', logger);
    const service = await startIndexService({
      bind: config.GRPC_BIND,
      database: { kind: 'postgres', url: config.DATABASE_URL },
      bus,
      logger,
      migrateOnStart: config.MIGRATE_ON_START,
      // The same store (shared volume) the indexing worker writes thumbnails to.
      blobs: config.BLOB_DIR ? await openBlobStore({ kind: 'fs', root: config.BLOB_DIR }) : undefined,
    });
    return {
      async stop() {
        await service.stop();
        await bus?.close();
      },
    };
  });
}
