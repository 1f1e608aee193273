import { ApiError } from '@vus/core';
import pg from 'pg';
import { EmbeddedEngine } from './embedded';

export type Row = Record<string, unknown>;

/** A statement's text, or pg's `{ name, text, values }`: a named statement is prepared once per connection. */
export type Statement = string | pg.QueryConfig;

/** Anything that runs SQL: the pool itself or a client inside a transaction. */
export interface Queryable {
  query<R extends Row = Row>(statement: Statement, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export type DatabaseTarget = (
  | { kind: 'postgres'; url: string; maxConnections?: number }
  /** Embedded mode: PostgreSQL compiled to WASM, in a thread of this process; `dataDir` may be `memory://`. */
  | { kind: 'pglite'; dataDir: string }
) & {
  /** The longest one statement may run (default DEFAULT_STATEMENT_TIMEOUT_MS); it then fails with `deadline_exceeded`. */
  statementTimeoutMs?: number;
};

/** Every statement is bounded: no request can hold a connection (or, embedded, the engine) for long. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/** A client outside the pool, for the caller's exclusive use; `release()` closes it. */
export type DedicatedClient = pg.ClientBase & { release(): void };

/**
 * One database of one service. The same `pg` API whether the server is PostgreSQL or PGlite,
 * so store.ts code runs unchanged in both modes.
 *
 * Every statement has a timeout: PostgreSQL's statement_timeout, and for PGlite (which ignores it)
 * the client's own timer. A PGlite statement that times out is still running in the engine, so the
 * engine is killed and opened again from its folder (a `memory://` database comes back empty); the
 * statements waiting meanwhile run on the new one.
 */
export class Database implements Queryable {
  private pool: pg.Pool;
  private restarting: Promise<void> | undefined;
  private readonly statementTimeoutMs: number;

  private constructor(
    readonly target: DatabaseTarget,
    private engine?: EmbeddedEngine,
  ) {
    this.statementTimeoutMs = target.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    this.pool = this.newPool();
  }

  static async open(target: DatabaseTarget): Promise<Database> {
    if (target.kind === 'postgres') return new Database(target);
    return new Database(target, await EmbeddedEngine.start(target.dataDir));
  }

  private connectionConfig(): pg.ClientConfig {
    if (this.target.kind === 'postgres') return { connectionString: this.target.url };
    return { host: this.engine!.host, port: this.engine!.port, user: 'postgres', database: 'postgres' };
  }

  private newPool(): pg.Pool {
    const pool =
      this.target.kind === 'postgres'
        ? new pg.Pool({ ...this.connectionConfig(), max: this.target.maxConnections ?? 10, statement_timeout: this.statementTimeoutMs })
        : // PGlite is single-session: with several connections, statements of concurrent queries were
          // seen to interleave and fail now and then, so one connection serialises this process's
          // callers. (Never wait on `db.query` inside `withTx`: it would wait for itself.)
          new pg.Pool({ ...this.connectionConfig(), max: 1, query_timeout: this.statementTimeoutMs });
    // An idle client that loses its server emits here; without a listener that would crash the process.
    pool.on('error', () => undefined);
    return pool;
  }

  private async currentPool(): Promise<pg.Pool> {
    while (this.restarting) await this.restarting;
    return this.pool;
  }

  /**
   * What a failed statement becomes: a timeout is `deadline_exceeded` (and, embedded, restarts the
   * engine it is still running in); a lost embedded engine restarts it too. Other errors pass as they are.
   */
  private failed(error: unknown): unknown {
    const timedOut = isStatementTimeout(error);
    if (this.engine && (timedOut || isConnectionLost(error))) this.restartEngine();
    if (!timedOut) return error;
    return new ApiError(
      'deadline_exceeded',
      `A database statement took longer than ${this.statementTimeoutMs} ms and was stopped. Try again with a smaller request.`,
    );
  }

  private restartEngine(): void {
    if (this.restarting || !this.engine) return;
    const old = { engine: this.engine, pool: this.pool };
    this.restarting = (async () => {
      await old.engine.kill();
      void old.pool.end().catch(() => undefined);
      // If the folder cannot be opened again, keep trying on the next failure rather than never.
      this.engine = await EmbeddedEngine.start(this.target.kind === 'pglite' ? this.target.dataDir : '').catch(() => old.engine);
      this.pool = this.newPool();
    })().finally(() => {
      this.restarting = undefined;
    });
  }

  async query<R extends Row = Row>(statement: Statement, values?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    const pool = await this.currentPool();
    try {
      return await pool.query<R>(statement, values as unknown[] | undefined);
    } catch (error) {
      throw this.failed(error);
    }
  }

  /** Runs `fn` in one transaction; rolls back if it throws. */
  async withTx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await (await this.currentPool()).connect();
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken = error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.failed(error);
    } finally {
      // A client whose statement failed for lack of time or connection is not reused.
      client.release(isStatementTimeout(broken) || isConnectionLost(broken) ? (broken as Error) : undefined);
    }
  }

  /**
   * A client of its own, outside the pool and without the statement timeout, for work the caller
   * bounds itself (migrations under their advisory lock).
   */
  async connect(): Promise<DedicatedClient> {
    await this.currentPool();
    const client = new pg.Client(this.connectionConfig());
    client.on('error', () => undefined);
    await client.connect();
    return Object.assign(client, { release: () => void client.end().catch(() => undefined) });
  }

  async ping(): Promise<boolean> {
    try {
      await this.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.restarting;
    await this.pool.end();
    await this.engine?.stop();
  }
}

/** PostgreSQL's statement_timeout (57014 query_canceled), or pg's client-side timer (PGlite). */
export function isStatementTimeout(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return e?.code === '57014' || e?.message === 'Query read timeout';
}

/** The connection to the server went away (the embedded engine's thread ended, say: its socket file goes with it). */
function isConnectionLost(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return (
    e?.code === 'ECONNREFUSED' ||
    e?.code === 'ENOENT' ||
    e?.code === 'ECONNRESET' ||
    e?.code === 'EPIPE' ||
    /Connection terminated|not queryable|Client has encountered a connection error/i.test(e?.message ?? '')
  );
}

/** Postgres unique_violation, optionally on a named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
