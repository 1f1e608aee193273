/**
 * The task endpoints over HTTP, without a worker (tasks stay where creation left them): upload
 * streamed into the blob store, URL tasks, shapes per version, filters, counts, deletion rules.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

const VIDEO = Buffer.alloc(300 * 1024, 7); // bytes only: validation is the worker's job
const MISSING = '0123456789abcdef01234567';

describe('tasks over HTTP', () => {
  let stack: IndexingStack;
  let org: { orgId: string; key: string };
  let indexId: string;

  const api = () => request(stack.url);
  const uploads = () => {
    try {
      return readdirSync(join(stack.blobDir, 'uploads'));
    } catch {
      return [];
    }
  };

  beforeAll(async () => {
    stack = await startIndexingStack({ uploadMaxBytes: 1024 * 1024 });
    org = await stack.newOrg();
    const index = await api()
      .post('/v1.2/indexes')
      .set('x-api-key', org.key)
      .send({ index_name: 'tasks', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual', 'conversation'] }] });
    indexId = index.body._id as string;
  });
  afterAll(async () => {
    await stack.stop();
  });

  describe('POST /tasks', () => {
    it('v1.2: streams video_file to the blob store and answers 201 with the id, readable at once', async () => {
      const created = await api()
        .post('/v1.2/tasks')
        .set('x-api-key', org.key)
        .field('index_id', indexId)
        .field('language', 'en')
        .attach('video_file', VIDEO, 'holiday.mp4');
      expect(created.status).toBe(201);
      expect(Object.keys(created.body)).toEqual(['_id']);
      const task = await api().get(`/v1.2/tasks/${created.body._id}`).set('x-api-key', org.key).expect(200);
      expect(task.body).toMatchObject({
        _id: created.body._id,
        index_id: indexId,
        status: 'validating',
        metadata: { filename: 'holiday.mp4' },
      });
      expect(task.body.video_id).toBeUndefined(); // v1.2 shows it once ready
      expect(new Date(task.body.created_at).getTime()).not.toBeNaN();
      const stored = (await stack.blobs.stat(`uploads/${uploads().find((u) => u)!}/video_file-0`))!;
      expect(stored.size).toBe(VIDEO.length);
    });

    it('v1.3: answers 200 with the task id and the video id, and keeps user_metadata', async () => {
      const created = await api()
        .post('/v1.3/tasks')
        .set('x-api-key', org.key)
        .field('index_id', indexId)
        .field('user_metadata', JSON.stringify({ topic: 'cats', rank: 3 }))
        .attach('video_file', VIDEO, 'cats.mp4');
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), video_id: expect.stringMatching(/^[0-9a-f]{24}$/) });
      const task = await api().get(`/v1.3/tasks/${created.body._id}`).set('x-api-key', org.key).expect(200);
      expect(task.body).toMatchObject({ video_id: created.body.video_id, status: 'validating', system_metadata: { filename: 'cats.mp4' } });
    });

    it('takes video_url as JSON or multipart (py 0.4 also sends it as a file part), starting at uploading', async () => {
      const json = await api()
        .post('/v1.3/tasks')
        .set('x-api-key', org.key)
        .send({ index_id: indexId, video_url: 'https://example.com/v/a.mp4' });
      expect(json.status).toBe(200);
      const asFile = await api()
        .post('/v1.3/tasks')
        .set('x-api-key', org.key)
        .field('index_id', indexId)
        .field('video_url', 'https://example.com/v/b.mp4')
        .attach('video_url', Buffer.from('https://example.com/v/b.mp4'), 'upload');
      expect(asFile.status).toBe(200);
      const task = await api().get(`/v1.3/tasks/${asFile.body._id}`).set('x-api-key', org.key).expect(200);
      expect(task.body).toMatchObject({ status: 'uploading', system_metadata: { filename: 'b.mp4' } });
      // v1.2 has no `uploading`: it shows the nearest status.
      expect((await api().get(`/v1.2/tasks/${asFile.body._id}`).set('x-api-key', org.key)).body.status).toBe('validating');
    });

    it('prefers the URL when both come, and keeps no copy of the file', async () => {
      const before = uploads().length;
      const created = await api()
        .post('/v1.3/tasks')
        .set('x-api-key', org.key)
        .field('index_id', indexId)
        .field('video_url', 'https://example.com/v/c.mp4')
        .attach('video_file', VIDEO, 'ignored.mp4');
      expect(created.status).toBe(200);
      expect(readdirSync(join(stack.blobDir, 'uploads')).flatMap((u) => readdirSync(join(stack.blobDir, 'uploads', u)))).toHaveLength(
        before,
      );
    });

    it.each([
      ['no video', (r: request.Test) => r.field('index_id', indexId), 400, 'parameter_not_provided'],
      [
        'an empty dummy file part',
        (r: request.Test) => r.field('index_id', indexId).attach('video_file', Buffer.alloc(0), 'x.mp4'),
        400,
        'parameter_not_provided',
      ],
      ['no index_id', (r: request.Test) => r.attach('video_file', VIDEO, 'a.mp4'), 400, 'parameter_not_provided'],
      [
        'an unknown index',
        (r: request.Test) => r.field('index_id', MISSING).attach('video_file', VIDEO, 'a.mp4'),
        404,
        'resource_not_exist',
      ],
      [
        'a non-http URL',
        (r: request.Test) => r.field('index_id', indexId).field('video_url', 'file:///etc/passwd'),
        400,
        'parameter_invalid',
      ],
      [
        'bad user_metadata',
        (r: request.Test) => r.field('index_id', indexId).field('user_metadata', '[1,2]').attach('video_file', VIDEO, 'a.mp4'),
        400,
        'parameter_invalid',
      ],
      [
        'a file over the upload limit',
        (r: request.Test) => r.field('index_id', indexId).attach('video_file', Buffer.alloc(2 * 1024 * 1024), 'big.mp4'),
        413,
        'payload_too_large',
      ],
    ])('refuses %s and leaves nothing stored', async (_name, build, status, code) => {
      const before = uploads().flatMap((u) => readdirSync(join(stack.blobDir, 'uploads', u))).length;
      const res = await build(api().post('/v1.3/tasks').set('x-api-key', org.key));
      expect([res.status, res.body.code]).toEqual([status, code]);
      expect(uploads().flatMap((u) => readdirSync(join(stack.blobDir, 'uploads', u)))).toHaveLength(before);
    });

    it('answers a replay with the same Idempotency-Key with the same task', async () => {
      const send = () =>
        api()
          .post('/v1.3/tasks')
          .set('x-api-key', org.key)
          .set('Idempotency-Key', 'upload-42')
          .send({ index_id: indexId, video_url: 'https://example.com/v/d.mp4' });
      const first = await send();
      const second = await send();
      expect(second.body).toEqual(first.body);
    });
  });

  describe('GET /tasks, GET /tasks/status, DELETE /tasks/{id}', () => {
    let other: { orgId: string; key: string };
    let otherIndex: string;
    let ids: string[];
    beforeAll(async () => {
      other = await stack.newOrg();
      otherIndex = (
        await api()
          .post('/v1.3/indexes')
          .set('x-api-key', other.key)
          .send({ index_name: 'o', models: [{ model_name: 'marengo3.0', model_options: ['visual'] }] })
      ).body._id;
      ids = [];
      for (const name of ['one.mp4', 'two.mp4', 'three.mp4']) {
        const res = await api()
          .post('/v1.3/tasks')
          .set('x-api-key', other.key)
          .field('index_id', otherIndex)
          .attach('video_file', VIDEO, name);
        ids.push(res.body._id);
      }
      await api()
        .post('/v1.3/tasks')
        .set('x-api-key', other.key)
        .send({ index_id: otherIndex, video_url: 'https://example.com/v/four.mp4' });
    });

    it('lists newest first with page_info, and filters', async () => {
      const page = await api().get('/v1.3/tasks?page_limit=2').set('x-api-key', other.key).expect(200);
      expect(page.body.page_info).toEqual({ page: 1, limit_per_page: 2, total_page: 2, total_results: 4 });
      expect(page.body.data[0]).toMatchObject({ status: 'uploading', system_metadata: { filename: 'four.mp4' } });
      const byName = await api().get('/v1.3/tasks?filename=two.mp4').set('x-api-key', other.key).expect(200);
      expect(byName.body.data.map((t: { _id: string }) => t._id)).toEqual([ids[1]]);
      const byStatus = await api().get('/v1.3/tasks?status=uploading&status=ready').set('x-api-key', other.key).expect(200);
      expect(byStatus.body.data).toHaveLength(1);
      // v1.2's "validating" stands for uploading too.
      const v12 = await api().get(`/v1.2/tasks?index_id=${otherIndex}&status=validating`).set('x-api-key', other.key).expect(200);
      expect(v12.body.data).toHaveLength(4);
      const byId = await api().get(`/v1.2/tasks?_id=${ids[0]}`).set('x-api-key', other.key).expect(200);
      expect(byId.body.data.map((t: { _id: string }) => t._id)).toEqual([ids[0]]);
      const past = await api().get('/v1.3/tasks?page=9').set('x-api-key', other.key).expect(200);
      expect(past.body.data).toEqual([]);
      expect((await api().get('/v1.3/tasks?status=done').set('x-api-key', other.key)).body.code).toBe('parameter_invalid');
    });

    it('never shows another organization’s tasks', async () => {
      expect((await api().get(`/v1.3/tasks/${ids[0]}`).set('x-api-key', org.key)).status).toBe(404);
      const mine = await api().get('/v1.3/tasks?page_limit=50').set('x-api-key', org.key).expect(200);
      expect(mine.body.data.map((t: { _id: string }) => t._id)).not.toContain(ids[0]);
    });

    it('counts by status on v1.2 and points v1.3 elsewhere', async () => {
      const counts = await api().get(`/v1.2/tasks/status?index_id=${otherIndex}`).set('x-api-key', other.key).expect(200);
      expect(counts.body).toEqual({ index_id: otherIndex, ready: 0, validating: 4, pending: 0, indexing: 0, failed: 0, total_result: 4 });
      expect((await api().get(`/v1.3/tasks/status?index_id=${otherIndex}`).set('x-api-key', other.key)).body.code).toBe(
        'endpoint_not_found',
      );
      expect((await api().get('/v1.2/tasks/status').set('x-api-key', other.key)).body.code).toBe('parameter_not_provided');
    });

    it('refuses to delete a task still in progress, and 404s unknown ones', async () => {
      const res = await api().delete(`/v1.3/tasks/${ids[0]}`).set('x-api-key', other.key);
      expect([res.status, res.body.code]).toEqual([400, 'parameter_invalid']);
      expect((await api().delete(`/v1.3/tasks/${MISSING}`).set('x-api-key', other.key)).status).toBe(404);
      expect((await api().get('/v1.3/tasks/not-an-id').set('x-api-key', other.key)).status).toBe(404);
    });

    // POST /tasks/transfers and /tasks/external-provider: imports.int.test.ts.
  });
});
