import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, errors } from '@vus/core';
import { assertValidBlobKey, assertValidBlobPrefix } from './keys';
import type { BlobInfo, BlobStore, ByteRange, PutOptions } from './store';

/** Temp files of puts in progress; a dot name, which no key can have. */
const TMP_DIR = '.tmp';
/** Temp files older than this are left over from a crash and removed on open. */
const STALE_TMP_MS = 60 * 60_000;

/**
 * Blobs as files under one root folder, key `a/b/c` at `<root>/a/b/c`. A put streams into
 * `<root>/.tmp/<random>`, fsyncs, and renames into place (atomic on one filesystem).
 */
export class FileBlobStore implements BlobStore {
  private constructor(readonly root: string) {}

  static async open(root: string): Promise<FileBlobStore> {
    const store = new FileBlobStore(resolve(root));
    await mkdir(join(store.root, TMP_DIR), { recursive: true });
    await store.removeStaleTempFiles();
    return store;
  }

  async put(key: string, source: Readable | AsyncIterable<Uint8Array>, options: PutOptions = {}): Promise<BlobInfo> {
    const target = this.pathOf(key);
    const tmp = join(this.root, TMP_DIR, `${randomBytes(12).toString('hex')}.part`);
    try {
      await pipeline(source, byteLimit(options.maxBytes), createWriteStream(tmp, { flags: 'wx' }), {
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const handle = await open(tmp, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.moveIntoPlace(tmp, target);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    return (await this.stat(key))!;
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const handle = await open(this.pathOf(key), 'r').catch((error: NodeJS.ErrnoException) => {
      throw isAbsent(error) || error.code === 'EISDIR' ? errors.notFound('Blob', key) : error;
    });
    return handle.createReadStream(range ? { start: range.start, ...(range.end !== undefined ? { end: range.end } : {}) } : {});
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { key, size: info.size, modifiedAt: info.mtime } : undefined;
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
  }

  async download(key: string, destPath: string): Promise<BlobInfo> {
    const info = await this.stat(key);
    if (!info) throw errors.notFound('Blob', key);
    // copy_file_range/reflink where the filesystem has them: no bytes through this process.
    await copyFile(this.pathOf(key), destPath);
    return info;
  }

  async delete(key: string): Promise<boolean> {
    const path = this.pathOf(key);
    try {
      await unlink(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (isAbsent(error) || code === 'EISDIR' || code === 'EPERM') return false;
      throw error;
    }
    await this.removeEmptyParents(dirname(path));
    return true;
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertValidBlobPrefix(prefix);
    const slash = prefix.lastIndexOf('/');
    const parent = join(this.root, ...prefix.slice(0, Math.max(0, slash)).split('/').filter(Boolean));
    const namePrefix = prefix.slice(slash + 1);
    let entries: string[];
    try {
      entries = await readdir(parent);
    } catch (error) {
      if (isAbsent(error)) return 0;
      throw error;
    }
    let deleted = 0;
    for (const name of entries) {
      if (!name.startsWith(namePrefix) || name.startsWith('.')) continue;
      deleted += await removeTree(join(parent, name));
    }
    await this.removeEmptyParents(parent);
    return deleted;
  }

  async *list(folder: string): AsyncIterable<BlobInfo> {
    assertValidBlobPrefix(folder);
    const base = folder.replace(/\/$/, '');
    yield* this.walk(base);
  }

  /** The files under a key's folder (depth first), skipping what is not a file. */
  private async *walk(key: string): AsyncIterable<BlobInfo> {
    let names: string[];
    try {
      names = await readdir(this.pathOf(key));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (isAbsent(error) || code === 'ENOTDIR') return;
      throw error;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const child = `${key}/${name}`;
      const info = await stat(this.pathOf(child)).catch(() => undefined);
      if (info?.isDirectory()) yield* this.walk(child);
      else if (info?.isFile()) yield { key: child, size: info.size, modifiedAt: info.mtime };
    }
  }

  /** The file of a key (validated). Exposed for the gateway's file serving and for tests. */
  pathOf(key: string): string {
    assertValidBlobKey(key);
    return join(this.root, ...key.split('/'));
  }

  private async moveIntoPlace(tmp: string, target: string): Promise<void> {
    // A concurrent delete may remove the empty parent folder between mkdir and rename: retry once.
    for (let attempt = 0; ; attempt++) {
      await mkdir(dirname(target), { recursive: true });
      try {
        await rename(tmp, target);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'ENOTDIR') {
          throw new ApiError('parameter_invalid', `Blob key ${relative(this.root, target)} clashes with an existing folder or file.`);
        }
        if (code !== 'ENOENT' || attempt > 0) throw error;
      }
    }
  }

  private async removeEmptyParents(dir: string): Promise<void> {
    for (let current = dir; current.startsWith(this.root + sep); current = dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return; // not empty (or gone): stop climbing
      }
    }
  }

  private async removeStaleTempFiles(): Promise<void> {
    const dir = join(this.root, TMP_DIR);
    const now = Date.now();
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > STALE_TMP_MS) await rm(path, { force: true });
    }
  }
}

/** No such file: nothing at the path, or a file where the path needs a folder (`a/b` when `a` is a file). */
function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Counts the files under a path (a file counts 1) and removes it. */
async function removeTree(path: string): Promise<number> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) {
    await rm(path, { force: true });
    return 1;
  }
  let count = 0;
  for (const name of await readdir(path)) count += await removeTree(join(path, name));
  await rm(path, { recursive: true, force: true });
  return count;
}

/** Passes bytes through, failing with `payload_too_large` once more than `maxBytes` went by. */
function byteLimit(maxBytes: number | undefined): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (maxBytes !== undefined && seen > maxBytes) {
        callback(
          new ApiError('payload_too_large', `The upload is larger than the limit of ${maxBytes} bytes.`, { limit: String(maxBytes) }),
        );
        return;
      }
      callback(null, chunk);
    },
  });
}
