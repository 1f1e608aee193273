/**
 * Issue 15, defects 5 and 6: what one multipart request may cost the gateway, and duplicate file
 * parts. The body limit is 64 KiB here (text of one request, in all); uploads 1 MiB.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

const TEXT_LIMIT = 64 * 1024;
const VIDEO = Buffer.alloc(300 * 1024, 7);

describe('multipart bodies', () => {
  let stack: IndexingStack;
  let key: string;
  let indexId: string;

  beforeAll(async () => {
    stack = await startIndexingStack({ uploadMaxBytes: 1024 * 1024, bodyLimitBytes: TEXT_LIMIT });
    key = (await stack.newOrg()).key;
    const index = await request(stack.url)
      .post('/v1.2/indexes')
      .set('x-api-key', key)
      .send({ index_name: 'multipart', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual', 'conversation'] }] });
    indexId = index.body._id as string;
  });
  afterAll(() => stack.stop());

  const post = (path: string) => request(stack.url).post(path).set('x-api-key', key);
  const stored = () => {
    try {
      return readdirSync(join(stack.blobDir, 'uploads')).flatMap((u) => readdirSync(join(stack.blobDir, 'uploads', u)));
    } catch {
      return [];
    }
  };
  /** `count` text fields of `size` bytes each: each under the field limit, all together far over the body limit. */
  const manyFields = (req: request.Test, count: number, size: number) => {
    for (let i = 0; i < count; i++) req.field(`f${i}`, 'x'.repeat(size));
    return req;
  };

  describe('defect 5: the text of one request is bounded in all, not per part', () => {
    it.each([
      ['POST /v1.3/indexes', '/v1.3/indexes'],
      ['POST /v1.3/search', '/v1.3/search'],
      ['POST /v1.3/tasks (a streamed upload)', '/v1.3/tasks'],
      ['POST /v1.2/tasks/transfers', '/v1.2/tasks/transfers'],
    ])('%s: 40 fields of 48 KiB are refused with 413', async (_name, path) => {
      const res = await manyFields(post(path), 40, 48 * 1024);
      expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
    });

    it.each([
      ['POST /v1.3/indexes', '/v1.3/indexes'],
      ['POST /v1.3/tasks', '/v1.3/tasks'],
    ])('%s: 40 file parts read as text (48 KiB each) are refused with 413', async (_name, path) => {
      const req = post(path);
      for (let i = 0; i < 40; i++) req.attach(`video_url`, Buffer.alloc(48 * 1024, 0x61), 'upload');
      const res = await req;
      expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
    });

    it('more than 100 parts are refused', async () => {
      const res = await manyFields(post('/v1.3/indexes'), 150, 1);
      expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
      expect(res.body.message).toMatch(/too many/);
    });

    it('an image part is taken only by search: elsewhere it is text and counts in the limit', async () => {
      const image = Buffer.alloc(1024 * 1024, 1);
      const res = await post('/v1.3/indexes').field('index_name', 'x').attach('query_media_file', image, 'a.png');
      expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
    });

    it('a field or an image of exactly its limit is taken', async () => {
      const field = await post('/v1.3/indexes').field('index_name', 'x'.repeat(TEXT_LIMIT));
      expect(field.body.code).not.toBe('payload_too_large');
      const image = await post('/v1.3/search')
        .field('index_id', indexId)
        .field('search_options', 'visual')
        .field('query_media_type', 'image')
        .attach('query_media_file', Buffer.alloc(5 * 1024 * 1024, 1), 'a.png');
      expect(image.body.code).not.toBe('payload_too_large');
    });

    it('a body sent to an unknown or not-built endpoint is not parsed', async () => {
      const big = manyFields(post('/v1.3/no-such-thing'), 40, 48 * 1024);
      expect((await big).status).toBe(404);
      const notBuilt = await manyFields(post('/v1.3/tasks/transfers/import/abc'), 40, 48 * 1024);
      expect(notBuilt.status).toBe(501);
      // POST /assets is built (issue 16): its text is bounded like any upload's.
      const asset = await manyFields(post('/v1.3/assets'), 40, 48 * 1024);
      expect([asset.status, asset.body.code]).toEqual([413, 'payload_too_large']);
    });

    it('ordinary requests within the limits still work', async () => {
      const created = await post('/v1.3/tasks')
        .field('index_id', indexId)
        .field('user_metadata', '{"a":1}')
        .attach('video_file', VIDEO, 'ok.mp4');
      expect(created.status).toBe(200);
      const form = await post('/v1.2/indexes')
        .field('index_name', 'small-form')
        .field('engine_id', 'marengo2.6')
        .field('index_options', 'visual')
        .attach('dummy', Buffer.alloc(0), '');
      expect(form.status).toBe(201);
    });
  });

  describe('defect 6: duplicate file parts', () => {
    it('two video_file parts are refused with 400, without the internal key, and nothing stays stored', async () => {
      const before = stored().length;
      const res = await post('/v1.3/tasks')
        .field('index_id', indexId)
        .attach('video_file', VIDEO, 'a.mp4')
        .attach('video_file', VIDEO, 'b.mp4');
      expect([res.status, res.body.code]).toEqual([400, 'parameter_invalid']);
      expect(res.body.message).toMatch(/video_file/);
      expect(res.body.message).not.toMatch(/uploads\/|blob|\/tmp|[0-9a-f]{24}/i);
      expect(stored()).toHaveLength(before);
    });

    it('more query_media_file parts than a search takes (10, issue 32 §3) are refused with 400', async () => {
      const png = Buffer.alloc(1024, 1);
      let req = post('/v1.3/search').field('index_id', indexId).field('search_options', 'visual').field('query_media_type', 'image');
      for (let i = 0; i < 11; i++) req = req.attach('query_media_file', png, `${i}.png`);
      const res = await req;
      expect([res.status, res.body.code]).toEqual([400, 'parameter_invalid']);
      expect(res.body.message).toMatch(/query_media_file/);
    });

    it('a streamed upload whose text holds NUL is refused and leaves nothing stored', async () => {
      const before = stored().length;
      const res = await post('/v1.3/tasks')
        .field('index_id', indexId)
        .field('user_metadata', '{"a":"\\u0000"}')
        .attach('video_file', VIDEO, 'a.mp4');
      expect([res.status, res.body.code]).toEqual([400, 'parameter_invalid']);
      expect(res.body.message).toMatch(/user_metadata/);
      expect(stored()).toHaveLength(before);
    });

    it('an upload over the limit names the part and the limit, not where it was being stored', async () => {
      const res = await post('/v1.3/tasks')
        .field('index_id', indexId)
        .attach('video_file', Buffer.alloc(2 * 1024 * 1024), 'big.mp4');
      expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
      expect(res.body.message).toMatch(/video_file/);
      expect(res.body.message).not.toMatch(/uploads\/|blob|\/tmp/i);
    });
  });
});
