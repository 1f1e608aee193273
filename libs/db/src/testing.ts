import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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

/**
 * The loopback TCP ports this process listens on (Linux: its sockets in /proc/self/fd matched with
 * the LISTEN rows of /proc/net/tcp and tcp6), worker threads' included.
 */
export function listeningTcpPorts(): number[] {
  const inodes = new Set(
    readdirSync('/proc/self/fd').flatMap((fd) => {
      const target = readlinkOrUndefined(`/proc/self/fd/${fd}`);
      return target?.match(/^socket:\[(\d+)\]$/)?.[1] ?? [];
    }),
  );
  const ports = ['/proc/self/net/tcp', '/proc/self/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // local_address is HEXIP:HEXPORT, st 0A is LISTEN, column 9 the socket's inode.
      .filter((columns) => columns[3] === '0A' && inodes.has(columns[9]!))
      .map((columns) => parseInt(columns[1]!.split(':')[1]!, 16)),
  );
  return [...new Set(ports)].sort((a, b) => a - b);
}

function readlinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined; // closed meanwhile (readdir's own descriptor, say)
  }
}

/**
 * The embedded-mode attack: which of `ports` (default: every port this process listens on) let a
 * plain pg client in as `postgres` with no password and run `sql` there, with what it read.
 */
export async function databasesOpenOverTcp(sql = 'SELECT 1', ports = listeningTcpPorts()): Promise<{ port: number; rows: unknown[] }[]> {
  const open: { port: number; rows: unknown[] }[] = [];
  for (const port of ports) {
    const client = new pg.Client({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      database: 'postgres',
      connectionTimeoutMillis: 3_000,
      query_timeout: 3_000,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      open.push({ port, rows: (await client.query(sql)).rows });
    } catch {
      // not a database, or not one that lets this client in
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return open;
}
