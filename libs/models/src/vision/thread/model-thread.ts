import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ThreadModelName, ThreadReply, ThreadRequest } from './protocol';

/**
 * A worker thread holding frame models (thread-main.ts), so their inference runs beside Node's main
 * thread instead of on it. TF.js on WASM is synchronous, and so is onnxruntime-node's run (1.30: the
 * session runs on the calling thread): in-process, a frame's detector or text reader blocked the
 * event loop (in `npm start`, the gateway's too) and two models could never run at once.
 *
 * The thread starts with the first model loaded into it and ends when the last one is disposed (the
 * registry's dispose), or when it dies (every call waiting on it then fails). It keeps the process
 * alive only while a call is waiting on it. Each thread has its own WASM runtime and weights.
 */
export class ModelThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly loaded = new Set<ThreadModelName>();
  private nextId = 1;
  private endWhenIdle = false;
  private ending: Promise<void> | undefined;

  constructor(readonly name: string) {}

  /** Whether its worker is running. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Loads the model into the thread (starting it); a failure leaves no thread behind when it held nothing else. */
  async load(model: ThreadModelName, options: unknown = {}): Promise<void> {
    // Counted from now: the thread must not end under a load in progress.
    this.loaded.add(model);
    try {
      await this.request({ type: 'load', id: this.nextId++, model, options });
    } catch (error) {
      this.loaded.delete(model);
      await this.endIfIdle();
      throw error;
    }
  }

  /** Calls a method of a loaded model; an image crosses as a copy of its bytes (the caller keeps its Buffer). */
  call<T>(model: ThreadModelName, method: string, args: readonly unknown[]): Promise<T> {
    const transfer: ArrayBuffer[] = [];
    const sent = args.map((arg) => {
      if (!Buffer.isBuffer(arg)) return arg;
      const bytes = copyOf(arg);
      transfer.push(bytes.buffer);
      return bytes;
    });
    return this.request({ type: 'call', id: this.nextId++, model, method, args: sent }, transfer) as Promise<T>;
  }

  /** Frees the model in the thread; the thread ends with its last model, once no call waits on it. */
  async dispose(model: ThreadModelName): Promise<void> {
    if (!this.loaded.delete(model)) return;
    try {
      await this.request({ type: 'dispose', id: this.nextId++, model });
    } finally {
      await this.endIfIdle();
    }
  }

  /** Ends the thread now; calls waiting on it fail. */
  async terminate(): Promise<void> {
    const worker = this.worker;
    if (!worker) return this.ending;
    this.worker = undefined;
    this.endWhenIdle = false;
    this.loaded.clear();
    this.failAll(new Error(`model thread ${this.name} was terminated`));
    this.ending = worker.terminate().then(() => undefined);
    return this.ending;
  }

  /** Ends the thread when it holds no model: now, or when the last call waiting on it is answered. */
  private async endIfIdle(): Promise<void> {
    if (this.loaded.size > 0) return;
    if (this.pending.size === 0) await this.terminate();
    else this.endWhenIdle = true;
  }

  private request(message: ThreadRequest, transfer: ArrayBuffer[] = []): Promise<unknown> {
    const worker = this.started();
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage(message, transfer);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(threadEntry(), { name: this.name });
    worker.unref();
    worker.on('message', (reply: ThreadReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.settled(reply.id);
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
    });
    worker.on('error', (error) => this.died(worker, error));
    worker.on('exit', (code) => this.died(worker, new Error(`model thread ${this.name} exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size > 0) return;
    if (this.endWhenIdle && this.loaded.size === 0) void this.terminate();
    else this.worker?.unref();
  }

  private died(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.endWhenIdle = false;
    this.loaded.clear();
    this.failAll(error);
  }

  private failAll(error: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of waiting) reject(error);
  }
}

/** A private copy of the image's bytes, to transfer (a Buffer may be a view into Node's shared pool). */
function copyOf(image: Buffer): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(image.byteLength);
  bytes.set(image);
  return bytes;
}

/**
 * The worker's script: thread-main.js beside this file once built. Tests run the TypeScript sources
 * (swc), which a worker thread cannot load: they start the built one (`npm run build -w @vus/models`).
 */
export function threadEntry(): string {
  const beside = join(__dirname, 'thread-main.js');
  if (existsSync(beside)) return beside;
  return join(__dirname, '..', '..', '..', 'dist', 'vision', 'thread', 'thread-main.js');
}
