import { createLogger, type Clock } from '@vus/core';
import { type DatabaseTarget } from '@vus/db';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { InProcessEventBus } from '@vus/events';
import { FileBlobStore, type BlobStore } from '@vus/blob';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import { startGateway, type RunningGateway } from '../src/main';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Stack {
  url: string;
  gateway: RunningGateway;
  indexService: RunningIndexService;
  /** Creates an organization and returns a fresh key for it. */
  newOrgKey(name?: string): Promise<string>;
  /** The blob store under `blobDir`, when one was given. */
  blobs: BlobStore | undefined;
  /** The same, with the organization's id (for calls that act as a service, e.g. the worker's). */
  newOrg(name?: string): Promise<{ orgId: string; key: string }>;
  stop(): Promise<void>;
}

/**
 * Gateway + index-service on loopback, each on its own throwaway database: real PostgreSQL by
 * default, PGlite (the embedded adapter) when asked.
 */
export interface StackOptions {
  /** The gateway's clock (signed URL expiry). */
  clock?: Clock;
  /** Folder of the blob store that index-service reads thumbnails from (`stack.blobs`). */
  blobDir?: string;
}

export async function startStack(
  kind: 'postgres' | 'pglite' = 'postgres',
  bodyLimitBytes = 64 * 1024,
  options: StackOptions = {},
): Promise<Stack> {
  const logger = createLogger({ service: 'test', level: 'silent' });
  const databases: ThrowawayDatabase[] = [];
  const target = async (): Promise<DatabaseTarget> => {
    if (kind === 'pglite') return { kind: 'pglite', dataDir: 'memory://' };
    const database = await createThrowawayDatabase();
    databases.push(database);
    return { kind: 'postgres', url: database.url };
  };
  const blobs = options.blobDir ? await FileBlobStore.open(options.blobDir) : undefined;
  const indexService = await startIndexService({
    bind: '127.0.0.1:0',
    database: await target(),
    bus: new InProcessEventBus(),
    logger,
    blobs,
  });
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    database: await target(),
    indexServiceAddress: indexService.address,
    logger,
    adminToken: ADMIN_TOKEN,
    bodyLimitBytes,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let orgs = 0;
  const newOrg = async (name = `org-${++orgs}-${Math.random().toString(36).slice(2)}`) => {
    const org = await gateway.keys.createOrganization(name);
    return { orgId: org.id, key: (await gateway.keys.createKey(org.id, 'test')).secret };
  };
  return {
    url: gateway.url,
    gateway,
    indexService,
    blobs,
    newOrgKey: async (name?: string) => (await newOrg(name)).key,
    newOrg,
    async stop() {
      await gateway.stop();
      await indexService.stop();
      for (const database of databases) await database.drop();
    },
  };
}
