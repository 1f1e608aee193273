/**
 * Asynchronous analysis: the API's side (create, read, list, delete tasks; create, read, list,
 * cancel, delete batches and read their results) and the job that runs each task on the job queue
 * (libs/jobs: leases, retries, round robin between organizations).
 */
import { ApiError, errors, isApiError, listPage, newId, type Clock, type Logger } from '@vus/core';
import type { Database } from '@vus/db';
import { JobRunner, createJobStore, runnerName, type ClaimedJob, type JobContext, type JobOutcome } from '@vus/jobs';
import { intervalJob, type BackgroundJob } from '@vus/service';
import type { AnalyzeService } from './analyze';
import { BATCH_LIMITS, checkBatchDeletable, checkCancelable, checkDeletable, checkUniqueCustomIds, TRUNCATED_MESSAGE } from './async-rules';
import { checkTaskSpec, type TaskSpec, type TaskSpecInput } from './async-spec';
import {
  ANALYZE_TASK_JOB,
  createAnalyzeTaskStore,
  type AnalyzeTaskStore,
  type BatchRecord,
  type TaskFilter,
  type TaskRecord,
} from './async-store';

/** A batch item's error names its request: `requests[3].prompt`. */
function inRequest(index: number, check: () => TaskSpec): TaskSpec {
  try {
    return check();
  } catch (error) {
    if (!isApiError(error) || !error.details?.param) throw error;
    const param = `requests[${index}].${error.details.param}`;
    throw new ApiError(error.code, error.message.replace(`The ${error.details.param} parameter`, `The ${param} parameter`), {
      ...error.details,
      param,
    });
  }
}

export interface AsyncAnalysisDeps {
  store: AnalyzeTaskStore;
  clock: Clock;
  /** Wakes the runner: a task was queued. */
  queued: () => void;
}

export function createAsyncAnalysis({ store, clock, queued }: AsyncAnalysisDeps) {
  const newTask = (orgId: string, spec: TaskSpec, now: Date, batchId: string | null = null, position = 0): TaskRecord => ({
    id: newId(now),
    orgId,
    batchId,
    position,
    spec,
    status: 'queued',
    generationId: null,
    data: null,
    finishReason: null,
    outputTokens: null,
    message: null,
    videoDuration: null,
    createdAt: now,
    completedAt: null,
  });

  async function batch(orgId: string, id: string): Promise<BatchRecord> {
    const found = await store.batch(orgId, id);
    if (!found) throw errors.notFound('Batch', id);
    return found;
  }

  return {
    async createTask(orgId: string, input: TaskSpecInput): Promise<TaskRecord> {
      const task = newTask(orgId, checkTaskSpec(input), clock.now());
      await store.createTask(task);
      queued();
      return task;
    },

    async task(orgId: string, id: string): Promise<TaskRecord> {
      const task = await store.task(orgId, id);
      if (!task) throw errors.notFound('Analysis task', id);
      return task;
    },

    listTasks: (orgId: string, filter: TaskFilter, page: { page?: number; pageLimit?: number }) =>
      listPage(page, (limit, offset) => store.listTasks(orgId, filter, limit, offset)),

    async deleteTask(orgId: string, id: string): Promise<void> {
      const deleted = await store.deleteTask(orgId, id, (task) => checkDeletable(id, task.status), clock.now());
      if (!deleted) throw errors.notFound('Analysis task', id);
    },

    /** Every request checked before anything is stored: one bad request refuses the batch. */
    async createBatch(
      orgId: string,
      request: { modelName: string; analysisMode: string; items: readonly TaskSpecInput[] },
    ): Promise<{ batch: BatchRecord; tasks: TaskRecord[] }> {
      if (request.items.length === 0) throw errors.notProvided('requests');
      if (request.items.length > BATCH_LIMITS.items)
        throw errors.invalid(
          'requests',
          `A batch holds at most ${BATCH_LIMITS.items} requests; this one has ${request.items.length}. Split it.`,
        );
      const specs = request.items.map((item, i) =>
        inRequest(i, () => checkTaskSpec({ ...item, model_name: request.modelName, analysis_mode: request.analysisMode })),
      );
      checkUniqueCustomIds(specs.map((s) => s.customId));
      const now = clock.now();
      const made = {
        id: newId(now),
        orgId,
        modelName: specs[0]!.modelName,
        analysisMode: specs[0]!.analysisMode,
        totalItems: specs.length,
        createdAt: now,
        expiresAt: new Date(now.getTime() + BATCH_LIMITS.lifetimeMs),
      };
      const tasks = specs.map((spec, i) => newTask(orgId, spec, now, made.id, i));
      await store.createBatch(made, tasks);
      queued();
      return { batch: await batch(orgId, made.id), tasks };
    },

    batch,

    listBatches: (orgId: string, filter: { statuses: string[]; modes: string[] }, page: { page?: number; pageLimit?: number }) =>
      listPage(page, (limit, offset) => store.listBatches(orgId, filter, limit, offset)),

    async cancelBatch(orgId: string, id: string): Promise<BatchRecord> {
      const canceled = await store.cancelBatch(orgId, id, (b) => checkCancelable(id, b.status), clock.now());
      if (!canceled) throw errors.notFound('Batch', id);
      return canceled;
    },

    async deleteBatch(orgId: string, id: string): Promise<void> {
      if (!(await store.deleteBatch(orgId, id, (b) => checkBatchDeletable(id, b.status)))) throw errors.notFound('Batch', id);
    },

    /** The batch's items in request order; not found before the first is read. */
    async batchResults(orgId: string, id: string): Promise<AsyncIterable<TaskRecord>> {
      await batch(orgId, id);
      return store.batchTasks(orgId, id);
    },
  };
}

export type AsyncAnalysis = ReturnType<typeof createAsyncAnalysis>;

export interface AnalyzeTaskJobDeps {
  db: Database;
  /** Wakes the outbox relay (a task's end is an event). */
  eventsWritten?: (() => void) | undefined;
  analyze: AnalyzeService;
  clock: Clock;
  logger: Logger;
  /** Tasks run at the same time by this process (fair between organizations from 2 on). */
  concurrency?: number | undefined;
  pollMs?: number | undefined;
}

/** What a failed run tells the caller: an ApiError's own message, never an internal detail. */
const failureMessage = (error: unknown) => (isApiError(error) && error.code !== 'internal_error' ? error.message : 'The analysis failed.');

/** The job queue's runner of analysis tasks. */
export function analyzeTaskRunner(deps: AnalyzeTaskJobDeps, store: AnalyzeTaskStore): JobRunner {
  const { analyze, clock, logger } = deps;
  let owner = '';

  async function run(job: ClaimedJob, context: JobContext): Promise<JobOutcome> {
    const task = await store.taskForRun(job.subjectId);
    // Deleted, or canceled with its batch: nothing to do.
    if (!task || !(await store.startRun(task.id, owner, clock.now()))) return { kind: 'succeeded' };
    try {
      const out = await analyze.runTask(task.orgId, task.spec, context.signal);
      if (context.signal.aborted) return { kind: 'lost' };
      await store.endRun(task.id, owner, clock.now(), {
        status: 'ready',
        ...out,
        message: out.finishReason === 'length' ? TRUNCATED_MESSAGE : null,
      });
      return { kind: 'succeeded' };
    } catch (error) {
      if (context.signal.aborted) return { kind: 'lost' };
      // What the request or its video is (not found, no generative engine, a window past its end) does not change on a retry.
      if (isApiError(error) && error.code !== 'internal_error' && !error.retryable) {
        await store.endRun(task.id, owner, clock.now(), { status: 'failed', message: failureMessage(error) });
        return { kind: 'succeeded' };
      }
      logger.warn({ err: error, taskId: task.id }, 'analysis task attempt failed');
      if (context.retryAt() === null) await store.endRun(task.id, owner, clock.now(), { status: 'failed', message: failureMessage(error) });
      return { kind: 'retry', error: error instanceof Error ? error.message : String(error) };
    }
  }

  const runner = new JobRunner({
    store: createJobStore(deps.db),
    kinds: { [ANALYZE_TASK_JOB]: { run, retry: { baseMs: 5_000, maxMs: 120_000 }, maxAttempts: 3 } },
    concurrency: deps.concurrency ?? 2,
    leaseMs: 60_000,
    pollMs: deps.pollMs ?? 2_000,
    owner: runnerName(),
    clock,
    logger,
  });
  owner = runner.owner;
  return runner;
}

/** The API's side and the background jobs: the runner, and the sweep that expires batches past their 24 hours. */
export function asyncAnalysisWithJobs(deps: AnalyzeTaskJobDeps): {
  asyncAnalysis: AsyncAnalysis;
  jobs: BackgroundJob[];
  runner: JobRunner;
} {
  const store = createAnalyzeTaskStore(deps.db, deps.eventsWritten);
  const runner = analyzeTaskRunner(deps, store);
  return {
    asyncAnalysis: createAsyncAnalysis({ store, clock: deps.clock, queued: () => runner.wake() }),
    runner,
    jobs: [
      { name: 'analyze-tasks', start: () => (runner.start(), runner) },
      intervalJob({
        name: 'expire-analyze-batches',
        everyMs: 60_000,
        logger: deps.logger,
        run: () => store.expireBatches(deps.clock.now()),
      }),
    ],
  };
}
