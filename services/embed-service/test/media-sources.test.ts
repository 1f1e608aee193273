/* The bytes of a synchronous embedding's media, by where the request says they are (issue 29: moved out of server.ts). */
import type { BlobStore } from '@vus/blob';
import { codeOf } from '@vus/testing';
import { Readable } from 'node:stream';
import { mediaReader, type MediaSourceInput } from '../src/media-sources';

const fetched: { url: string; param: string }[] = [];
const fetchMedia = async (url: string, param: string) => (fetched.push({ url, param }), Buffer.from(`fetched ${url}`));
const blobs = { get: async (key: string) => Readable.from([Buffer.from('stored '), Buffer.from(key)]) } as unknown as BlobStore;

describe('mediaReader', () => {
  beforeEach(() => (fetched.length = 0));

  it.each<[string, MediaSourceInput | undefined, { bytes: string; url?: string; filename?: string } | undefined, string[]]>([
    ['no source', undefined, undefined, []],
    ['an empty kind', { kind: '' }, undefined, []],
    ['inline bytes', { kind: 'data', data: Buffer.from('abc'), filename: 'a.png' }, { bytes: 'abc', filename: 'a.png' }, []],
    ['inline without bytes', { kind: 'data' }, { bytes: '' }, []],
    [
      'a URL, fetched under <param>_url',
      { kind: 'url', url: 'https://x/a.png' },
      { bytes: 'fetched https://x/a.png', url: 'https://x/a.png' },
      ['https://x/a.png image_url'],
    ],
    ['a blob key, read whole', { kind: 'blob_key', blobKey: 'k1', filename: '' }, { bytes: 'stored k1' }, []],
  ])('%s', async (_name, source, expected, fetches) => {
    const media = await mediaReader(fetchMedia, blobs)(source, 'image');
    expect(media && { ...media, bytes: media.bytes.toString() }).toEqual(expected);
    expect(fetched.map((f) => `${f.url} ${f.param}`)).toEqual(fetches);
  });

  it.each<[string, MediaSourceInput, BlobStore | undefined, string]>([
    ['a blob key without a blob store', { kind: 'blob_key', blobKey: 'k1' }, undefined, 'not_implemented'],
    ['an asset id (the gateway resolves assets first)', { kind: 'asset_id' }, blobs, 'parameter_invalid'],
  ])('refuses %s', async (_name, source, store, code) => {
    expect(await codeOf(mediaReader(fetchMedia, store)(source, 'audio'))).toBe(code);
    expect(fetched).toEqual([]);
  });
});
