import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { isApiError } from '@vus/core';
import { blobEnvShape, FileBlobStore, isValidBlobKey, openBlobStore } from '@vus/blob';
import { loadConfig } from '@vus/core';
import { z } from 'zod';

let root: string;
let store: FileBlobStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vus-blob-'));
  store = await FileBlobStore.open(root);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `count` fresh chunks of `size` bytes, each made only when the store pulls it. */
async function* chunks(count: number, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < count; i++) yield Buffer.alloc(size, i % 251);
}

async function tempFiles(): Promise<string[]> {
  return readdir(join(root, '.tmp'));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => error,
  );
}

describe('FileBlobStore', () => {
  describe('put and get', () => {
    it('stores a stream and gives it back, with its size', async () => {
      const info = await store.put('uploads/task1/video', Readable.from([Buffer.from('hello '), Buffer.from('world')]));
      expect(info).toMatchObject({ key: 'uploads/task1/video', size: 11 });
      expect(await text(await store.get('uploads/task1/video'))).toBe('hello world');
      expect(await readFile(join(root, 'uploads', 'task1', 'video'), 'utf8')).toBe('hello world');
      expect(await tempFiles()).toEqual([]);
    });

    it('reads a byte range', async () => {
      await store.put('a', Readable.from([Buffer.from('0123456789')]));
      expect(await text(await store.get('a', { start: 2, end: 4 }))).toBe('234');
      expect(await text(await store.get('a', { start: 7 }))).toBe('789');
    });

    it('replaces an existing blob', async () => {
      await store.put('a', Readable.from([Buffer.from('old')]));
      await store.put('a', Readable.from([Buffer.from('new content')]));
      expect(await text(await store.get('a'))).toBe('new content');
    });

    it('streams 64 MiB without holding it in memory: it pulls only as fast as it writes', async () => {
      const size = 64 * 1024;
      let maxAhead = 0;
      async function* measured(): AsyncGenerator<Buffer> {
        for (let i = 0; i < 1024; i++) {
          const [part] = await tempFiles();
          const written = part ? ((await stat(join(root, '.tmp', part)).catch(() => undefined))?.size ?? 0) : 0;
          maxAhead = Math.max(maxAhead, i * size - written);
          yield Buffer.alloc(size, i % 251);
        }
      }
      const info = await store.put('big', measured());
      expect(info.size).toBe(1024 * size);
      expect(maxAhead).toBeLessThan(2 * 1024 * 1024);
    });

    it('answers resource_not_exist for a missing key', async () => {
      const error = await rejection(store.get('nope'));
      expect(isApiError(error) && error.code).toBe('resource_not_exist');
      expect(await rejection(store.download('nope', join(root, 'x')))).toMatchObject({ code: 'resource_not_exist' });
    });
  });

  describe('the byte limit', () => {
    it('aborts past the limit, keeps nothing, and leaves an older blob intact', async () => {
      await store.put('upload', Readable.from([Buffer.from('previous')]));
      const source = Readable.from(chunks(100, 1024));
      const error = await rejection(store.put('upload', source, { maxBytes: 10 * 1024 }));
      expect(error).toMatchObject({ code: 'payload_too_large', message: 'The upload is larger than the limit of 10240 bytes.' });
      expect(source.destroyed).toBe(true);
      expect(await text(await store.get('upload'))).toBe('previous');
      expect(await tempFiles()).toEqual([]);
    });

    it('accepts exactly the limit', async () => {
      expect((await store.put('exact', chunks(10, 1024), { maxBytes: 10 * 1024 })).size).toBe(10 * 1024);
    });

    it('cleans up when the source fails or the signal fires', async () => {
      async function* failing(): AsyncGenerator<Buffer> {
        yield Buffer.from('part');
        throw new Error('connection reset');
      }
      await expect(store.put('broken', failing())).rejects.toThrow('connection reset');
      const controller = new AbortController();
      controller.abort();
      await expect(store.put('aborted', chunks(10, 10), { signal: controller.signal })).rejects.toThrow(/abort/i);
      expect(await store.stat('broken')).toBeUndefined();
      expect(await store.stat('aborted')).toBeUndefined();
      expect(await tempFiles()).toEqual([]);
    });
  });

  describe('keys', () => {
    it.each([
      ['uploads/6528dde5/video.mp4', true],
      ['a', true],
      ['a_b-c.d/e', true],
      ['', false],
      ['../etc/passwd', false],
      ['a/../../b', false],
      ['a/./b', false],
      ['/abs', false],
      ['a//b', false],
      ['a/', false],
      ['.tmp/x', false],
      ['a\\b', false],
      ['a b', false],
      ['é', false],
      ['x'.repeat(513), false],
    ])('%j valid: %s', async (key, valid) => {
      expect(isValidBlobKey(key)).toBe(valid);
      if (!valid) {
        const error = await rejection(store.put(key, chunks(1, 1)));
        expect(error).toMatchObject({ code: 'parameter_invalid' });
        await expect(store.get(key)).rejects.toMatchObject({ code: 'parameter_invalid' });
        await expect(store.delete(key)).rejects.toMatchObject({ code: 'parameter_invalid' });
      }
    });

    it('refuses an empty prefix or one that climbs out', async () => {
      await expect(store.deletePrefix('')).rejects.toMatchObject({ code: 'parameter_invalid' });
      await expect(store.deletePrefix('../')).rejects.toMatchObject({ code: 'parameter_invalid' });
    });
  });

  describe('stat, download, delete, deletePrefix', () => {
    beforeEach(async () => {
      for (const key of ['videos/v1/original', 'videos/v1/thumbs/0', 'videos/v1/thumbs/1', 'videos/v10/original', 'videos/v2/original']) {
        await store.put(key, Readable.from([Buffer.from(key)]));
      }
    });

    it('stats files only', async () => {
      expect(await store.stat('videos/v1/original')).toMatchObject({ size: 'videos/v1/original'.length });
      expect(await store.stat('videos/v1')).toBeUndefined();
      expect(await store.stat('videos/none')).toBeUndefined();
    });

    it('downloads to a local file', async () => {
      const dest = join(root, '..', `${root.split('/').pop()}-download`);
      try {
        await store.download('videos/v2/original', dest);
        expect(await readFile(dest, 'utf8')).toBe('videos/v2/original');
      } finally {
        await rm(dest, { force: true });
      }
    });

    it('deletes one blob and says whether it existed', async () => {
      expect(await store.delete('videos/v2/original')).toBe(true);
      expect(await store.delete('videos/v2/original')).toBe(false);
      expect(await readdir(join(root, 'videos'))).toEqual(expect.not.arrayContaining(['v2']));
    });

    it('treats a key below a file as absent (a deleted blob may be asked for again)', async () => {
      expect(await store.stat('videos/v2/original/x')).toBeUndefined();
      expect(await store.delete('videos/v2/original/x')).toBe(false);
      await expect(store.get('videos/v2/original/x')).rejects.toMatchObject({ code: 'resource_not_exist' });
      expect(await store.deletePrefix('videos/v2/original/x/')).toBe(0);
      expect(await store.stat('videos/v2/original')).toBeDefined();
    });

    it('deletes a folder prefix and nothing beside it', async () => {
      expect(await store.deletePrefix('videos/v1/')).toBe(3);
      expect(await store.stat('videos/v10/original')).toBeDefined();
      expect(await store.stat('videos/v2/original')).toBeDefined();
      expect(await store.deletePrefix('videos/v1/')).toBe(0);
    });

    it('lists the blobs under a folder, with their sizes; an absent folder or a file lists nothing', async () => {
      const listed = async (folder: string) => {
        const keys: string[] = [];
        for await (const info of store.list(folder)) keys.push(`${info.key}:${info.size}`);
        return keys.sort();
      };
      expect(await listed('videos/v1/')).toEqual(['videos/v1/original:18', 'videos/v1/thumbs/0:18', 'videos/v1/thumbs/1:18']);
      expect(await listed('videos/v1')).toEqual(await listed('videos/v1/'));
      expect(await listed('videos/none/')).toEqual([]);
      expect(await listed('videos/v2/original')).toEqual([]);
      await expect(store.list('../x/')[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'parameter_invalid' });
    });

    it('deletes a name prefix across siblings', async () => {
      expect(await store.deletePrefix('videos/v1')).toBe(4);
      expect(await store.stat('videos/v2/original')).toBeDefined();
      expect(await store.deletePrefix('nothing/here/')).toBe(0);
    });
  });

  it('removes temp files left by a crash, but not recent ones', async () => {
    const stale = join(root, '.tmp', 'stale.part');
    const fresh = join(root, '.tmp', 'fresh.part');
    await writeFile(stale, 'x');
    await writeFile(fresh, 'x');
    const dayAgo = new Date(Date.now() - 24 * 3600_000);
    await utimes(stale, dayAgo, dayAgo);
    await FileBlobStore.open(root);
    expect(await tempFiles()).toEqual(['fresh.part']);
  });
});

describe('configuration', () => {
  const schema = z.object(blobEnvShape);

  it('defaults to the filesystem store', async () => {
    expect(loadConfig(schema, {})).toEqual({ BLOB_STORE: 'fs' });
    const opened = await openBlobStore({ kind: 'fs', root });
    expect(opened).toBeInstanceOf(FileBlobStore);
  });

  it('makes selecting S3 a clear configuration error', async () => {
    expect(() => loadConfig(schema, { BLOB_STORE: 's3' })).toThrow(/BLOB_STORE: S3-compatible blob storage is not built yet/);
    await expect(openBlobStore({ kind: 's3' })).rejects.toMatchObject({ name: 'ConfigError' });
  });
});
