import { isApiError, type Clock, type Logger } from '@vus/core';
import type { BlobStore } from '@vus/blob';
import type { FetchPolicy } from '@vus/fetch';
import { JobRunner, createJobStore, runnerName, type ClaimedJob, type JobContext, type JobOutcome } from '@vus/jobs';
import { isMediaError } from '@vus/media';
import type { ConceptEmbedder } from '@vus/models';
import type { Database } from '@vus/db';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { intervalJob, type BackgroundJob } from '@vus/service';
import { embeddingModel } from './model-names';
import { discardRequestMedia, mediaSweep } from './request-media';
import { EMBED_TASK_JOB, type EmbedTaskTable } from './task-store';
import { embedMediaFile, fetchMediaFile } from './media-embedding';
import { createEmbedTasks, optionsOf, type EmbedTaskRecord, type TaskSource } from './tasks';

export interface TaskJobDeps {
  db: Database;
  tasks: EmbedTaskTable;
  embedder: ConceptEmbedder;
  /** Where uploaded videos are (`blobKey` sources); absent: only URLs. */
  blobs?: BlobStore | undefined;
  fetchPolicy: FetchPolicy;
  clock: Clock;
  logger: Logger;
  concurrency?: number;
  pollMs?: number;
}

/**
 * Embed tasks as a service runs them: the API's side (create, read), and their background jobs —
 * the runner; the purge of results, kept 7 days (API-CONTRACT §5.8); the sweep of request media that
 * a crash or a server before it left behind (at start, then hourly).
 */
export function embedTasksWithJobs(deps: TaskJobDeps): { tasks: ReturnType<typeof createEmbedTasks>; jobs: BackgroundJob[] } {
  const { tasks: store, blobs, clock, logger } = deps;
  const runner = embedTaskRunner(deps);
  // A request whose idempotency key already has a task made none: the media stored for it goes.
  const discardMedia = (source: TaskSource) => discardRequestMedia(blobs, source, logger);
  return {
    tasks: createEmbedTasks({ store, clock, queued: () => runner.wake(), discardMedia }),
    jobs: [
      { name: 'embed-tasks', start: () => (runner.start(), runner) },
      intervalJob({ name: 'purge-embed-tasks', everyMs: 3_600_000, logger, run: () => store.purge(clock.now()) }),
      ...(blobs ? [mediaSweep(blobs, () => store.mediaInUse(), clock, logger)] : []),
    ],
  };
}

/** The job queue's runner of embed tasks. */
export function embedTaskRunner(deps: TaskJobDeps): JobRunner {
  const { tasks, clock, logger } = deps;

  async function run(job: ClaimedJob, context: JobContext): Promise<JobOutcome> {
    const task = await tasks.byId(job.subjectId);
    if (!task) return { kind: 'succeeded' };
    // Done before a crash took its cleanup: its media goes now.
    if (task.status !== 'processing') return (await discardRequestMedia(deps.blobs, task.source, logger), { kind: 'succeeded' });
    const outcome = await attempt(task, context);
    // Ready or failed for good (its last attempt too): the media the gateway stored for it is no longer needed; a retry keeps it.
    const done = outcome.kind === 'succeeded' || (outcome.kind === 'retry' && context.retryAt() === null);
    if (done) await discardRequestMedia(deps.blobs, task.source, logger);
    return outcome;
  }

  async function attempt(task: EmbedTaskRecord, context: JobContext): Promise<JobOutcome> {
    const dir = await mkdtemp(join(tmpdir(), 'vus-embed-task-'));
    try {
      const file = join(dir, 'media');
      await fetchMediaFile(task.source, file, deps, context.signal);
      const options = { ...task.options, embeddingOptions: optionsOf(task) };
      const dimensions = embeddingModel(task.modelName).dimensions;
      const embedded = await embedMediaFile(file, options, dimensions, { embedder: deps.embedder, dir, signal: context.signal });
      if ('problem' in embedded) {
        await tasks.fail(task.id, embedded.problem.message, clock.now());
        return { kind: 'succeeded' };
      }
      await tasks.finish(task.id, embedded.result, clock.now());
      return { kind: 'succeeded' };
    } catch (error) {
      if (context.signal.aborted) return { kind: 'lost' };
      // What the video or its URL is (unreadable, refused, not a video) does not change on a retry.
      if (isMediaError(error) || isApiError(error)) {
        await tasks.fail(task.id, (error as Error).message, clock.now());
        return { kind: 'succeeded' };
      }
      logger.warn({ err: error, task: task.id }, 'embed task attempt failed');
      if (context.retryAt() === null) await tasks.fail(task.id, 'The video could not be embedded.', clock.now());
      return { kind: 'retry', error: error instanceof Error ? error.message : String(error) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return new JobRunner({
    store: createJobStore(deps.db),
    kinds: { [EMBED_TASK_JOB]: { run, retry: { baseMs: 5_000, maxMs: 120_000 }, maxAttempts: 3 } },
    concurrency: deps.concurrency ?? 1,
    leaseMs: 60_000,
    pollMs: deps.pollMs ?? 2_000,
    owner: runnerName(),
    clock,
    logger,
  });
}
