/**
 * Every statement is bounded in time, on PostgreSQL (statement_timeout) and on embedded PGlite
 * (which ignores statement_timeout: a runaway statement there once held the process at 100% CPU
 * for minutes). After a timeout the database answers the next statement, and the embedded engine,
 * killed and opened again, still has what was committed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database, migrate } from '@vus/db';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { errorOf } from '@vus/testing';

jest.setTimeout(60_000);

/** A statement that runs for minutes on any engine. */
const RUNAWAY = 'SELECT count(*) FROM generate_series(1, 2000000000)';

describe('on PostgreSQL', () => {
  let server: ThrowawayDatabase;
  let db: Database;
  beforeAll(async () => {
    server = await createThrowawayDatabase();
    db = await Database.open({ kind: 'postgres', url: server.url, statementTimeoutMs: 300 });
  });
  afterAll(async () => {
    await db?.close();
    await server?.drop();
  });

  it('stops a statement at the timeout with deadline_exceeded, and answers the next one', async () => {
    expect(await errorOf(db.query(RUNAWAY))).toEqual({
      code: 'deadline_exceeded',
      message: expect.stringContaining('took longer than 300 ms'),
    });
    expect(await errorOf(db.withTx((tx) => tx.query(RUNAWAY)))).toMatchObject({ code: 'deadline_exceeded' });
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('gives migrations a client without the timeout', async () => {
    const client = await db.connect();
    try {
      expect((await client.query('SHOW statement_timeout')).rows[0]).toEqual({ statement_timeout: '0' });
    } finally {
      client.release();
    }
    expect((await db.query('SHOW statement_timeout')).rows[0]).toEqual({ statement_timeout: '300ms' });
  });
});

describe('on embedded PGlite', () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vus-db-test-'));
    db = await Database.open({ kind: 'pglite', dataDir: join(dir, 'data'), statementTimeoutMs: 1_000 });
  });
  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stops a runaway statement with deadline_exceeded, reopens the engine, and keeps what was committed', async () => {
    await db.query('CREATE TABLE kept (id int PRIMARY KEY)');
    await db.query('INSERT INTO kept VALUES (1), (2)');
    expect(await errorOf(db.query(RUNAWAY))).toMatchObject({ code: 'deadline_exceeded' });
    // Queued behind the runaway statement: runs on the reopened engine.
    expect((await db.query<{ id: number }>('SELECT id FROM kept ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('stops a runaway statement inside a transaction, rolled back', async () => {
    const inTx = db.withTx(async (tx) => {
      await tx.query('INSERT INTO kept VALUES (3)');
      await tx.query(RUNAWAY);
    });
    expect(await errorOf(inTx)).toMatchObject({ code: 'deadline_exceeded' });
    expect((await db.query<{ id: number }>('SELECT id FROM kept ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('runs migrations on a dedicated client and serves queries beside it', async () => {
    const migrations = await mkdtemp(join(dir, 'migrations-'));
    await import('node:fs/promises').then((fs) => fs.writeFile(join(migrations, '0001_things.sql'), 'CREATE TABLE things (id int);\n'));
    expect(await migrate(db, { dir: migrations, table: 'test_migrations' })).toEqual(['0001_things']);
    expect((await db.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 0 }]);
  });
});
