/**
 * Issue 15, defect 7: a transcription_file is capped at upload (MAX_TRANSCRIPTION_BYTES), far below
 * a video's limit: the worker reads it whole, and a 2 GiB "transcription" was accepted.
 */
import { MAX_TRANSCRIPTION_BYTES } from '@vus/domain';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

describe('transcription_file uploads', () => {
  let stack: IndexingStack;
  let key: string;
  let indexId: string;

  beforeAll(async () => {
    stack = await startIndexingStack({ uploadMaxBytes: 3 * MAX_TRANSCRIPTION_BYTES });
    key = (await stack.newOrg()).key;
    const index = await request(stack.url)
      .post('/v1.2/indexes')
      .set('x-api-key', key)
      .send({ index_name: 'transcriptions', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual', 'conversation'] }] });
    indexId = index.body._id as string;
  });
  afterAll(() => stack.stop());

  const stored = () => {
    try {
      return readdirSync(join(stack.blobDir, 'uploads')).flatMap((u) => readdirSync(join(stack.blobDir, 'uploads', u)));
    } catch {
      return [];
    }
  };

  it('refuses a transcription_file over the cap with 413 naming the part and the cap, and keeps nothing', async () => {
    const res = await request(stack.url)
      .post('/v1.2/tasks')
      .set('x-api-key', key)
      .field('index_id', indexId)
      .attach('video_file', Buffer.alloc(64 * 1024, 7), 'clip.mp4')
      .attach('transcription_file', Buffer.alloc(MAX_TRANSCRIPTION_BYTES + 1, 0x61), 'talk.srt');
    expect([res.status, res.body]).toEqual([
      413,
      { code: 'payload_too_large', message: `The transcription_file file is larger than the limit of ${MAX_TRANSCRIPTION_BYTES} bytes.` },
    ]);
    expect(stored()).toEqual([]);
  });

  it('accepts a video larger than the transcription cap with a transcription within it', async () => {
    const res = await request(stack.url)
      .post('/v1.2/tasks')
      .set('x-api-key', key)
      .field('index_id', indexId)
      .attach('video_file', Buffer.alloc(MAX_TRANSCRIPTION_BYTES + 1, 7), 'clip.mp4')
      .attach('transcription_file', Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nHello\n'), 'talk.srt');
    expect(res.status).toBe(201);
  });
});
