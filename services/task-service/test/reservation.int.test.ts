/*
 * Media minutes are charged once per task: reserved in billing-service by the task's key (a worker
 * taking over from one that died reserves nothing twice), and reported as one usage.recorded event
 * written with the task's move to `queued`. While billing-service cannot answer, the video is
 * indexed unreserved and its event still written; a refusal fails the task and reports nothing.
 */
import { FileBlobStore } from '@vus/blob';
import { ApiError, createLogger, ManualClock, newId } from '@vus/core';
import { migrateService } from '@vus/service';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { DEFAULT_FETCH_POLICY } from '@vus/fetch';
import { createJobStore, type JobStore } from '@vus/jobs';
import { memoryLimiters, Meter, staticLimits, UsageCounters, type Category } from '@vus/limits';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taskService } from '../src/main';
import { INDEX_TASK_JOB, type ClaimedTask, type TaskLeaseStore } from '../src/tasks/leases';
import { isTerminal } from '../src/tasks/status';
import { createTaskLeaseStore, createTaskStore } from '../src/tasks/store';
import { createTaskService, type TaskRecord } from '../src/tasks/tasks';
import { reservingMeter } from '../src/worker/config';
import { TaskPipeline } from '../src/worker/pipeline';
import type { MediaMeter, PipelineDeps } from '../src/worker/pipeline-deps';

const ORG = '6528dde58f9cd95a98cbd075';
const LEASE_MS = 60_000;
const logger = createLogger({ service: 'reservation-test', level: 'silent' });

/**
 * billing-service's ReserveUsage: once per key (a repeated key is a duplicate, debiting nothing),
 * a refusal keeps nothing; `down` answers as an unreachable billing-service would.
 */
function billingReservations(limits = staticLimits([{ category: 'index', dimension: 'DPH', limit: 5 }])) {
  const counters = new UsageCounters(memoryLimiters());
  const budgets = new Meter(counters, limits);
  const reserved = new Set<string>();
  const state = { down: false };
  const reserve = async (orgId: string, r: { idempotencyKey: string; category: Category; seconds: number }) => {
    if (state.down) throw new ApiError('service_unavailable', 'billing-service is down');
    if (reserved.has(r.idempotencyKey)) return { duplicate: true };
    await budgets.reserveMediaSeconds(orgId, r.category, r.seconds);
    reserved.add(r.idempotencyKey);
    return { duplicate: false };
  };
  const secondsLeft = async () => (await counters.admitRequest(ORG, 'index', await limits.limitsFor(ORG))).states[0]?.remainingUnits;
  return { reserve, state, secondsLeft, meter: reservingMeter(reserve, logger) };
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

  /** The task's usage events in the outbox (what billing-service will consume). */
  async function usageEvents(taskId: string) {
    const { rows } = await database.db.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM outbox WHERE type = 'usage.recorded' AND payload->>'idempotency_key' = $1`,
      [`task:${taskId}`],
    );
    return rows.map((r) => r.payload);
  }

  it('reserves once and reports once when the reserving worker died before recording the reservation', async () => {
    const billing = billingReservations();
    const task = await pendingTask();

    // Worker A reserves, then dies before its next write.
    let reserved!: () => void;
    const reservedByA = new Promise<void>((resolve) => (reserved = resolve));
    const dying: MediaMeter = {
      reserveMediaSeconds: async (...args) => {
        await billing.meter.reserveMediaSeconds(...args);
        reserved();
        return new Promise<void>(() => undefined);
      },
    };
    const claimedByA = await claim('worker-a');
    expect(claimedByA).toMatchObject({ id: task.id, status: 'pending', mediaReserved: false });
    void new TaskPipeline({ ...deps, meter: dying }, 'worker-a').run(claimedByA!, new AbortController().signal);
    await reservedByA;

    // A's lease runs out; worker B takes the task over.
    clock.advance(LEASE_MS + 1);
    const claimedByB = await claim('worker-b');
    expect(claimedByB).toMatchObject({ id: task.id, status: 'pending', attempts: 3, mediaReserved: false });
    const outcome = await new TaskPipeline({ ...deps, meter: billing.meter }, 'worker-b').run(claimedByB!, new AbortController().signal);
    expect(outcome.task.history.map((h) => h.status)).toEqual(['validating', 'pending', 'queued', 'indexing', 'failed']);

    // 10 s of the 300 s hour are gone, not 20 s; and one usage event reports them.
    expect(await billing.secondsLeft()).toBe(290);
    expect(await usageEvents(task.id)).toEqual([
      { kind: 'media_seconds', quantity: 10, idempotency_key: `task:${task.id}`, occurred_at: expect.any(String), category: 'index' },
    ]);
  });

  it('indexes unreserved while billing-service cannot answer, and still writes the usage event', async () => {
    const billing = billingReservations();
    billing.state.down = true;
    const task = await pendingTask();
    const outcome = await new TaskPipeline({ ...deps, meter: billing.meter }, 'worker-a').run(
      (await claim('worker-a'))!,
      new AbortController().signal,
    );
    expect(outcome.task.history.map((h) => h.status)).toEqual(['validating', 'pending', 'queued', 'indexing', 'failed']);
    // Nothing was debited now: billing-service debits the minutes when it consumes the event.
    expect(await billing.secondsLeft()).toBe(300);
    expect(await usageEvents(task.id)).toHaveLength(1);
  });

  it('fails a video longer than the minutes left with the 429 reason, reporting no usage', async () => {
    const billing = billingReservations(staticLimits([{ category: 'index', dimension: 'DPH', limit: 0 }]));
    const task = await pendingTask();
    const outcome = await new TaskPipeline({ ...deps, meter: billing.meter }, 'worker-a').run(
      (await claim('worker-a'))!,
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ kind: 'failed', task: { failure: { code: 'too_many_requests' } } });
    expect(await usageEvents(task.id)).toEqual([]);
  });
});
