import { type ApiError } from '@vus/core';
import { chunkProblem, expectedChunkSize, planChunks, type UploadRecord } from '../src/assets/assets';
import { indexedAssetStatus, taskStatusesOf } from '../src/assets/indexed-assets';
import { sniffMedia, videoMime } from '../src/assets/sniff';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniffMedia', () => {
  it.each([
    ['PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest'), { kind: 'image', mime: 'image/png' }],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'), { kind: 'image', mime: 'image/jpeg' }],
    ['GIF', bytes('GIF89a....'), { kind: 'image', mime: 'image/gif' }],
    ['WebP', bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 '), { kind: 'image', mime: 'image/webp' }],
    ['AVIF', bytes([0, 0, 0, 0x1c], 'ftypavif', [0, 0, 0, 0]), { kind: 'image', mime: 'image/avif' }],
    ['WAV', bytes('RIFF', [1, 2, 3, 4], 'WAVEfmt '), { kind: 'audio', mime: 'audio/wav' }],
    ['MP3 with ID3', bytes('ID3', [4, 0, 0, 0, 0, 0]), { kind: 'audio', mime: 'audio/mpeg' }],
    ['MP3 frame', bytes([0xff, 0xfb, 0x90, 0x64, 0, 0]), { kind: 'audio', mime: 'audio/mpeg' }],
    ['ADTS AAC', bytes([0xff, 0xf1, 0x50, 0x80, 0, 0]), { kind: 'audio', mime: 'audio/aac' }],
    ['FLAC', bytes('fLaC', [0, 0, 0, 0x22]), { kind: 'audio', mime: 'audio/flac' }],
    ['M4A', bytes([0, 0, 0, 0x20], 'ftypM4A ', [0, 0, 0, 0]), { kind: 'audio', mime: 'audio/mp4' }],
    ['MP4', bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0]), { kind: 'probe' }],
    ['AVI', bytes('RIFF', [1, 2, 3, 4], 'AVI LIST'), { kind: 'probe' }],
    ['Matroska', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]), { kind: 'probe' }],
    ['MPEG-TS', bytes([0x47, 0x40, 0x11, 0x10, 0x00, 0x42, 0xf0, 0x25, 0x00, 0x01]), { kind: 'probe' }],
  ])('%s', (_name, head, expected) => {
    expect(sniffMedia(head)).toEqual(expected);
  });

  it.each([
    ['an HLS playlist', '#EXTM3U\n#EXT-X-VERSION:3\n', /playlist/],
    ['a playlist after a BOM and blank lines', '\uFEFF\n\n  #EXTM3U\n', /playlist/],
    ['a DASH manifest', '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">', /playlist/],
    ['an ffconcat list', 'ffconcat version 1.0\nfile a.mp4\n', /playlist/],
    ['an HTML page', '<!DOCTYPE html><html><body>', /text/],
    ['XML', '<?xml version="1.0"?><svg>', /text/],
    ['JSON', '{"video": "elsewhere"}', /text/],
    ['plain text', 'just some words that are not a video at all', /text/],
  ])('refuses %s', (_name, text, reason) => {
    const sniffed = sniffMedia(Buffer.from(text, 'utf8'));
    expect(sniffed.kind).toBe('refused');
    expect(sniffed.kind === 'refused' && sniffed.reason).toMatch(reason);
  });

  it('refuses an empty or tiny file', () => {
    expect(sniffMedia(Buffer.alloc(0)).kind).toBe('refused');
    expect(sniffMedia(Buffer.from([1, 2])).kind).toBe('refused');
  });

  it.each([
    ['mp4', 'video/mp4'],
    ['mov', 'video/quicktime'],
    ['webm', 'video/webm'],
    ['matroska', 'video/x-matroska'],
  ])('names the %s container %s', (container, mime) => {
    expect(videoMime(container)).toBe(mime);
  });
});

describe('multipart chunks', () => {
  const MiB = 1024 * 1024;
  const upload = (over: Partial<UploadRecord> = {}): UploadRecord => ({
    id: '6528dde58f9cd95a98cbd075',
    orgId: 'org',
    assetId: '6528dde58f9cd95a98cbd076',
    status: 'active',
    totalSize: 20 * MiB + 5,
    chunkSize: 8 * MiB,
    totalChunks: 3,
    expiresAt: new Date('2024-05-02T00:00:00Z'),
    createdAt: new Date('2024-05-01T00:00:00Z'),
    updatedAt: new Date('2024-05-01T00:00:00Z'),
    ...over,
  });
  const now = new Date('2024-05-01T12:00:00Z');

  it.each([
    [1, 8 * MiB, { chunkSize: 8 * MiB, totalChunks: 1 }],
    [8 * MiB, 8 * MiB, { chunkSize: 8 * MiB, totalChunks: 1 }],
    [8 * MiB + 1, 8 * MiB, { chunkSize: 8 * MiB, totalChunks: 2 }],
    [10, 3, { chunkSize: 3, totalChunks: 4 }],
  ])('plans %d bytes in chunks of %d', (total, chunk, expected) => {
    expect(planChunks(total, chunk)).toEqual(expected);
  });

  it.each([
    [0, 'parameter_invalid'],
    [-5, 'parameter_invalid'],
    [1.5, 'parameter_invalid'],
    [4 * 1024 ** 3 + 1, 'payload_too_large'],
  ])('refuses a total size of %d (%s)', (total, code) => {
    expect(() => planChunks(total)).toThrow(expect.objectContaining({ code }) as ApiError);
  });

  it('refuses more than 10,000 chunks', () => {
    expect(() => planChunks(10_001, 1)).toThrow(/10000 chunks/);
  });

  it('gives every chunk the chunk size and the last one the rest', () => {
    expect([1, 2, 3].map((i) => expectedChunkSize(upload(), i))).toEqual([8 * MiB, 8 * MiB, 4 * MiB + 5]);
  });

  it.each([
    ['a chunk of the right size', {}, 1, 8 * MiB, undefined],
    ['the last chunk, shorter', {}, 3, 4 * MiB + 5, undefined],
    ['a chunk too large', {}, 3, 4 * MiB + 6, 'payload_too_large'],
    ['a short chunk that is not the last', {}, 2, MiB, 'parameter_invalid'],
    ['index 0', {}, 0, 8 * MiB, 'parameter_invalid'],
    ['an index past the last', {}, 4, 8 * MiB, 'parameter_invalid'],
    ['a completed upload', { status: 'completed' as const }, 1, 8 * MiB, 'parameter_invalid'],
    ['an expired upload', { expiresAt: new Date('2024-05-01T11:00:00Z') }, 1, 8 * MiB, 'parameter_invalid'],
  ])('%s', (_name, over, index, size, code) => {
    expect(chunkProblem(upload(over), index, size, now)?.code).toBe(code);
  });
});

describe('indexed-asset statuses', () => {
  it.each([
    ['uploading', 'pending'],
    ['validating', 'pending'],
    ['pending', 'pending'],
    ['queued', 'queued'],
    ['indexing', 'indexing'],
    ['ready', 'ready'],
    ['failed', 'failed'],
  ] as const)('a %s task is a %s indexed asset', (task, shown) => {
    expect(indexedAssetStatus(task)).toBe(shown);
  });

  it('filters by the task statuses each one stands for', () => {
    expect(taskStatusesOf(['pending', 'ready'])).toEqual(['uploading', 'validating', 'pending', 'ready']);
  });
});
