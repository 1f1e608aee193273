/**
 * Embedded mode keeps its databases and data folder to the user running it (issue 28, defect 5).
 * `npm start` served each service's PGlite on a loopback TCP port without a password: any local
 * user or process read the gateway's `api_keys` and minted keys for any organization. The databases
 * are now on unix sockets inside DATA_DIR, which is owner-only, as is everything written in it.
 */
import { FileBlobStore } from '@vus/blob';
import { createLogger } from '@vus/core';
import { databasesOpenOverTcp, listeningTcpPorts } from '@vus/db/testing';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startEmbedded } from '../src/main';

// One PGlite per service.
jest.setTimeout(180_000);

/** The permission bits a group or other users have on a path (0: none). */
const shared = (path: string) => statSync(path).mode & 0o077;

let root: string;
let dataDir: string;
let running: Awaited<ReturnType<typeof startEmbedded>>;
let opened: number[];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'vus-embedded-private-'));
  // A data folder from before: world-readable, with a world-readable admin token and a socket
  // folder a crash left behind.
  dataDir = join(root, 'data');
  mkdirSync(join(dataDir, 'blobs'), { recursive: true });
  mkdirSync(join(dataDir, '.db-sockets', 'crashed'), { recursive: true });
  writeFileSync(join(dataDir, 'admin-token'), 'an-admin-token-from-before');
  for (const path of [dataDir, join(dataDir, 'blobs')]) chmodSync(path, 0o755);
  chmodSync(join(dataDir, 'admin-token'), 0o644);

  const portsBefore = listeningTcpPorts();
  running = await startEmbedded(
    { DATA_DIR: dataDir, PORT: '0', VUS_BOOTSTRAP_API_KEY: '', MODELS_DIR: join(root, 'no-models') },
    createLogger({ service: 'embedded-test', level: 'silent' }),
  );
  opened = listeningTcpPorts().filter((port) => !portsBefore.includes(port));
});

afterAll(async () => {
  await running?.stop();
  rmSync(root, { recursive: true, force: true });
});

it('serves no database on a TCP port: a local client without a password cannot read api_keys', async () => {
  // The attack: psql host=127.0.0.1 port=<each port npm start opened> user=postgres, no password.
  expect(await databasesOpenOverTcp('SELECT count(*) FROM api_keys', opened)).toEqual([]);
  // What is left listening: the gateway (HTTP) and the services' gRPC, which need the process's secret.
  expect(opened).toContain(Number(new URL(running.url).port));
});

it('makes DATA_DIR, blobs/ and the secrets owner-only, existing ones included', async () => {
  expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  expect(statSync(join(dataDir, 'blobs')).mode & 0o777).toBe(0o700);
  for (const secret of ['admin-token', 'webhook-secret-key', 'embedded.json', 'server.pid']) {
    expect([secret, shared(join(dataDir, secret))]).toEqual([secret, 0]);
  }
  // What the process writes later is owner-only too: a database's folder (PGlite makes its files
  // 0666: the folder is what keeps them), a blob and its folder.
  expect(statSync(join(dataDir, 'gateway')).mode & 0o777).toBe(0o700);
  const blobs = await FileBlobStore.open(join(dataDir, 'blobs'));
  await blobs.put('probe/file.bin', Readable.from([Buffer.from('bytes')]));
  expect([shared(join(dataDir, 'blobs', 'probe')), shared(blobs.pathOf('probe/file.bin'))]).toEqual([0, 0]);
});

it('keeps the database sockets in one owner-only folder, without what a crash left behind', () => {
  const sockets = join(dataDir, '.db-sockets');
  expect(statSync(sockets).mode & 0o777).toBe(0o700);
  const folders = readdirSync(sockets);
  expect(folders).not.toContain('crashed');
  expect(folders.length).toBeGreaterThan(0);
  for (const folder of folders) expect(existsSync(join(sockets, folder, '.s.PGSQL.5432'))).toBe(true);
});
