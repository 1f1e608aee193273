/*
 * The stream file route on a fake index-service: the gateway checks the signed token and the file
 * name, then pipes what ReadVideoStreamFile sends (header: type and size; then the bytes), asking
 * on behalf of no organization. Refusals never reach index-service.
 */
import type { IndexClient } from '@vus/clients';
import { ApiError, createLogger, ManualClock } from '@vus/core';
import type { FileChunk } from '@vus/grpc/types/index/v1/FileChunk';
import type { ReadVideoStreamFileRequest__Input } from '@vus/grpc/types/index/v1/ReadVideoStreamFileRequest';
import express from 'express';
import request from 'supertest';
import { requestContext } from '../src/http/context';
import { errorHandler } from '../src/http/errors';
import { createThumbnailSigner } from '../src/http/signed-urls';
import { routerOf } from '../src/endpoints/router';
import { hlsFileEndpoints } from '../src/routes/hls';

const logger = createLogger({ service: 'hls-files-test', level: 'silent' });
const clock = new ManualClock('2024-06-01T00:00:00Z');
const signers = createThumbnailSigner('s'.repeat(32));
const signer = signers.hls;
const FOLDER = 'videos/6528dde58f9cd95a98cbd077/hls/';
const expiresAt = new Date('2024-06-01T01:00:00Z');

const calls: { orgId: string | undefined; request: ReadVideoStreamFileRequest__Input }[] = [];
let answer: () => AsyncIterable<FileChunk>;

const index = {
  readVideoStreamFile(ctx: { orgId?: string | undefined }, req: ReadVideoStreamFileRequest__Input) {
    calls.push({ orgId: ctx.orgId, request: req });
    return answer();
  },
} as unknown as IndexClient;

const app = express()
  .use(requestContext(logger))
  .use(routerOf(hlsFileEndpoints({ clients: { index }, thumbnails: { signer: signers, clock, ttlMs: 3_600_000 } })))
  .use(errorHandler(logger));

const chunk = (fields: Partial<FileChunk>): FileChunk => ({ content_type: '', size: 0, data: Buffer.alloc(0), ...fields });

beforeEach(() => {
  calls.length = 0;
});

it('pipes the header and the bytes index-service sends, with the headers of a stream file', async () => {
  answer = async function* () {
    yield chunk({ content_type: 'video/mp2t', size: 6 });
    yield chunk({ data: Buffer.from('abc') });
    yield chunk({ data: Buffer.from('def') });
  };
  const res = await request(app)
    .get(signer.url(`${FOLDER}seg0.ts`, expiresAt)!)
    .buffer(true)
    .expect(200);
  expect(res.headers).toMatchObject({
    'content-type': 'video/mp2t',
    'content-length': '6',
    'cache-control': 'private, max-age=3600',
    'access-control-allow-origin': '*',
  });
  expect(Buffer.from(res.body as Buffer).toString()).toBe('abcdef');
  expect(calls).toEqual([{ orgId: undefined, request: { folder: FOLDER, file: 'seg0.ts' } }]);
});

it("answers index-service's refusal in the API's error format", async () => {
  answer = () => ({
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(new ApiError('resource_not_exist', 'This video stream has no such file.')),
    }),
  });
  const res = await request(app)
    .get(signer.url(`${FOLDER}seg9.ts`, expiresAt)!)
    .expect(404);
  expect(res.body).toEqual({ code: 'resource_not_exist', message: 'This video stream has no such file.' });
});

it.each([
  ['a tampered token', `${signer.url(`${FOLDER}index.m3u8`, expiresAt)!.replace(/\/index\.m3u8$/, '')}x/index.m3u8`, 403],
  ['an expired token', signer.url(`${FOLDER}index.m3u8`, new Date('2024-05-31T23:59:00Z'))!, 403],
  ['a hidden file', signer.url(`${FOLDER}index.m3u8`, expiresAt)!.replace(/index\.m3u8$/, '.hidden.ts'), 404],
])('refuses %s without asking index-service', async (_label, path, status) => {
  await request(app).get(path).expect(status);
  expect(calls).toEqual([]);
});
