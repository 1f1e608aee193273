import { readdirSync } from 'node:fs';
import { runner } from 'node-pg-migrate';
import type { Database } from './database';

export interface MigrationSet {
  /** Folder of forward-only, numbered SQL files (`0001_<description>.sql`). */
  dir: string;
  /** Bookkeeping table; distinct per set so a lib's migrations never collide with a service's. */
  table: string;
}

// node-pg-migrate's own lock fails at once when another replica holds it ("Another migration is
// already running"); replicas starting together should wait their turn instead.
const MIGRATION_LOCK_SQL = "SELECT pg_advisory_lock(hashtext('vus.migrations'))";
const MIGRATION_UNLOCK_SQL = "SELECT pg_advisory_unlock(hashtext('vus.migrations'))";

/**
 * Applies pending migrations with node-pg-migrate under a waiting advisory lock, so replicas
 * starting at once migrate one after the other, never twice. Returns the names applied.
 */
export async function migrate(db: Database, set: MigrationSet): Promise<string[]> {
  const client = await db.connect();
  try {
    await client.query(MIGRATION_LOCK_SQL);
    const applied = await runner({
      noLock: true,
      dbClient: client,
      dir: set.dir,
      migrationsTable: set.table,
      direction: 'up',
      count: Infinity,
      checkOrder: true,
      singleTransaction: true,
      log: () => undefined,
    });
    return applied.map((m) => m.name);
  } finally {
    await client.query(MIGRATION_UNLOCK_SQL).catch(() => undefined);
    client.release();
  }
}

/**
 * The migrations of `set` that `db` has not had yet, by name (all of them while its bookkeeping
 * table does not exist): what a process that leaves migrating to another waits for.
 */
export async function pendingMigrations(db: Database, set: MigrationSet): Promise<string[]> {
  if (!/^\w+$/.test(set.table)) throw new Error(`not a migrations table name: ${set.table}`);
  const names = readdirSync(set.dir)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => file.slice(0, -'.sql'.length))
    .sort();
  const { rows: tables } = await db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [set.table]);
  if (!tables[0]?.found) return names;
  const { rows } = await db.query<{ name: string }>(`SELECT name FROM ${set.table}`);
  const applied = new Set(rows.map((row) => row.name));
  return names.filter((name) => !applied.has(name));
}
