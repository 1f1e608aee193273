import { ApiError, isApiError } from '@vus/core';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClaimedTask } from '../tasks/leases';
import { failureOf, type TaskRecord } from '../tasks/tasks';
import type { PipelineDeps } from './pipeline-deps';
import { alongside } from './alongside';
import { recordingStages, stage } from './stage';
import { extractVideo } from './stages/extract';
import { fetchSource } from './stages/fetch';
import { videoSource, type VideoSource } from './stages/inputs';
import { reserve } from './stages/reserve';
import { makeStill, needsStill } from './stages/still';
import { dropBlobsOfUnwrittenVideo, storeVideo } from './stages/store';
import { streamStill, videoStream } from './stages/stream';
import { validate } from './stages/validate';
import { LeaseLost, TaskWriter } from './task-writer';
import { removeLeftoversOf } from './work-dir';

export type PipelineOutcome =
  /** `fetched`: the fetch stage stored the media and handed the task to its index-task job. */
  | { kind: 'fetched' | 'ready' | 'failed' | 'lost'; task: TaskRecord }
  /** `error`: what went wrong this time (kept on the task's job). */
  | { kind: 'retry'; task: TaskRecord; error: string };

/**
 * Passing problems (outages, timeouts, a crash of ours) are retried while attempts are left;
 * problems of the video or the request are not. A usage limit is final: the user must act.
 */
export function isRetryable(error: unknown): boolean {
  if (isApiError(error)) return error.retryable && error.code !== 'too_many_requests' && error.code !== 'usage_limit_exceeded';
  return true;
}

/**
 * Runs one claimed task from whatever status it is in to `ready` or `failed`, in two stages (one
 * job each): `fetch` downloads a video_url, `run` validates and indexes. Each step (stages/) ends
 * in a status change written under the lease (with its event), so a task taken over from a dead
 * worker resumes at the stage that did not finish. Everything a stage does is safe to do twice:
 * the video id is fixed, CreateVideo and PutVideoArtifacts are idempotent, blobs are overwritten.
 */
export class TaskPipeline {
  private readonly writer: TaskWriter;

  constructor(
    private readonly deps: PipelineDeps,
    owner: string,
  ) {
    this.writer = new TaskWriter(deps, owner);
  }

  /**
   * The index stage (the task's index-task job): takes the task as far as it goes. `ready`/`failed`:
   * finished; `retry`: a passing problem (an outage, a timeout), give the task back for later;
   * `lost`: the lease went (or the run was aborted), another worker carries on.
   */
  run(claimed: ClaimedTask, signal: AbortSignal): Promise<PipelineOutcome> {
    const { deps, writer } = this;
    // The media is downloaded and probed once per claim, for validate and index alike (a claim that
    // starts past validating, a takeover, makes it for index alone).
    let source: VideoSource | undefined;
    const sourceOf = async (task: TaskRecord, workDir: string) => (source ??= await videoSource(deps, task, workDir, signal));
    return this.attempt(claimed, signal, [
      // Fetched here only when the task's job was queued before downloads had a stage of their own.
      (task) => (task.status === 'uploading' ? fetchSource(deps, writer, task, signal) : task),
      // An image task's still video is made first, in the indexing slots (ffmpeg: CPU), never in a request.
      (task, workDir) => (task.status === 'validating' && needsStill(task) ? makeStill(deps, writer, task, workDir, signal) : task),
      async (task, workDir) => (task.status === 'validating' ? validate(writer, task, await sourceOf(task, workDir)) : task),
      (task) => (task.status === 'pending' ? reserve(deps, writer, task, claimed.mediaReserved) : task),
      (task) => (task.status === 'queued' ? writer.advance(task, 'indexing', { progress: 0 }) : task),
      async (task, workDir) => (task.status === 'indexing' ? this.index(task, await sourceOf(task, workDir), workDir, signal) : task),
    ]);
  }

  /**
   * The fetch stage (the task's fetch-task job): downloads the video_url into the blob store and
   * hands the task to its index-task job; `fetched` then. Only I/O, so it runs in slots of its own.
   */
  fetch(claimed: ClaimedTask, signal: AbortSignal): Promise<PipelineOutcome> {
    const { deps, writer } = this;
    return this.attempt(claimed, signal, [(task) => (task.status === 'uploading' ? fetchSource(deps, writer, task, signal) : task)]);
  }

  /**
   * One claim's work on the task: each step takes it on from its status (or leaves it), and the
   * outcome says where it got: `failed` or `ready` when it ended, `fetched` when it moved on to
   * the next stage's job. A failure is written from the status the last step reached.
   */
  private async attempt(
    claimed: ClaimedTask,
    signal: AbortSignal,
    steps: readonly ((task: TaskRecord, workDir: string) => TaskRecord | Promise<TaskRecord>)[],
  ): Promise<PipelineOutcome> {
    let task: TaskRecord = claimed;
    // A claim of a worker that died left its scratch folder (a copy of the upload) behind.
    const leftovers = await removeLeftoversOf(this.deps.workRoot, claimed.id);
    if (leftovers.length > 0) this.deps.logger.info({ taskId: claimed.id, leftovers }, 'removed the scratch folders of an earlier claim');
    const workDir = await mkdtemp(join(this.deps.workRoot, `task-${claimed.id}-`));
    try {
      if (claimed.attempts > this.deps.maxAttempts) {
        // Each claim counts: a task that keeps killing (or outliving) its workers stops here.
        throw new ApiError('internal_error', `Indexing was interrupted ${claimed.attempts - 1} times; the video could not be indexed.`);
      }
      // Time from the task's creation to this claim: how soon the worker picked it up (first claim).
      const waitedSec = (this.deps.clock.now().getTime() - claimed.createdAt.getTime()) / 1000;
      const { stages, seconds } = await recordingStages(async () => {
        for (const step of steps) task = await step(task, workDir);
      });
      this.deps.logger.info(
        { taskId: task.id, status: task.status, attempts: claimed.attempts, waitedSec, runSec: seconds, stages },
        'task run stages',
      );
      return { kind: task.status === 'failed' ? 'failed' : task.status === 'ready' ? 'ready' : 'fetched', task };
    } catch (error) {
      if (error instanceof LeaseLost || signal.aborted) return { kind: 'lost', task };
      if (isRetryable(error) && claimed.attempts < this.deps.maxAttempts) {
        this.deps.logger.warn(
          { err: error, taskId: task.id, attempts: claimed.attempts },
          'indexing failed for now; the task will be retried',
        );
        return { kind: 'retry', task, error: error instanceof Error ? error.message : String(error) };
      }
      const failure = failureOf(error);
      if (failure.code === 'internal_error') this.deps.logger.error({ err: error, taskId: task.id }, 'indexing failed');
      const failed = await this.writer.write(task, { status: { from: task.status, to: 'failed' }, changes: { failure } });
      if (failed && task.status === 'indexing') await dropBlobsOfUnwrittenVideo(this.deps, task);
      return failed ? { kind: 'failed', task: failed } : { kind: 'lost', task };
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /**
   * indexing → ready: extract (to 92 %) and, beside it, the stream when asked for (97 % when both
   * are done: it needs only the file, and ffmpeg takes a core the frame pass leaves), then store
   * the video, its artifacts and its segments.
   */
  private async index(task: TaskRecord, source: VideoSource, workDir: string, signal: AbortSignal): Promise<TaskRecord> {
    const { deps, writer } = this;
    const [extracted, stream] = await alongside(
      signal,
      (inner) => extractVideo(deps, writer, task, source, workDir, inner),
      async (inner) =>
        task.enableVideoStream
          ? stage('stream', task, () => videoStream(deps, writer, task, source.file, source.probed, workDir, inner))
          : undefined,
    );
    const { frames, report, conversation } = extracted;
    const hls = stream && (await streamStill(deps, task, stream, frames.thumbnails, signal));
    if (hls) await writer.progress(task, 97);

    await stage('store', task, () => storeVideo(deps, task, { ...extracted, hls }));
    deps.logger.info(
      {
        taskId: task.id,
        videoId: task.videoId,
        analysedFrames: frames.analysedFrames,
        sampledFrames: frames.observations.length,
        timings: frames.timings,
        report,
        speechLanguage: conversation?.language,
      },
      'video indexed',
    );
    return stage('ready', task, () => writer.advance(task, 'ready', { progress: 100, extractors: report, ...(hls ? { hls } : {}) }));
  }
}
