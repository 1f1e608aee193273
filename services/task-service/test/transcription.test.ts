import { FileBlobStore } from '@vus/blob';
import { MAX_TRANSCRIPTION_BYTES } from '@vus/domain';
import { errorOf } from '@vus/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readTranscriptionBlob } from '../src/worker/transcription';

/** A transcription_file blob of any size is read within the cap, never whole (one was 2 GiB). */
describe('readTranscriptionBlob', () => {
  let dir: string;
  let blobs: FileBlobStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vus-transcription-'));
    blobs = await FileBlobStore.open(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const srt = '1\n00:00:01,000 --> 00:00:02,000\nHello\n';

  it('reads a transcription within the cap as text', async () => {
    await blobs.put('uploads/a/transcription_file-0', Readable.from([Buffer.from(srt)]));
    expect(await readTranscriptionBlob(blobs, 'uploads/a/transcription_file-0', 1024)).toBe(srt);
  });

  it('refuses one byte over the cap with payload_too_large, naming the parameter and the cap', async () => {
    await blobs.put('uploads/b/transcription_file-0', Readable.from([Buffer.alloc(1025, 65)]));
    expect(await errorOf(readTranscriptionBlob(blobs, 'uploads/b/transcription_file-0', 1024))).toEqual({
      code: 'payload_too_large',
      message: 'The transcription_file is larger than 1024 bytes; a transcription file may be at most 1024 bytes.',
    });
  });

  it('refuses a blob far over the default cap without reading it', async () => {
    const huge = { size: 2 * 1024 ** 3 };
    const reads: string[] = [];
    const store = {
      stat: async () => ({ ...huge, updatedAt: new Date() }),
      get: async (key: string) => (reads.push(key), Readable.from([])),
    };
    const error = await errorOf(
      readTranscriptionBlob(store as unknown as FileBlobStore, 'uploads/c/transcription_file-0', MAX_TRANSCRIPTION_BYTES),
    );
    expect(error).toMatchObject({ code: 'payload_too_large' });
    expect(reads).toEqual([]);
  });

  it('stops reading one byte past the cap when the size was not known beforehand', async () => {
    const chunks = function* () {
      for (let i = 0; ; i++) yield Buffer.alloc(256, 66);
    };
    const store = { stat: async () => undefined, get: async () => Readable.from(chunks()) };
    expect(await errorOf(readTranscriptionBlob(store as unknown as FileBlobStore, 'k', 1024))).toMatchObject({ code: 'payload_too_large' });
  });
});
