import type * as Pglite from '@electric-sql/pglite';
import type * as PgliteVector from '@electric-sql/pglite-pgvector';
import type * as PgliteSocket from '@electric-sql/pglite-socket';
import type * as Fs from 'node:fs';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { Worker } from 'node:worker_threads';
import type * as WorkerThreads from 'node:worker_threads';

/**
 * The embedded database engine: PGlite (PostgreSQL compiled to WASM) served over the wire protocol
 * on a unix socket, in a worker thread of its own.
 *
 * Why a unix socket in a private folder: PGlite lets in whoever connects, as `postgres`, with no
 * password (its socket server checks none). On a loopback TCP port that was any local user or process
 * — the gateway's `api_keys` could be read and written. The socket's folder is made with mkdtemp
 * (0700): only this user can reach it. node-postgres connects with `host` the folder and `port`
 * naming the socket in it (`.s.PGSQL.<port>`).
 *
 * Why a thread: PGlite runs a statement synchronously, and it honours no statement_timeout (WASM has
 * no timer signals). In the main thread a runaway statement — a 2,000-term expression built from a
 * long search query spun for minutes — froze the whole process at 100% CPU. In a worker the main
 * thread keeps serving, a client-side timeout notices, and `kill()` stops the statement by ending
 * the thread; the database is then opened again from its folder (see Database).
 */
export class EmbeddedEngine {
  /** node-postgres's connection to it: `host` is the socket's folder, `port` names the socket there. */
  readonly port = SOCKET_PORT;

  private constructor(
    private readonly worker: Worker,
    readonly host: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedEngine> {
    // A new database starts from a copy of an empty one instead of running initdb: ~1 s instead of
    // ~3-7 s of CPU each, for the eight databases of a first `npm start` and every test database.
    const template = isNewDatabase(dataDir) ? await emptyDatabaseTemplate().catch(() => undefined) : undefined;
    try {
      return await EmbeddedEngine.serve(dataDir, template);
    } catch (error) {
      if (!template) throw error;
      // A template that does not load (a damaged file) is dropped; this database is initialised afresh.
      forgetTemplate();
      return EmbeddedEngine.serve(dataDir, undefined);
    }
  }

  private static async serve(dataDir: string, template: Uint8Array | undefined): Promise<EmbeddedEngine> {
    const folder = await privateSocketFolder(dataDir);
    const worker = startThread({ kind: 'serve', dataDir, template, socketPath: socketPath(folder) });
    try {
      await firstAnswer<{ ready: true }>(worker);
      return new EmbeddedEngine(worker, folder);
    } catch (error) {
      await worker.terminate();
      removeSocketFolder(folder);
      throw error;
    }
  }

  /** Closes PGlite cleanly (its files consistent), then ends the thread. */
  async stop(): Promise<void> {
    const stopped = new Promise<void>((resolve) => {
      this.worker.once('message', () => resolve());
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage('stop');
    await stopped;
    await this.worker.terminate();
    removeSocketFolder(this.host);
  }

  /** Ends the thread at once, whatever it is running (a runaway statement). */
  async kill(): Promise<void> {
    await this.worker.terminate();
    removeSocketFolder(this.host);
  }
}

/** The longest unix socket path that works everywhere: sun_path is 108 bytes on Linux, 104 on macOS (its NUL included). */
export const MAX_SOCKET_PATH = 103;
/** Any number: each engine has a folder of its own, and node-postgres names the socket in it after the port. */
const SOCKET_PORT = 5432;
/** Beside a database's folder (in DATA_DIR, in embedded mode): the owner-only folder of its engines' socket folders. */
export const SOCKETS_FOLDER = '.db-sockets';

const socketPath = (folder: string) => join(folder, `.s.PGSQL.${SOCKET_PORT}`);

/**
 * A new owner-only folder for one engine's socket: under SOCKETS_FOLDER beside the database, or in
 * the temp folder for a database in memory, one so deep that the socket's path would be too long,
 * or one on a filesystem without unix sockets (some network and container mounts). mkdtemp makes it
 * 0700, with a name no one else can have chosen.
 */
async function privateSocketFolder(dataDir: string): Promise<string> {
  if (!dataDir.startsWith('memory://')) {
    const sockets = join(dirname(resolve(dataDir)), SOCKETS_FOLDER);
    if (socketPath(join(sockets, 'XXXXXX')).length <= MAX_SOCKET_PATH) {
      mkdirSync(sockets, { recursive: true, mode: 0o700 });
      chmodSync(sockets, 0o700); // made before this rule, or under a lax umask
      const folder = liveSocketFolder(mkdtempSync(sockets + sep));
      if (await canListenOn(socketPath(folder))) return folder;
      removeSocketFolder(folder);
    }
  }
  return liveSocketFolder(mkdtempSync(join(tmpdir(), 'vus-db-')));
}

/** Whether a unix socket can be made at `path` (closing it removes its file again). */
function canListenOn(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(path, () => probe.close(() => resolve(true)));
  });
}

/** Socket folders of engines still running, removed if the process exits without stopping them. */
const liveSocketFolders = new Set<string>();
let removedOnExit = false;

function liveSocketFolder(folder: string): string {
  if (!removedOnExit) process.once('exit', () => [...liveSocketFolders].forEach(removeSocketFolder));
  removedOnExit = true;
  liveSocketFolders.add(folder);
  return folder;
}

function removeSocketFolder(folder: string): void {
  liveSocketFolders.delete(folder);
  rmSync(folder, { recursive: true, force: true });
}

/**
 * Removes the socket folders a crashed process left beside its databases in `parentDir`. Only for
 * the one process using that folder (embedded mode, under its DATA_DIR lock): it would remove the
 * sockets of running engines too.
 */
export function removeLeftoverSockets(parentDir: string): void {
  rmSync(join(parentDir, SOCKETS_FOLDER), { recursive: true, force: true });
}

type ThreadTask = { kind: 'serve'; dataDir: string; socketPath: string; template?: Uint8Array | undefined } | { kind: 'dump' };

function startThread(task: ThreadTask): Worker {
  return new Worker(`(${engineThread.toString()})(require('node:worker_threads'))`, {
    eval: true,
    workerData: { task, modules: engineModules() },
  });
}

/** Resolved here: an eval'd worker has no module path of its own to resolve from. */
function engineModules() {
  return {
    pglite: require.resolve('@electric-sql/pglite'),
    vector: require.resolve('@electric-sql/pglite-pgvector'),
    socket: require.resolve('@electric-sql/pglite-socket'),
  };
}

/** The thread's first message: its result, or its error. */
function firstAnswer<T>(worker: Worker): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    worker.once('message', (message: T & { error?: string }) =>
      message.error === undefined ? resolve(message) : reject(new Error(`The embedded database did not start: ${message.error}`)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The embedded database thread exited (${code}) while starting.`)));
  });
}

/** A folder PGlite has not initialised yet (no PG_VERSION), or an in-memory database. */
function isNewDatabase(dataDir: string): boolean {
  return dataDir.startsWith('memory://') || !existsSync(join(dataDir, 'PG_VERSION'));
}

let template: Promise<Uint8Array> | undefined;

/**
 * An initialised, empty cluster as PGlite's data-folder tarball: made once per PGlite version and
 * kept in the temp folder (shared by processes: test suites, restarts), else made in this process.
 */
function emptyDatabaseTemplate(): Promise<Uint8Array> {
  template ??= (async () => {
    const file = templateFile();
    const kept = readTrustedTemplate(file);
    if (kept) return kept;
    const worker = startThread({ kind: 'dump' });
    try {
      const { dump } = await firstAnswer<{ dump: Uint8Array }>(worker);
      keepTemplate(file, dump);
      return dump;
    } finally {
      await worker.terminate();
    }
  })();
  template.catch(() => (template = undefined));
  return template;
}

/**
 * The kept template, if this user made it. The temp folder is everyone's: a template another user
 * put there first (with rows of their choosing — a key in `api_keys`) would become every new database.
 */
function readTrustedTemplate(file: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    return isTrustedTemplate(fstatSync(fd), process.getuid?.()) ? new Uint8Array(readFileSync(fd)) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** Only a file of this user (`ownUid`; none where there are no uids) that no one else can write. */
export function isTrustedTemplate(stats: { uid: number; mode: number }, ownUid: number | undefined): boolean {
  return (ownUid === undefined || stats.uid === ownUid) && (stats.mode & 0o022) === 0;
}

/** Written whole under a new private name, then renamed: a reader never sees half a file. Best effort. */
function keepTemplate(file: string, dump: Uint8Array): void {
  const partial = `${file}.${process.pid}.${Date.now()}`;
  try {
    writeFileSync(partial, dump, { mode: 0o600, flag: 'wx' });
    // Fails where another user's file has the name (the temp folder is sticky): this process goes without.
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true });
  }
}

function templateFile(): string {
  return join(tmpdir(), `vus-pglite-template-${engineVersion()}.tar`);
}

function forgetTemplate(): void {
  template = undefined;
  rmSync(templateFile(), { force: true });
}

/** The engine's package versions: a template is only valid for the PGlite that made it. */
function engineVersion(): string {
  const version = (entry: string, name: string) => {
    let dir = dirname(entry);
    while (
      !existsSync(join(dir, 'package.json')) ||
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name
    ) {
      const parent = dirname(dir);
      if (parent === dir) return 'unknown';
      dir = parent;
    }
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  };
  const modules = engineModules();
  return `${version(modules.pglite, '@electric-sql/pglite')}-vector${version(modules.vector, '@electric-sql/pglite-pgvector')}`;
}

/**
 * The worker thread's program. It is serialised with toString() and run with `eval`, so it uses
 * nothing but its argument and what it requires itself.
 */
function engineThread({ parentPort, workerData }: typeof WorkerThreads): void {
  const data = workerData as { task: ThreadTask; modules: { pglite: string; vector: string; socket: string } };
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded inside the thread (resolved paths for the packages) */
  const { PGlite } = require(data.modules.pglite) as typeof Pglite;
  const { vector } = require(data.modules.vector) as typeof PgliteVector;
  const { PGLiteSocketServer } = require(data.modules.socket) as typeof PgliteSocket;
  const { chmodSync, mkdirSync } = require('node:fs') as typeof Fs;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const { task } = data;
  void (async () => {
    if (task.kind === 'dump') {
      const empty = await PGlite.create('memory://', { extensions: { vector } });
      const dump = new Uint8Array(await (await empty.dumpDataDir('none')).arrayBuffer());
      await empty.close();
      parentPort!.postMessage({ dump }, [dump.buffer]);
      return;
    }
    if (!task.dataDir.startsWith('memory://')) {
      mkdirSync(task.dataDir, { recursive: true, mode: 0o700 });
      // Owner-only, whatever the umask: PGlite gives the files in it mode 0666 (they hold every row).
      chmodSync(task.dataDir, 0o700);
    }
    // pgvector is offered (not created): a service's migration enables it where it needs vectors.
    const loadDataDir = task.template && new Blob([task.template]);
    const db = await PGlite.create(task.dataDir, { extensions: { vector }, ...(loadDataDir && { loadDataDir }) });
    // PostgreSQL's default cost of a random page read (4 sequential ones) is for spinning disks;
    // PGlite's pages are local files the OS keeps cached. At 1.1 (the usual SSD setting) the
    // planner takes index scans it priced out before: search.js --pglite at 2,000 videos, one
    // connection, ABBA: text 14.1 / 12.5 -> 16.9 / 16.1 req/s, visual 24.5 / 19.7 -> 29.8 / 28.1,
    // combined 16.6 / 14.5 -> 17.2 / 19.2 (issue 31). One session, so set once for all its clients.
    await db.exec('SET random_page_cost = 1.1');
    // PGlite is single-session; two connections: the pool's one and a dedicated one (migrations).
    const server = new PGLiteSocketServer({ db, path: task.socketPath, maxConnections: 2 });
    await server.start();
    parentPort!.on('message', () => {
      void (async () => {
        await server.stop().catch(() => undefined);
        await db.close().catch(() => undefined);
        parentPort!.postMessage('stopped');
      })();
    });
    parentPort!.postMessage({ ready: true });
  })().catch((error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) }));
}
