import { ManualClock, newId } from '@vus/core';
import { migrateService } from '@vus/service';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { createJobStore, type JobStore } from '@vus/jobs';
import { taskService } from '../src/main';
import { FETCH_TASK_JOB, INDEX_TASK_JOB, type TaskLeaseStore } from '../src/tasks/leases';
import { createTaskLeaseStore, createTaskStore } from '../src/tasks/store';
import { createTaskService, statusChangedEvent, type CreateTaskInput, type IndexDirectory, type TaskService } from '../src/tasks/tasks';
import { codeOf } from '@vus/testing';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';

/** index-service as task-service sees it: which indexes and videos exist. */
function directory(): IndexDirectory & { indexes: Set<string>; videos: Set<string> } {
  const indexes = new Set<string>();
  const videos = new Set<string>();
  return {
    indexes,
    videos,
    indexExists: async (orgId, indexId) => indexes.has(`${orgId}/${indexId}`),
    videoExists: async (orgId, indexId, videoId) => videos.has(`${orgId}/${indexId}/${videoId}`),
  };
}

function upload(indexId: string, overrides: Partial<CreateTaskInput> = {}): CreateTaskInput {
  return {
    indexId,
    source: { kind: 'upload', blobKey: `uploads/${newId()}/video` },
    transcription: null,
    language: null,
    enableVideoStream: true,
    userMetadata: {},
    filename: 'clip.mp4',
    idempotencyKey: null,
    ...overrides,
  };
}

describe.each(DATABASE_KINDS)('tasks on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let tasks: TaskService;
  let leases: TaskLeaseStore;
  let jobs: JobStore;
  let indexes: ReturnType<typeof directory>;
  const removedBlobs: string[] = [];
  const INDEX = newId();
  const OTHER_INDEX = newId();

  const outbox = async (taskId: string) =>
    (
      await database.db.query<{ type: string; payload: Record<string, unknown> }>(
        'SELECT type, payload FROM outbox WHERE key = $1 ORDER BY seq',
        [taskId],
      )
    ).rows;

  /** Earlier tests' unfinished tasks wait far in the future, so a claim finds the test's own task. */
  const parkOtherJobs = () =>
    database.db.query(
      "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, run_at = $1 WHERE state IN ('queued', 'running')",
      [new Date('2100-01-01')],
    );
  /** What a worker does to get a task: claims the next index-task job and loads its task. */
  const claim = async (owner: string, now: Date, leaseMs: number) => {
    const job = await jobs.claim(owner, [INDEX_TASK_JOB], now, leaseMs);
    return job && leases.load(job);
  };
  const jobOf = async (taskId: string) => (await jobs.get(INDEX_TASK_JOB, taskId))!;

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, taskService);
    clock = new ManualClock('2024-05-01T00:00:00Z');
    indexes = directory();
    indexes.indexes.add(`${ORG}/${INDEX}`);
    indexes.indexes.add(`${ORG}/${OTHER_INDEX}`);
    tasks = createTaskService({
      store: createTaskStore(database.db),
      indexes,
      blobs: { delete: async (key) => (removedBlobs.push(key), true) },
      clock,
      eventsWritten: () => undefined,
    });
    leases = createTaskLeaseStore(database.db);
    jobs = createJobStore(database.db);
  });
  afterAll(async () => {
    await database.drop();
  });

  describe('create', () => {
    it('stores an upload at validating with task.created in the outbox, readable at once', async () => {
      const task = await tasks.create(ORG, upload(INDEX, { userMetadata: { topic: 'cats', rank: 2 }, language: 'en' }));
      expect(task).toMatchObject({ status: 'validating', indexId: INDEX, filename: 'clip.mp4', progress: 0, system: null, failure: null });
      expect(task.videoId).toMatch(/^[0-9a-f]{24}$/);
      expect(task.videoId).not.toBe(task.id);
      const read = await tasks.get(ORG, task.id);
      expect(read).toMatchObject({ id: task.id, videoId: task.videoId, userMetadata: { topic: 'cats', rank: 2 }, language: 'en' });
      expect(read.history.map((h) => h.status)).toEqual(['validating']);
      const ids = { task_id: task.id, index_id: INDEX, video_id: task.videoId };
      expect(await outbox(task.id)).toEqual([
        { type: 'task.created', payload: { ...ids, status: 'validating' } },
        { type: 'task.status-changed', payload: { ...ids, status: 'validating', previous_status: null } },
      ]);
    });

    it('starts a URL task at uploading and names it after the URL', async () => {
      const task = await tasks.create(
        ORG,
        upload(INDEX, { source: { kind: 'url', url: 'https://videos.example.com/a/My%20Clip.mp4?x=1' }, filename: '' }),
      );
      expect(task).toMatchObject({ status: 'uploading', filename: 'My Clip.mp4', mediaBlobKey: null });
      expect((await tasks.get(ORG, task.id)).source).toEqual({ kind: 'url', url: 'https://videos.example.com/a/My%20Clip.mp4?x=1' });
    });

    it.each([
      ['ftp://example.com/a.mp4', 'parameter_invalid'],
      ['file:///etc/passwd', 'parameter_invalid'],
      ['not a url', 'parameter_invalid'],
      ['https://user:pw@example.com/a.mp4', 'parameter_invalid'],
    ])('refuses video_url %s', async (url, code) => {
      expect(await codeOf(tasks.create(ORG, upload(INDEX, { source: { kind: 'url', url } })))).toBe(code);
    });

    it('refuses an index that does not exist in the organization', async () => {
      expect(await codeOf(tasks.create(OTHER_ORG, upload(INDEX)))).toBe('resource_not_exist');
      expect(await codeOf(tasks.create(ORG, upload('not-an-id')))).toBe('resource_not_exist');
    });

    it('answers a replayed request (same idempotency key) with the first task', async () => {
      const first = await tasks.create(ORG, upload(INDEX, { idempotencyKey: 'retry-1' }));
      const again = await tasks.create(ORG, upload(INDEX, { idempotencyKey: 'retry-1' }));
      expect(again.id).toBe(first.id);
      expect(again.videoId).toBe(first.videoId);
      expect(await outbox(first.id)).toHaveLength(2);
    });
  });

  describe('get', () => {
    it('hides other organizations’ tasks and malformed ids as not found', async () => {
      const task = await tasks.create(ORG, upload(INDEX));
      expect(await codeOf(tasks.get(OTHER_ORG, task.id))).toBe('resource_not_exist');
      expect(await codeOf(tasks.get(ORG, 'nope'))).toBe('resource_not_exist');
    });
  });

  describe('list', () => {
    let org: string;
    let ids: string[];
    beforeAll(async () => {
      org = newId();
      indexes.indexes.add(`${org}/${INDEX}`);
      indexes.indexes.add(`${org}/${OTHER_INDEX}`);
      ids = [];
      for (const [i, indexId] of [INDEX, INDEX, OTHER_INDEX].entries()) {
        clock.advance(1000);
        ids.push((await tasks.create(org, upload(indexId, { filename: `f${i}.mp4` }))).id);
      }
    });

    it('pages newest first by default', async () => {
      const page = await tasks.list(org, {}, { by: 'created_at', order: 'desc' }, { pageLimit: 2 });
      expect(page.data.map((t) => t.id)).toEqual([ids[2], ids[1]]);
      expect(page.pageInfo).toEqual({ page: 1, limit_per_page: 2, total_page: 2, total_results: 3 });
      const past = await tasks.list(org, {}, { by: 'created_at', order: 'desc' }, { page: 3, pageLimit: 2 });
      expect(past.data).toEqual([]);
    });

    it.each([
      ['index', { indexId: OTHER_INDEX }, [2]],
      ['filename', { filename: 'f1.mp4' }, [1]],
      ['status', { statuses: ['validating' as const] }, [0, 1, 2]],
      ['no status match', { statuses: ['ready' as const] }, []],
    ])('filters by %s', async (_name, filter, expected) => {
      const page = await tasks.list(org, filter, { by: 'created_at', order: 'asc' }, {});
      expect(page.data.map((t) => t.id)).toEqual(expected.map((i) => ids[i]));
    });

    it('filters by ids and creation time', async () => {
      const byId = await tasks.list(org, { ids: [ids[0]!, ids[2]!] }, { by: 'created_at', order: 'asc' }, {});
      expect(byId.data.map((t) => t.id)).toEqual([ids[0], ids[2]]);
      const second = (await tasks.get(org, ids[1]!)).createdAt;
      const later = await tasks.list(org, { createdAt: { gte: second } }, { by: 'created_at', order: 'asc' }, {});
      expect(later.data.map((t) => t.id)).toEqual([ids[1], ids[2]]);
    });

    it('counts by status for one index', async () => {
      const counts = await tasks.statusCounts(org, INDEX);
      expect(counts).toMatchObject({ validating: 2, ready: 0, failed: 0, total: 2 });
      expect(await codeOf(tasks.statusCounts(OTHER_ORG, INDEX))).toBe('resource_not_exist');
    });
  });

  describe('leases and the status machine', () => {
    it('lets one claimer have a task until its lease expires, then another', async () => {
      const org = newId();
      indexes.indexes.add(`${org}/${INDEX}`);
      await parkOtherJobs();
      const task = await tasks.create(org, upload(INDEX));
      const now = clock.now();
      const first = await claim('worker-a', now, 10_000);
      expect(first).toMatchObject({ id: task.id, leaseOwner: 'worker-a', attempts: 1 });
      expect(await claim('worker-b', now, 10_000)).toBeUndefined();

      // worker-a renews while alive; once it stops, the lease runs out and worker-b takes over.
      expect(await jobs.renew((await jobOf(task.id)).id, 'worker-a', new Date(now.getTime() + 5_000), 10_000)).toBe(true);
      expect(await claim('worker-b', new Date(now.getTime() + 14_000), 10_000)).toBeUndefined();
      const second = await claim('worker-b', new Date(now.getTime() + 15_001), 10_000);
      expect(second).toMatchObject({ id: task.id, leaseOwner: 'worker-b', attempts: 2 });

      // The old holder can no longer write or renew.
      const later = new Date(now.getTime() + 16_000);
      expect(await jobs.renew((await jobOf(task.id)).id, 'worker-a', later, 10_000)).toBe(false);
      const refused = await leases.update(task.id, 'worker-a', later, { status: { from: 'validating', to: 'pending' } }, () => []);
      expect(refused).toBeUndefined();
      expect((await tasks.get(org, task.id)).status).toBe('validating');
    });

    it('writes each status change with its history and task.status-changed; refuses a stale from', async () => {
      const org = newId();
      indexes.indexes.add(`${org}/${INDEX}`);
      await parkOtherJobs();
      const task = await tasks.create(org, upload(INDEX));
      const claimed = (await claim('w', clock.now(), 60_000))!;
      expect(claimed.id).toBe(task.id);
      const events = (from: 'validating' | 'pending') => (t: Parameters<typeof statusChangedEvent>[0]) => [
        statusChangedEvent(t, from, clock),
      ];
      const system = { filename: 'clip.mp4', duration: 12.5, fps: 25, width: 1280, height: 720, size: 123_456 };
      const pending = await leases.update(
        task.id,
        'w',
        clock.now(),
        { status: { from: 'validating', to: 'pending' }, changes: { system } },
        events('validating'),
      );
      expect(pending).toMatchObject({ status: 'pending', system });
      expect(
        await leases.update(task.id, 'w', clock.now(), { status: { from: 'validating', to: 'pending' } }, events('validating')),
      ).toBeUndefined();
      const failure = { code: 'video_file_broken', message: 'The file is broken.' };
      await leases.update(
        task.id,
        'w',
        clock.now(),
        { status: { from: 'pending', to: 'failed' }, changes: { failure } },
        events('pending'),
      );

      const read = await tasks.get(org, task.id);
      expect(read).toMatchObject({ status: 'failed', failure });
      expect(read.history.map((h) => h.status)).toEqual(['validating', 'pending', 'failed']);
      const written = await outbox(task.id);
      expect(written.map((e) => [e.type, e.payload.status, e.payload.previous_status])).toEqual([
        ['task.created', 'validating', undefined],
        ['task.status-changed', 'validating', null],
        ['task.status-changed', 'pending', 'validating'],
        ['task.status-changed', 'failed', 'pending'],
      ]);
      expect(written[3]!.payload.failure).toEqual(failure);
    });

    it('downloads a URL task under its fetch-task job, which hands it to its index-task job with the status', async () => {
      await parkOtherJobs();
      const task = await tasks.create(ORG, upload(INDEX, { source: { kind: 'url', url: 'https://videos.example.com/a.mp4' } }));
      // A URL task starts in the fetch stage: no index-task job claims it yet.
      expect(await jobs.get(INDEX_TASK_JOB, task.id)).toBeUndefined();
      expect(await jobs.claim('indexer', [INDEX_TASK_JOB], clock.now(), 60_000)).toBeUndefined();
      const fetchJob = (await jobs.claim('fetcher', [FETCH_TASK_JOB], clock.now(), 60_000))!;
      expect(fetchJob.subjectId).toBe(task.id);

      // A fetcher whose lease expired (killed mid-download) is taken over; its late write changes nothing.
      const later = new Date(clock.now().getTime() + 60_000);
      expect((await jobs.claim('fetcher-2', [FETCH_TASK_JOB], later, 60_000))?.subjectId).toBe(task.id);
      const handOver = {
        status: { from: 'uploading', to: 'validating' },
        changes: { mediaBlobKey: 'k' },
        nextJob: INDEX_TASK_JOB,
      } as const;
      expect(await leases.update(task.id, 'fetcher', later, handOver, () => [])).toBeUndefined();
      expect(await jobs.get(INDEX_TASK_JOB, task.id)).toBeUndefined();

      // The holder's write moves the task on and queues its index-task job in the same transaction.
      expect(await leases.update(task.id, 'fetcher-2', later, handOver, () => [])).toMatchObject({
        status: 'validating',
        mediaBlobKey: 'k',
      });
      const indexJob = (await jobs.claim('indexer', [INDEX_TASK_JOB], later, 60_000))!;
      expect(indexJob).toMatchObject({ subjectId: task.id, orgId: ORG, attempts: 1 });
      expect((await leases.update(task.id, 'indexer', later, { status: { from: 'validating', to: 'failed' } }, () => []))?.status).toBe(
        'failed',
      );
    });

    it('leaves a released task alone until its retry time', async () => {
      const org = newId();
      indexes.indexes.add(`${org}/${INDEX}`);
      await parkOtherJobs();
      const task = await tasks.create(org, upload(INDEX));
      const now = clock.now();
      await claim('w', now, 60_000);
      await jobs.requeue((await jobOf(task.id)).id, 'w', now, new Date(now.getTime() + 5_000));
      expect(await claim('w2', new Date(now.getTime() + 4_000), 60_000)).toBeUndefined();
      expect((await claim('w2', new Date(now.getTime() + 5_000), 60_000))?.id).toBe(task.id);
    });
  });

  describe('delete', () => {
    async function finished(status: 'ready' | 'failed') {
      const org = newId();
      indexes.indexes.add(`${org}/${INDEX}`);
      await parkOtherJobs();
      const task = await tasks.create(org, upload(INDEX));
      await claim('w', clock.now(), 60_000);
      const path = status === 'failed' ? (['failed'] as const) : (['pending', 'queued', 'indexing', 'ready'] as const);
      let from: 'validating' | 'pending' | 'queued' | 'indexing' = 'validating';
      for (const to of path) {
        await leases.update(task.id, 'w', clock.now(), { status: { from, to } }, () => []);
        if (to !== 'failed' && to !== 'ready') from = to;
      }
      return { org, task };
    }

    it('refuses a task still in progress', async () => {
      const task = await tasks.create(ORG, upload(INDEX));
      expect(await codeOf(tasks.delete(ORG, task.id))).toBe('parameter_invalid');
    });

    it('deletes a failed task, its upload and its job', async () => {
      const { org, task } = await finished('failed');
      expect(await jobs.get(INDEX_TASK_JOB, task.id)).toBeDefined();
      await tasks.delete(org, task.id);
      expect(await codeOf(tasks.get(org, task.id))).toBe('resource_not_exist');
      expect(await jobs.get(INDEX_TASK_JOB, task.id)).toBeUndefined();
      expect(removedBlobs).toContain(task.mediaBlobKey);
    });

    it('deletes a ready task only once its video is gone, keeping the video’s media', async () => {
      const { org, task } = await finished('ready');
      indexes.videos.add(`${org}/${INDEX}/${task.videoId}`);
      expect(await codeOf(tasks.delete(org, task.id))).toBe('parameter_invalid');
      indexes.videos.delete(`${org}/${INDEX}/${task.videoId}`);
      await tasks.delete(org, task.id);
      expect(await codeOf(tasks.get(org, task.id))).toBe('resource_not_exist');
      expect(removedBlobs).not.toContain(task.mediaBlobKey);
    });

    it('answers not found for another organization’s task', async () => {
      const { task } = await finished('failed');
      expect(await codeOf(tasks.delete(OTHER_ORG, task.id))).toBe('resource_not_exist');
    });
  });
});
