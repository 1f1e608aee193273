/**
 * Issue 28, defect 8: an embed upload that its organization's rate limit refuses is answered 429
 * before its body is read. The client declares a large body, sends its first 64 KiB and waits: the
 * answer must come while it is still "uploading" (before the fix, the gateway read the whole body
 * first, so no answer came). The connection is closed after the answer: the rest is never read.
 */
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

/** The Free plan's embed_video requests per minute (SPEC §8). */
const EMBED_VIDEO_RPM = 25;
/** What the client says it will send (a multipart video up to 100 MB, JSON up to 16 MB), and what it sends before waiting. */
const DECLARED_BYTES = { multipart: 90 * 1024 * 1024, json: 15 * 1024 * 1024 };
const SENT_BYTES = 64 * 1024;

interface EarlyAnswer {
  status: number;
  code: string | undefined;
  connection: string | undefined;
}

describe('a rate-limited embed upload is refused before its body is read', () => {
  let stack: IndexingStack;

  beforeAll(async () => {
    stack = await startIndexingStack();
  });
  afterAll(() => stack.stop());

  /** Uses up the organization's embed_video requests of this minute with small requests. */
  const exhaust = async (key: string) => {
    for (let i = 0; i < EMBED_VIDEO_RPM; i += 1) {
      const res = await request(stack.url)
        .post('/v1.3/embed-v2')
        .set('x-api-key', key)
        .send({ input_type: 'video', model_name: 'marengo3.0' });
      expect(res.status).not.toBe(429);
    }
  };

  /** Sends the headers and `head`, then waits (up to a generous bound) for an answer without sending the rest. */
  const partialUpload = (path: string, key: string, contentType: string, head: Buffer, waitMs = 15_000) =>
    new Promise<EarlyAnswer>((resolve, reject) => {
      const req = httpRequest(`${stack.url}${path}`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': contentType,
          'content-length': String(contentType.startsWith('multipart/') ? DECLARED_BYTES.multipart : DECLARED_BYTES.json),
        },
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error('no answer while the body was still being sent'));
      }, waitMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { code?: string; error?: { code?: string } };
          resolve({ status: res.statusCode ?? 0, code: body.code ?? body.error?.code, connection: res.headers.connection });
        });
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.write(head);
    });

  const boundary = 'embed-upload-boundary';
  const multipartHead = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="engine_name"\r\n\r\nMarengo-retrieval-2.6\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="video_file"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    ),
    Buffer.alloc(SENT_BYTES, 7),
  ]);
  const jsonHead = (prefix: string) => Buffer.from(prefix + 'A'.repeat(SENT_BYTES));

  it.each([
    ['v1.2 POST /embed/tasks, a video_file part', '/v1.2/embed/tasks', `multipart/form-data; boundary=${boundary}`, multipartHead],
    [
      'POST /embed-v2, base64 video',
      '/v1.3/embed-v2',
      'application/json',
      jsonHead('{"input_type":"video","model_name":"marengo3.0","video":{"media_source":{"base64_string":"'),
    ],
    [
      'POST /embed-v2/tasks, base64 video',
      '/v1.3/embed-v2/tasks',
      'application/json',
      jsonHead('{"input_type":"video","model_name":"marengo3.0","video":{"media_source":{"base64_string":"'),
    ],
    [
      'POST /embed-v2, base64 video before input_type',
      '/v1.3/embed-v2',
      'application/json',
      jsonHead('{"model_name":"marengo3.0","video":{"media_source":{"base64_string":"'),
    ],
  ])('%s: 429 while the client is still sending, and the connection is closed', async (_name, path, contentType, head) => {
    const { key } = await stack.newOrg();
    await exhaust(key);
    expect(await partialUpload(path, key, contentType, head)).toEqual({ status: 429, code: 'too_many_requests', connection: 'close' });
  });

  it.each([
    ['v1.2 POST /embed/tasks', '/v1.2/embed/tasks', `multipart/form-data; boundary=${boundary}`, multipartHead],
    ['POST /embed-v2', '/v1.3/embed-v2', 'application/json', jsonHead('{"input_type":"video","video":{"media_source":{"base64_string":"')],
  ])(
    '%s: an organization within its limit is not refused (the same partial upload waits for the rest)',
    async (_name, path, type, head) => {
      const { key } = await stack.newOrg();
      await expect(partialUpload(path, key, type, head, 2_000)).rejects.toThrow('no answer while the body was still being sent');
    },
  );
});
