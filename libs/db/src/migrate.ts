import { runner } from 'node-pg-migrate';
import type { Database } from './database';

export interface MigrationSet {
  /** Folder of forward-only, numbered SQL files (`0001_<description>.sql`). */
  dir: string;
  /** Bookkeeping table; distinct per set so a lib's migrations never collide with a service's. */
  table: string;
}

/**
 * Applies pending migrations with node-pg-migrate under its advisory lock, so two replicas
 * starting at once never migrate twice. Returns the names applied.
 */
export async function migrate(db: Database, set: MigrationSet): Promise<string[]> {
  const client = await db.connect();
  try {
    const applied = await runner({
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
    client.release();
  }
}
