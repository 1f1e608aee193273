import { isApiError, type Clock, type Logger } from '@vus/core';
import type { BlobStore } from '@vus/blob';
import { openUrl, type FetchPolicy } from '@vus/fetch';
import { JobRunner, createJobStore, runnerName, type ClaimedJob, type JobContext, type JobOutcome } from '@vus/jobs';
import { isMediaError, probe, sampleFrames } from '@vus/media';
import { unionOfFrames, type ConceptBag, type ConceptEmbedder } from '@vus/models';
import type { Database } from '@vus/db';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { embeddingModel } from './model-names';
import { EMBED_TASK_JOB, type EmbedTaskTable } from './task-store';
import { TASK_RULES, clipWindows, type EmbedTaskRecord, type TaskResult, type TaskSegment } from './tasks';

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

/** The frames of a range, each as concepts, in time order. */
async function frameConcepts(file: string, task: EmbedTaskRecord, durationSec: number, embedder: ConceptEmbedder, signal: AbortSignal) {
  const start = Math.min(task.options.startSec, durationSec);
  const end = Math.min(task.options.endSec ?? durationSec, durationSec);
  const frames: { time: number; bag: ConceptBag }[] = [];
  for await (const frame of sampleFrames(file, {
    fps: TASK_RULES.framesPerSecond,
    width: 640,
    startSec: start,
    durationSec: end - start,
    signal,
  })) {
    frames.push({ time: frame.timeSec, bag: await embedder.imageConcepts(frame.data) });
  }
  return { start, end, frames };
}

/** Clip vectors (each the union of its frames, or of the nearest frame when none falls inside) and the video vector. */
export function embedRange(
  frames: readonly { time: number; bag: ConceptBag }[],
  range: { start: number; end: number },
  task: Pick<EmbedTaskRecord, 'options'>,
  embed: (bag: ConceptBag) => Float32Array,
): TaskSegment[] {
  const segments: TaskSegment[] = [];
  const nearest = (at: number) =>
    frames.reduce<{ time: number; bag: ConceptBag } | undefined>(
      (best, f) => (!best || Math.abs(f.time - at) < Math.abs(best.time - at) ? f : best),
      undefined,
    );
  if (task.options.scopes.includes('clip')) {
    for (const window of clipWindows(range.start, range.end, task.options.clipLength)) {
      const inside = frames.filter((f) => f.time >= window.start && f.time < window.end);
      const chosen = inside.length > 0 ? inside : [nearest((window.start + window.end) / 2)].filter((f) => f !== undefined);
      segments.push({ ...window, scope: 'clip', vector: Array.from(embed(unionOfFrames(chosen.map((f) => f.bag)))) });
    }
  }
  if (task.options.scopes.includes('video'))
    segments.push({
      start: range.start,
      end: range.end,
      scope: 'video',
      vector: Array.from(embed(unionOfFrames(frames.map((f) => f.bag)))),
    });
  return segments;
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
      const file = join(dir, 'video');
      await fetchSource(task, file, context.signal);
      const probed = await probe(file, { signal: context.signal });
      if (probed.durationSec > TASK_RULES.maxDurationSec) {
        await tasks.fail(
          task.id,
          `The video is ${Math.round(probed.durationSec)} s long; embed tasks take at most ${TASK_RULES.maxDurationSec} s.`,
          clock.now(),
        );
        return { kind: 'succeeded' };
      }
      const { start, end, frames } = await frameConcepts(file, task, probed.durationSec, deps.embedder, context.signal);
      if (end <= start) {
        await tasks.fail(
          task.id,
          `The start offset ${start} s is at or past the end of the ${probed.durationSec.toFixed(1)} s video.`,
          clock.now(),
        );
        return { kind: 'succeeded' };
      }
      const dimensions = embeddingModel(task.modelName).dimensions;
      const result: TaskResult = {
        duration: end - start,
        segments: embedRange(frames, { start, end }, task, (bag) => deps.embedder.embed(bag, dimensions)),
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
