import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Database, type DatabaseTarget } from './database';

/** Where integration tests find a real PostgreSQL server (the local one by default). */
export function testServerUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export interface ThrowawayDatabase {
  db: Database;
  url: string;
  drop(): Promise<void>;
}

/** Creates a fresh database on the test server for one suite, and drops it afterwards. */
export async function createThrowawayDatabase(prefix = 'vus_test'): Promise<ThrowawayDatabase> {
  const adminUrl = testServerUrl();
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await Database.open({ kind: 'postgres', url: url.toString(), maxConnections: 5 });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** The embedded flavour of the same thing: PGlite in memory. */
export async function createMemoryDatabase(): Promise<ThrowawayDatabase> {
  const target: DatabaseTarget = { kind: 'pglite', dataDir: 'memory://' };
  const db = await Database.open(target);
  return { db, url: 'memory://', drop: () => db.close() };
}

/** Both kinds of database, for suites that must pass on each (`describe.each(DATABASE_KINDS)`). */
export const DATABASE_KINDS = [
  ['postgres', createThrowawayDatabase],
  ['pglite', createMemoryDatabase],
] as const;
