import { isApiError, type Clock, type Logger } from '@vus/core';
import type { BlobStore } from '@vus/blob';
import { openUrl, type FetchPolicy } from '@vus/fetch';
import { JobRunner, createJobStore, runnerName, type ClaimedJob, type JobContext, type JobOutcome } from '@vus/jobs';
import { isMediaError, probe } from '@vus/media';
import type { ConceptEmbedder } from '@vus/models';
import type { Database } from '@vus/db';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { embeddingModel } from './model-names';
import { EMBED_TASK_JOB, type EmbedTaskTable } from './task-store';
import { decodeAudioFile } from './audio';
import { embedClips, gatherEvidence, hearRange, taskRange, taskRangeProblem } from './media-embedding';
import { optionsOf, type EmbedTaskRecord, type TaskResult } from './tasks';

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

/** The job queue's runner of embed tasks. */
export function embedTaskRunner(deps: TaskJobDeps): JobRunner {
  const { tasks, clock, logger } = deps;

  async function fetchSource(task: EmbedTaskRecord, file: string, signal: AbortSignal): Promise<void> {
    if (task.source.url) return pipeline(await openUrl(task.source.url, 'video_url', deps.fetchPolicy, signal), createWriteStream(file));
    if (!deps.blobs) throw new Error('no blob store is configured for uploaded videos');
    await deps.blobs.download(task.source.blobKey ?? '', file);
  }

  async function run(job: ClaimedJob, context: JobContext): Promise<JobOutcome> {
    const task = await tasks.byId(job.subjectId);
    if (!task || task.status !== 'processing') return { kind: 'succeeded' };
    const dir = await mkdtemp(join(tmpdir(), 'vus-embed-task-'));
    try {
      const file = join(dir, 'media');
      await fetchSource(task, file, context.signal);
      const what = task.options.inputType ?? 'video';
      const options = { ...task.options, embeddingOptions: optionsOf(task) };
      // Audio has no container probe (its formats are not video containers): decoding it is the check.
      const wav = join(dir, 'audio.wav');
      const probed = what === 'audio' ? undefined : await probe(file, { signal: context.signal });
      const durationSec = probed
        ? probed.durationSec
        : (await decodeAudioFile(file, wav, { param: 'audio.media_source', signal: context.signal })).durationSec;
      const failed = taskRangeProblem(what, durationSec, task.options);
      if (failed) {
        await tasks.fail(task.id, failed, clock.now());
        return { kind: 'succeeded' };
      }
      const { start, end } = taskRange(task.options, durationSec);
      const dimensions = embeddingModel(task.modelName).dimensions;
      const gather = { embedder: deps.embedder, dir, signal: context.signal };
      const evidence = probed
        ? await gatherEvidence(file, probed, { start, end }, options, gather)
        : await hearRange(wav, { start, end }, options, gather);
      const result: TaskResult = {
        duration: end - start,
        segments: embedClips(evidence, { start, end }, options, { text: (t) => deps.embedder.textConcepts(t) }, (bag) =>
          deps.embedder.embed(bag, dimensions),
        ),
      };
      await tasks.finish(task.id, result, clock.now());
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
