/**
 * Table maintenance on a real engine: PGlite (which runs no autovacuum: its tables stayed unanalysed
 * and unvacuumed) and PostgreSQL (the same statements). A table filled is analysed, a partitioned one
 * through its parent, and a table with many deleted rows vacuumed; then nothing is due.
 */
import { Database } from '@vus/db';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { maintainTables } from '../src/maintenance';

jest.setTimeout(60_000);

describe.each(DATABASE_KINDS)('maintainTables on %s', (kind, create) => {
  let database: ThrowawayDatabase;
  beforeAll(async () => {
    database = await create();
    // PostgreSQL's own autovacuum would race this test's: off for these tables.
    const noAutovacuum = 'WITH (autovacuum_enabled = false)';
    await database.db.query(`CREATE TABLE jobs (id int PRIMARY KEY, payload text) ${noAutovacuum}`);
    await database.db.query(`CREATE TABLE parts (kind text NOT NULL, id int) PARTITION BY LIST (kind)`);
    await database.db.query(`CREATE TABLE parts_a PARTITION OF parts FOR VALUES IN ('a') ${noAutovacuum}`);
    await database.db.query(`CREATE TABLE parts_b PARTITION OF parts FOR VALUES IN ('b') ${noAutovacuum}`);
  });
  afterAll(() => database?.drop());

  const analysed = async (table: string) =>
    (await database.db.query<{ reltuples: number }>(`SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = $1`, [table]))
      .rows[0]?.reltuples;

  /**
   * A write whose counters its backend flushes as soon as it is idle (PostgreSQL flushes an idle
   * backend's at most once a second, or up to ten seconds later), and the wait until they are seen.
   */
  const write = (sql: string) =>
    database.db.withTx(async (tx) => {
      await tx.query(sql);
      await tx.query('SELECT pg_stat_force_next_flush()');
    });
  const counted = async (table: string, column: string, expected: number) => {
    for (let tries = 0; tries < 50; tries++) {
      const { rows } = await database.db.query<{ n: number }>(`SELECT ${column}::int AS n FROM pg_stat_user_tables WHERE relname = $1`, [
        table,
      ]);
      if (rows[0]?.n === expected) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${table}.${column} never reached ${expected}`);
  };

  it('analyses what was filled, vacuums what was emptied, and then finds nothing due', async () => {
    await write(`INSERT INTO jobs SELECT g, md5(g::text) FROM generate_series(1, 3000) g`);
    await write(`INSERT INTO parts SELECT CASE WHEN g % 3 = 0 THEN 'a' ELSE 'b' END, g FROM generate_series(1, 3000) g`);
    expect(await analysed('jobs')).toBeLessThan(1); // never analysed: -1 (PostgreSQL 14 and later) or 0
    if (kind === 'postgres')
      await Promise.all([counted('jobs', 'n_ins_since_vacuum', 3000), counted('parts_b', 'n_ins_since_vacuum', 2000)]);

    const first = (await maintainTables(database.db)).map((r) => r.statement);
    // Inserts: more than 1,000 + 20 % is due for a vacuum (jobs' 3,000, parts_b's 2,000, not parts_a's 1,000),
    // more than 50 + 10 % for an analysis (the partitions through their parent).
    expect(first).toEqual(['VACUUM (ANALYZE) jobs', 'VACUUM parts_b', 'ANALYZE parts']);
    expect(await analysed('parts_a')).toBe(1000);
    expect(await analysed('jobs')).toBe(3000);
    expect(await analysed('parts_b')).toBe(2000);

    await write(`DELETE FROM jobs WHERE id <= 2000`);
    if (kind === 'postgres') await counted('jobs', 'n_dead_tup', 2000);
    const second = (await maintainTables(database.db)).map((r) => r.statement);
    expect(second).toEqual(['VACUUM (ANALYZE) jobs']);
    const { rows } = await database.db.query<{ dead: number }>(
      `SELECT n_dead_tup::int AS dead FROM pg_stat_user_tables WHERE relname = 'jobs'`,
    );
    expect(rows[0]?.dead).toBe(0);

    expect(await maintainTables(database.db)).toEqual([]);
  });
});

describe('maintainTables after a PGlite restart', () => {
  it('finds from the catalog what the lost counters no longer say: rows loaded before are analysed and vacuumed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vus-db-maintenance-'));
    try {
      const before = await Database.open({ kind: 'pglite', dataDir: join(dir, 'db') });
      await before.query('CREATE TABLE notes (id int, body text)');
      await before.query(`INSERT INTO notes SELECT g, md5(g::text) FROM generate_series(1, 5000) g`);
      await before.close();

      const after = await Database.open({ kind: 'pglite', dataDir: join(dir, 'db') });
      try {
        const { rows } = await after.query<{ inserted: number }>(
          `SELECT n_ins_since_vacuum::int AS inserted FROM pg_stat_user_tables WHERE relname = 'notes'`,
        );
        expect(rows[0]?.inserted).toBe(0); // forgotten
        expect((await maintainTables(after)).map((r) => r.statement)).toEqual(['VACUUM (ANALYZE) notes']);
        expect(await maintainTables(after)).toEqual([]);
      } finally {
        await after.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
