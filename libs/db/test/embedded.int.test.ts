/**
 * The embedded engine's database is reachable by its owner only (issue 28, defect 5). It was served
 * on a loopback TCP port without a password: any local user or process could read a service's
 * tables (the gateway's `api_keys`) and write them (mint a key for any organization). It is now
 * served on a unix socket in a folder only the owner can enter, its folder is the owner's only, and
 * the template new databases start from is only loaded when the owner made it.
 */
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { Database } from '@vus/db';
import { databasesOpenOverTcp, listeningTcpPorts } from '@vus/db/testing';
import { EmbeddedEngine, MAX_SOCKET_PATH, isTrustedTemplate } from '../src/embedded';

jest.setTimeout(60_000);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vus-db-embedded-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** What a client on the engine's own connection reads (the owner's way in). */
async function readAs(engine: EmbeddedEngine, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ host: engine.host, port: engine.port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

it('listens on no TCP port: a local client without a password reads nothing', async () => {
  const portsBefore = listeningTcpPorts();
  const db = await Database.open({ kind: 'pglite', dataDir: join(dir, 'gateway') });
  try {
    await db.query('CREATE TABLE api_keys (key_hash text)');
    await db.query(`INSERT INTO api_keys VALUES ('secret')`);
    const opened = listeningTcpPorts().filter((port) => !portsBefore.includes(port));
    // The attack: psql host=127.0.0.1 port=<the engine's> user=postgres, no password.
    expect(await databasesOpenOverTcp('SELECT key_hash FROM api_keys', opened)).toEqual([]);
    expect(opened).toEqual([]);
    expect((await db.query('SELECT key_hash FROM api_keys')).rows).toEqual([{ key_hash: 'secret' }]);
  } finally {
    await db.close();
  }
});

it('serves its owner on a unix socket in an owner-only folder beside the database, removed on stop', async () => {
  const dataDir = join(dir, 'index-service');
  // A database folder from before, open to all (PGlite writes its files 0666).
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  const engine = await EmbeddedEngine.start(dataDir);
  try {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(dirname(dirname(engine.host))).toBe(dir);
    expect(statSync(engine.host).mode & 0o777).toBe(0o700);
    expect(statSync(join(engine.host, `.s.PGSQL.${engine.port}`)).isSocket()).toBe(true);
    expect(await readAs(engine, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  } finally {
    await engine.stop();
  }
  expect(existsSync(engine.host)).toBe(false);
});

it("prices a random page read for cached local files, not spinning disks, on every client's connection", async () => {
  const db = await Database.open({ kind: 'pglite', dataDir: join(dir, 'planner') });
  try {
    expect((await db.query('SHOW random_page_cost')).rows).toEqual([{ random_page_cost: '1.1' }]);
  } finally {
    await db.close();
  }
});

it('puts the socket in a private temp folder when the database folder is too deep for a socket path', async () => {
  const deep = join(dir, 'd'.repeat(MAX_SOCKET_PATH), 'task-service');
  const engine = await EmbeddedEngine.start(deep);
  try {
    expect(engine.host.startsWith(tmpdir())).toBe(true);
    expect(join(engine.host, `.s.PGSQL.${engine.port}`).length).toBeLessThanOrEqual(MAX_SOCKET_PATH);
    expect(statSync(engine.host).mode & 0o777).toBe(0o700);
    expect(await readAs(engine, 'SELECT 2 AS two')).toEqual([{ two: 2 }]);
  } finally {
    await engine.kill();
  }
  expect(existsSync(engine.host)).toBe(false);
});

describe('isTrustedTemplate: a template in the shared temp folder is loaded only if its owner made it and only they can write it', () => {
  const OWNER = 1000;
  it.each([
    ['ours, owner-only', { uid: OWNER, mode: 0o100600 }, true],
    ['ours, world-readable', { uid: OWNER, mode: 0o100644 }, true],
    ['planted by another user', { uid: 1001, mode: 0o100600 }, false],
    ['ours but group-writable', { uid: OWNER, mode: 0o100664 }, false],
    ['ours but world-writable', { uid: OWNER, mode: 0o100646 }, false],
  ])('%s', (_case, stats, trusted) => {
    expect(isTrustedTemplate(stats, OWNER)).toBe(trusted);
  });
});

it('opens the engine again when its thread dies (its socket file goes with it)', async () => {
  const db = await Database.open({ kind: 'pglite', dataDir: join(dir, 'search-service') });
  try {
    await db.query('CREATE TABLE kept (n int)');
    await db.query('INSERT INTO kept VALUES (1)');
    // The thread ends by itself (not through kill()): its socket is gone, its folder stays.
    await (db as unknown as { engine: { worker: { terminate(): Promise<number> } } }).engine.worker.terminate();
    await expect(db.query('SELECT n FROM kept')).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await db.query('SELECT n FROM kept')).rows).toEqual([{ n: 1 }]);
  } finally {
    await db.close();
  }
});
