import type * as Pglite from '@electric-sql/pglite';
import type * as PgliteVector from '@electric-sql/pglite-pgvector';
import type * as PgliteSocket from '@electric-sql/pglite-socket';
import type * as Fs from 'node:fs';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type * as WorkerThreads from 'node:worker_threads';

/**
 * The embedded database engine: PGlite (PostgreSQL compiled to WASM) served over the wire protocol
 * on loopback, in a worker thread of its own.
 *
 * Why a thread: PGlite runs a statement synchronously, and it honours no statement_timeout (WASM has
 * no timer signals). In the main thread a runaway statement — a 2,000-term expression built from a
 * long search query spun for minutes — froze the whole process at 100% CPU. In a worker the main
 * thread keeps serving, a client-side timeout notices, and `kill()` stops the statement by ending
 * the thread; the database is then opened again from its folder (see Database).
 */
export class EmbeddedEngine {
  private constructor(
    private readonly worker: Worker,
    readonly host: string,
    readonly port: number,
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
    const worker = startThread({ kind: 'serve', dataDir, template });
    try {
      const { ready } = await firstAnswer<{ ready: string }>(worker);
      const [host, port] = ready.split(':');
      return new EmbeddedEngine(worker, host!, Number(port));
    } catch (error) {
      await worker.terminate();
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
  }

  /** Ends the thread at once, whatever it is running (a runaway statement). */
  async kill(): Promise<void> {
    await this.worker.terminate();
  }
}

type ThreadTask = { kind: 'serve'; dataDir: string; template?: Uint8Array | undefined } | { kind: 'dump' };

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
    if (existsSync(file)) return new Uint8Array(readFileSync(file));
    const worker = startThread({ kind: 'dump' });
    try {
      const { dump } = await firstAnswer<{ dump: Uint8Array }>(worker);
      // Written whole under a private name, then renamed: a reader never sees half a file.
      const partial = `${file}.${process.pid}.${Date.now()}`;
      writeFileSync(partial, dump);
      renameSync(partial, file);
      return dump;
    } finally {
      await worker.terminate();
    }
  })();
  template.catch(() => (template = undefined));
  return template;
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
  const { mkdirSync } = require('node:fs') as typeof Fs;
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
    if (!task.dataDir.startsWith('memory://')) mkdirSync(task.dataDir, { recursive: true });
    // pgvector is offered (not created): a service's migration enables it where it needs vectors.
    const loadDataDir = task.template && new Blob([task.template]);
    const db = await PGlite.create(task.dataDir, { extensions: { vector }, ...(loadDataDir && { loadDataDir }) });
    // PGlite is single-session; two connections: the pool's one and a dedicated one (migrations).
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 2 });
    await server.start();
    parentPort!.on('message', () => {
      void (async () => {
        await server.stop().catch(() => undefined);
        await db.close().catch(() => undefined);
        parentPort!.postMessage('stopped');
      })();
    });
    parentPort!.postMessage({ ready: server.getServerConn() });
  })().catch((error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) }));
}
