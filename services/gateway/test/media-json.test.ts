import { FileBlobStore } from '@vus/blob';
import { ApiError } from '@vus/core';
import type { Request } from 'express';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { readMediaJson, StoredMedia, type MediaJsonOptions } from '../src/http/media-json';

let dir: string;
let blobs: FileBlobStore;
let keys = 0;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-json-'));
  blobs = await FileBlobStore.open(dir);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A request whose body is `text`, sent in pieces of 1000 bytes. */
function requestOf(text: string): Request {
  const stream = new PassThrough();
  Object.assign(stream, { headers: { 'content-type': 'application/json' } });
  const bytes = Buffer.from(text);
  void (async () => {
    for (let at = 0; at < bytes.length; at += 1000) {
      if (!stream.write(bytes.subarray(at, at + 1000))) await new Promise((resolve) => stream.once('drain', resolve));
    }
    stream.end();
  })();
  return stream as unknown as Request;
}

const stored = async () => (await readdir(join(dir, 'm')).catch(() => [])).length;

function options(overrides: Partial<MediaJsonOptions> = {}): MediaJsonOptions {
  return {
    blobs,
    newKey: () => `m/${++keys}`,
    bodyBytes: 1024 * 1024,
    textBytes: 4096,
    beforeMedia: async () => undefined,
    ...overrides,
  };
}

const failure = (text: string, overrides: Partial<MediaJsonOptions> = {}) =>
  readMediaJson(requestOf(text), options(overrides)).then(
    () => 'parsed',
    (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
  );

describe('readMediaJson', () => {
  const video = Buffer.alloc(300_000, 9);
  const body = `{"input_type":"video","model_name":"m","video":{"media_source":{"base64_string":"${video.toString('base64')}"},"start_sec":2}}`;

  it('stores base64_string values as they stream, after asking beforeMedia once with the body so far', async () => {
    const asked: unknown[] = [];
    const { body: parsed, media } = await readMediaJson(
      requestOf(body),
      options({ beforeMedia: async (partial, path) => void asked.push([JSON.parse(JSON.stringify(partial)), path]) }),
    );
    expect(asked).toEqual([
      [{ input_type: 'video', model_name: 'm', video: { media_source: {} } }, ['video', 'media_source', 'base64_string']],
    ]);
    const source = (parsed.video as { media_source: { base64_string: StoredMedia } }).media_source.base64_string;
    expect(source).toBeInstanceOf(StoredMedia);
    expect(source).toMatchObject({ size: video.length, valid: true });
    expect(media).toEqual([source]);
    expect((parsed.video as { start_sec: number }).start_sec).toBe(2);
    const read: Buffer[] = [];
    for await (const chunk of await blobs.get(source.blobKey)) read.push(chunk as Buffer);
    expect(Buffer.concat(read).equals(video)).toBe(true);
  });

  it('marks text that is not base64, and stores nothing of it', async () => {
    const { body: parsed } = await readMediaJson(requestOf('{"image":{"media_source":{"base64_string":"***"}}}'), options());
    expect((parsed.image as { media_source: { base64_string: StoredMedia } }).media_source.base64_string).toMatchObject({ valid: false });
    expect(await stored()).toBe(0);
  });

  it('without a blob store, keeps media as text (bounded by the body limit, not the text limit), still asking beforeMedia first', async () => {
    let asked = 0;
    const { body: parsed, media } = await readMediaJson(
      requestOf(body),
      options({ blobs: undefined, beforeMedia: async () => void (asked += 1) }),
    );
    expect(asked).toBe(1);
    expect(media).toEqual([]);
    expect((parsed.video as { media_source: { base64_string: string } }).media_source.base64_string).toBe(video.toString('base64'));
  });

  it('keeps __proto__ an own key, as JSON.parse does', async () => {
    const { body: parsed } = await readMediaJson(requestOf('{"__proto__":{"polluted":true},"a":[1,"x",null,true]}'), options());
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(JSON.parse('{"__proto__":{"polluted":true},"a":[1,"x",null,true]}'));
  });

  it.each([
    ['not JSON', '{"a":', 'body_malformed'],
    ['trailing text', '{"a":1} x', 'body_malformed'],
    ['an array at the top', '[1,2]', 'body_malformed'],
    ['40 levels of nesting', `{"a":${'['.repeat(40)}${']'.repeat(40)}}`, 'body_malformed'],
    ['more text than allowed', `{"a":"${'x'.repeat(5000)}"}`, 'payload_too_large'],
    ['a thousand tiny values', `{"a":[${Array(1000).fill('0').join(',')}]}`, 'payload_too_large'],
    ['a body past its limit, media and all', body, 'payload_too_large', { bodyBytes: 200_000 }],
  ])('refuses %s, keeping nothing', async (_name, text, code, overrides: Partial<MediaJsonOptions> = {}) => {
    expect(await failure(text, overrides)).toBe(code);
    expect(await stored()).toBe(0);
  });

  it('refuses what beforeMedia refuses, before the media is read, keeping nothing', async () => {
    const refusal = new ApiError('too_many_requests', 'no');
    expect(await failure(body, { beforeMedia: () => Promise.reject(refusal) })).toBe('too_many_requests');
    expect(await stored()).toBe(0);
  });
});
