import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdirSync } from 'node:fs';
import pg from 'pg';

export type Row = Record<string, unknown>;

/** Anything that runs SQL: the pool itself or a client inside a transaction. */
export interface Queryable {
  query<R extends Row = Row>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export type DatabaseTarget =
  | { kind: 'postgres'; url: string; maxConnections?: number }
  /** Embedded mode: PostgreSQL compiled to WASM, in this process; `dataDir` may be `memory://`. */
  | { kind: 'pglite'; dataDir: string };

/**
 * One database of one service. The same `pg` API whether the server is PostgreSQL or PGlite,
 * so store.ts code runs unchanged in both modes.
 */
export class Database implements Queryable {
  private constructor(
    private readonly pool: pg.Pool,
    readonly target: DatabaseTarget,
    private readonly embedded?: { pglite: PGlite; server: PGLiteSocketServer },
  ) {}

  static async open(target: DatabaseTarget): Promise<Database> {
    if (target.kind === 'postgres') {
      const pool = new pg.Pool({ connectionString: target.url, max: target.maxConnections ?? 10 });
      // An idle client that loses its server emits here; without a listener that would crash the process.
      pool.on('error', () => undefined);
      return new Database(pool, target);
    }
    if (!target.dataDir.startsWith('memory://')) mkdirSync(target.dataDir, { recursive: true });
    // pgvector is offered (not created): a service's migration enables it where it needs vectors.
    const pglite = await PGlite.create(target.dataDir, { extensions: { vector } });
    // Served over the real wire protocol on loopback, so `pg` drives it exactly as it drives
    // PostgreSQL. (pglite's in-process node-postgres adapter loses sync after a failed statement.)
    // PGlite is single-session: with several connections, statements of concurrent queries were
    // seen to interleave and fail now and then, so one connection serialises this process's
    // callers. (Never wait on `db.query` inside `withTx`: it would wait for itself.)
    const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 2 });
    await server.start();
    const [host, port] = server.getServerConn().split(':');
    const pool = new pg.Pool({ host, port: Number(port), user: 'postgres', database: 'postgres', max: 1 });
    pool.on('error', () => undefined);
    return new Database(pool, target, { pglite, server });
  }

  query<R extends Row = Row>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(text, values as unknown[] | undefined);
  }

  /** Runs `fn` in one transaction; rolls back if it throws. */
  async withTx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** A client held for the caller's exclusive use (migrations, advisory locks). */
  connect(): Promise<pg.PoolClient> {
    return this.pool.connect();
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
    await this.embedded?.server.stop();
    await this.embedded?.pglite.close();
  }
}

/** Postgres unique_violation, optionally on a named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
