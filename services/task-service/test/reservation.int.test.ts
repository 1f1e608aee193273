/*
 * Media minutes are charged once per task even when the worker that reserved them dies before it
 * could record that it did: the next worker must not debit the organization's usage counters a
 * second time (the spend ledger is idempotent by key; the counters are not).
 */
import { FileBlobStore } from '@vus/blob';
import { ApiError, createLogger, ManualClock, newId } from '@vus/core';
import { migrateService } from '@vus/service';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { DEFAULT_FETCH_POLICY } from '@vus/fetch';
import { createJobStore, type JobStore } from '@vus/jobs';
import { memoryLimiters, Meter, staticLimits, UsageCounters, type SpendRecord } from '@vus/limits';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taskService } from '../src/main';
import { INDEX_TASK_JOB, type ClaimedTask, type TaskLeaseStore } from '../src/tasks/leases';
import { isTerminal } from '../src/tasks/status';
import { createTaskLeaseStore, createTaskStore } from '../src/tasks/store';
import { createTaskService, type TaskRecord } from '../src/tasks/tasks';
import { TaskPipeline, type MediaMeter, type PipelineDeps } from '../src/worker/pipeline';

const ORG = '6528dde58f9cd95a98cbd075';
const LEASE_MS = 60_000;
const logger = createLogger({ service: 'reservation-test', level: 'silent' });

/** billing-service's ledger: one entry per idempotency key; a repeated key is a duplicate. */
function recorded(ledger: Map<string, SpendRecord>, record: SpendRecord) {
  const duplicate = ledger.has(record.idempotencyKey);
  if (!duplicate) ledger.set(record.idempotencyKey, record);
  return { plan: null, duplicate, upgraded: false };
}

describe.each(DATABASE_KINDS)('media minutes on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let leases: TaskLeaseStore;
  let jobs: JobStore;
  let dir: string;
  let deps: Omit<PipelineDeps, 'meter'>;

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, taskService);
    clock = new ManualClock('2024-05-01T00:00:00Z');
    leases = createTaskLeaseStore(database.db);
    jobs = createJobStore(database.db);
    dir = mkdtempSync(join(tmpdir(), 'vus-reservation-'));
    deps = {
      leases,
      blobs: await FileBlobStore.open(join(dir, 'blobs')),
      // The index is gone once the minutes are charged: the run ends there, which is all this looks at.
      index: {
        getIndex: async () => {
          throw new ApiError('resource_not_exist', 'gone');
        },
        getVideo: async () => {
          throw new Error('not reached');
        },
        createVideo: async () => {
          throw new Error('not reached');
        },
        putVideoArtifacts: async () => {
          throw new Error('not reached');
        },
      },
      models: { find: async () => undefined, status: () => [] },
      fetchPolicy: DEFAULT_FETCH_POLICY,
      maxTranscriptionBytes: 1024,
      workRoot: dir,
      clock,
      logger,
      eventsWritten: () => undefined,
      frames: { fps: 1, width: 320, maxThumbnails: 1 },
      maxAttempts: 3,
    };
  });

  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A 10 s video's task, validated and waiting (`pending`) with no lease on it. */
  /**
   * What a worker does to get a task: claims the next index-task job and loads its task. Jobs of
   * tasks that an earlier run finished are ended, as the worker ends them.
   */
  async function claim(owner: string): Promise<ClaimedTask | undefined> {
    for (;;) {
      const job = await jobs.claim(owner, [INDEX_TASK_JOB], clock.now(), LEASE_MS);
      if (!job) return undefined;
      const task = await leases.load(job);
      if (task && !isTerminal(task.status)) return task;
      await jobs.finish(job.id, owner, clock.now(), { state: 'succeeded' });
    }
  }

  /** Gives a task's job back, due at once. */
  async function release(taskId: string, owner: string): Promise<void> {
    const job = await jobs.get(INDEX_TASK_JOB, taskId);
    await jobs.requeue(job!.id, owner, clock.now(), clock.now());
  }

  async function pendingTask(): Promise<TaskRecord> {
    const tasks = createTaskService({
      store: createTaskStore(database.db),
      indexes: { indexExists: async () => true, videoExists: async () => false },
      clock,
      eventsWritten: () => undefined,
    });
    const task = await tasks.create(ORG, {
      indexId: newId(),
      source: { kind: 'upload', blobKey: `uploads/${newId()}/video` },
      transcription: null,
      language: null,
      enableVideoStream: false,
      userMetadata: {},
      filename: 'clip.mp4',
      idempotencyKey: null,
    });
    await claim('validator');
    const system = { filename: 'clip.mp4', duration: 10, fps: 25, width: 1280, height: 720, size: 1000 };
    await leases.update(
      task.id,
      'validator',
      clock.now(),
      { status: { from: 'validating', to: 'pending' }, changes: { system } },
      () => [],
    );
    await release(task.id, 'validator');
    return task;
  }

  it('debits the counters once when the reserving worker died before recording the reservation', async () => {
    const limits = staticLimits([{ category: 'index', dimension: 'DPH', limit: 5 }]);
    const counters = new UsageCounters(memoryLimiters());
    const ledger = new Map<string, SpendRecord>();
    const meter = new Meter(counters, limits, { recordSpend: async (_org, record) => recorded(ledger, record) });
    const task = await pendingTask();

    // Worker A reserves (counters debited, spend recorded), then dies before its next write.
    let reserved!: () => void;
    const reservedByA = new Promise<void>((resolve) => (reserved = resolve));
    const dying: MediaMeter = {
      reserveMediaSeconds: async (...args) => {
        await meter.reserveMediaSeconds(...args);
        reserved();
        return new Promise<void>(() => undefined);
      },
      recordMediaSpend: (...args) => meter.recordMediaSpend(...args),
    };
    const claimedByA = await claim('worker-a');
    expect(claimedByA).toMatchObject({ id: task.id, status: 'pending', mediaReserved: false });
    void new TaskPipeline({ ...deps, meter: dying }, 'worker-a').run(claimedByA!, new AbortController().signal);
    await reservedByA;

    // A's lease runs out; worker B takes the task over.
    clock.advance(LEASE_MS + 1);
    const claimedByB = await claim('worker-b');
    expect(claimedByB).toMatchObject({ id: task.id, status: 'pending', attempts: 3, mediaReserved: false, mediaReserveStarted: true });
    const outcome = await new TaskPipeline({ ...deps, meter }, 'worker-b').run(claimedByB!, new AbortController().signal);
    expect(outcome.task.history.map((h) => h.status)).toEqual(['validating', 'pending', 'queued', 'indexing', 'failed']);

    // 10 s of the 300 s hour are gone, not 20 s; and the ledger holds the one charge.
    const admission = await counters.admitRequest(ORG, 'index', await limits.limitsFor(ORG));
    expect(admission.states).toEqual([expect.objectContaining({ dimension: 'DPH', remainingUnits: 290 })]);
    expect([...ledger.values()]).toEqual([
      expect.objectContaining({ idempotencyKey: `task:${task.id}`, unitKind: 'video_second', quantity: 10 }),
    ]);
  });

  it('records the spend of a reservation whose spend report failed, without debiting again', async () => {
    const limits = staticLimits([{ category: 'index', dimension: 'DPH', limit: 5 }]);
    const counters = new UsageCounters(memoryLimiters());
    const ledger = new Map<string, SpendRecord>();
    let billingUp = false;
    const meter = new Meter(counters, limits, {
      recordSpend: async (_org, record) => {
        if (!billingUp) throw new ApiError('service_unavailable', 'billing-service is down');
        return recorded(ledger, record);
      },
    });
    const task = await pendingTask();

    const first = await claim('worker-a');
    const retried = await new TaskPipeline({ ...deps, meter }, 'worker-a').run(first!, new AbortController().signal);
    expect(retried).toMatchObject({ kind: 'retry', task: { status: 'pending' } });
    await release(task.id, 'worker-a');

    billingUp = true;
    const second = await claim('worker-a');
    await new TaskPipeline({ ...deps, meter }, 'worker-a').run(second!, new AbortController().signal);
    const admission = await counters.admitRequest(ORG, 'index', await limits.limitsFor(ORG));
    expect(admission.states).toEqual([expect.objectContaining({ remainingUnits: 290 })]);
    expect([...ledger.keys()]).toEqual([`task:${task.id}`]);
  });
});
