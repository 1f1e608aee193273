import type * as Pglite from '@electric-sql/pglite';
import type * as PgliteVector from '@electric-sql/pglite-pgvector';
import type * as PgliteSocket from '@electric-sql/pglite-socket';
import type * as Fs from 'node:fs';
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
    const worker = new Worker(`(${engineThread.toString()})(require('node:worker_threads'))`, {
      eval: true,
      workerData: {
        dataDir,
        // Resolved here: an eval'd worker has no module path of its own to resolve from.
        modules: {
          pglite: require.resolve('@electric-sql/pglite'),
          vector: require.resolve('@electric-sql/pglite-pgvector'),
          socket: require.resolve('@electric-sql/pglite-socket'),
        },
      },
    });
    try {
      const address = await new Promise<string>((resolve, reject) => {
        worker.once('message', (message: { ready?: string; error?: string }) =>
          message.ready ? resolve(message.ready) : reject(new Error(`The embedded database did not start: ${message.error}`)),
        );
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`The embedded database thread exited (${code}) while starting.`)));
      });
      const [host, port] = address.split(':');
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

/**
 * The worker thread's program. It is serialised with toString() and run with `eval`, so it uses
 * nothing but its argument and what it requires itself.
 */
function engineThread({ parentPort, workerData }: typeof WorkerThreads): void {
  const data = workerData as { dataDir: string; modules: { pglite: string; vector: string; socket: string } };
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded inside the thread (resolved paths for the packages) */
  const { PGlite } = require(data.modules.pglite) as typeof Pglite;
  const { vector } = require(data.modules.vector) as typeof PgliteVector;
  const { PGLiteSocketServer } = require(data.modules.socket) as typeof PgliteSocket;
  const { mkdirSync } = require('node:fs') as typeof Fs;
  /* eslint-enable @typescript-eslint/no-require-imports */
  void (async () => {
    if (!data.dataDir.startsWith('memory://')) mkdirSync(data.dataDir, { recursive: true });
    // pgvector is offered (not created): a service's migration enables it where it needs vectors.
    const db = await PGlite.create(data.dataDir, { extensions: { vector } });
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
