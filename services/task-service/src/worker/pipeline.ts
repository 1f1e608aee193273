import type { BlobStore } from '@vus/blob';
import { ApiError, isApiError, type Clock, type Logger } from '@vus/core';
import { usageRecorded, type EventEnvelope } from '@vus/events';
import { fetchText, openUrl, type FetchPolicy } from '@vus/fetch';
import { toMetadataValues, toTimestamp, type OutgoingContext } from '@vus/grpc';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import { HLS_PLAYLIST, makeHls, mediaProblemError, probe, validateForIndexing, type MediaProbe } from '@vus/media';
import type { ModelRegistry } from '@vus/models';
import { inSpan, recordStage, timed } from '@vus/telemetry';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { IndexClient } from '../index-client';
import { videoBlobPrefix } from '../video-blobs';
import { INDEX_TASK_JOB, type ClaimedTask, type TaskChanges, type TaskLeaseStore, type TaskUpdate } from '../tasks/leases';
import type { TaskStatus } from '../tasks/status';
import { failureOf, statusChangedEvent, type ExtractorReport, type SystemMetadata, type TaskHls, type TaskRecord } from '../tasks/tasks';
import { extractConversation } from './extract/conversation';
import { VideoClipVectors, type ClipVectorClient } from './extract/clip-vectors';
import { analyseFrames, type FrameModels } from './extract/frames';
import { BRANDS } from './extract/brands';
import { logosOf, progressPercent, scenesOf, textInVideo, type TimedValue } from './extract/timeline';
import { planExtractors, type ExtractorPlan } from './plan';
import { readTranscriptionBlob } from './transcription';
import { thumbnailFor, type Segment, type SegmentSink } from './segments';

/**
 * Reserves a task's media minutes against the organization's duration budgets (billing-service's
 * ReserveUsage: the worker never touches the rate-limit counters); refuses with
 * `too_many_requests`. Idempotent by key. The spend is the task's `usage.recorded` event.
 */
export interface MediaMeter {
  reserveMediaSeconds(orgId: string, category: 'index', seconds: number, idempotencyKey: string): Promise<void>;
}

export interface PipelineDeps {
  leases: TaskLeaseStore;
  blobs: BlobStore;
  index: Pick<IndexClient, 'getIndex' | 'getVideo' | 'createVideo' | 'putVideoArtifacts'>;
  models: Pick<ModelRegistry, 'find' | 'status'>;
  /** search-service's ingest; without it segments are not stored (the video cannot be searched). */
  segments?: SegmentSink | undefined;
  /** embed-service, the model server: clip vectors; without it videos are indexed without them (recorded as skipped). */
  clipVectors?: ClipVectorClient | undefined;
  meter?: MediaMeter | undefined;
  fetchPolicy: FetchPolicy;
  /** Transcription files are small: fetched whole within this many bytes. */
  maxTranscriptionBytes: number;
  /** Folder for the worker's temporary files (one subfolder per task run). */
  workRoot: string;
  clock: Clock;
  logger: Logger;
  /** Nudges the outbox relay after a commit that wrote events. */
  eventsWritten: () => void;
  frames: { fps: number; width: number; maxThumbnails: number };
  /** Claims of one task before it is failed (each worker death costs one). */
  maxAttempts: number;
}

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

/** The worker no longer holds the task's lease: stop quietly, another worker carries on. */
export class LeaseLost extends Error {
  constructor(taskId: string) {
    super(`lease on task ${taskId} was lost`);
  }
}

/** The blob key of an indexed video's thumbnail: under the video, so its deletion removes it. */
export function thumbnailKey(videoId: string, timeSec: number): string {
  return `videos/${videoId}/thumbnails/${Math.round(timeSec * 1000)}.jpg`;
}

/** The folder of a video's HLS rendition: under the video, so its deletion removes it. */
export function hlsPrefix(videoId: string): string {
  return `${videoBlobPrefix(videoId)}hls/`;
}

/** The still stored beside the playlist (the stream's `thumbnail_urls`). */
const HLS_THUMBNAIL = 'thumbnail.jpg';

/**
 * A task that failed while indexing may have stored its video's thumbnails and stream already
 * (under `videos/<id>/`). When index-service has no such video, nothing would ever delete them
 * (blobs go with `video.deleted`): they are removed here. A video that exists keeps them (its
 * deletion removes them); when index-service cannot say, they are kept and the fact is logged.
 */
export async function dropBlobsOfUnwrittenVideo(
  deps: Pick<PipelineDeps, 'index' | 'blobs' | 'logger'>,
  task: Pick<TaskRecord, 'id' | 'orgId' | 'indexId' | 'videoId'>,
): Promise<void> {
  try {
    await deps.index.getVideo(rpcContext(task.orgId), task.indexId, task.videoId);
    return;
  } catch (error) {
    if (!isApiError(error) || error.code !== 'resource_not_exist') {
      deps.logger.warn(
        { err: error, taskId: task.id, videoId: task.videoId },
        'a failed task’s blobs are kept: index-service could not say whether its video exists',
      );
      return;
    }
  }
  try {
    const removed = await deps.blobs.deletePrefix(videoBlobPrefix(task.videoId));
    if (removed > 0)
      deps.logger.info({ taskId: task.id, videoId: task.videoId, removed }, 'removed the blobs of a failed task’s unwritten video');
  } catch (error) {
    deps.logger.warn({ err: error, taskId: task.id, videoId: task.videoId }, 'removing a failed task’s blobs failed');
  }
}

/** The key of a task's media minutes: its reservation and its usage event. */
export function mediaUsageKey(taskId: string): string {
  return `task:${taskId}`;
}

/** Where a fetched video_url is stored. */
export function fetchedMediaKey(taskId: string): string {
  return `uploads/${taskId}/fetched`;
}

const RPC_TIMEOUT_MS = 30_000;

/** What indexing found, for the store stage. */
interface StoreInput {
  plan: ExtractorPlan;
  probed: MediaProbe;
  report: ExtractorReport;
  hls: TaskHls | undefined;
  conversation: Awaited<ReturnType<typeof extractConversation>> | undefined;
  textValues: TimedValue[];
  logoValues: TimedValue[];
  scenes: ReturnType<typeof scenesOf>;
  frames: Awaited<ReturnType<typeof analyseFrames>>;
  /** The vector model of `frames.vectors` (stored with each vector); undefined without vectors. */
  vectorModel: string | undefined;
}

/** One stage of a task's indexing as a span of the upload's trace (its job's span is the parent). */
function stage<T>(
  name: string,
  task: Pick<TaskRecord, 'id'>,
  run: () => Promise<T>,
  attributes: Record<string, string | number | string[]> = {},
): Promise<T> {
  const measured = () => timed((outcome, seconds) => recordStage(name, outcome, seconds), run);
  return inSpan(`stage ${name}`, { attributes: { 'vus.task.id': task.id, 'vus.stage': name, ...attributes } }, measured);
}

/** An RPC of the worker on an organization's behalf, with the worker's deadline. */
function rpcContext(orgId: string): OutgoingContext {
  return { orgId, deadline: new Date(Date.now() + RPC_TIMEOUT_MS) };
}

/**
 * Runs one claimed task from whatever status it is in to `ready` or `failed`, in two stages (one
 * job each): `fetch` downloads a video_url, `run` validates and indexes. Each step ends in a
 * status change written under the lease (with its event), so a task taken over from a dead worker
 * resumes at the stage that did not finish. Everything a stage does is safe to do twice: the video
 * id is fixed, CreateVideo and PutVideoArtifacts are idempotent, blobs are overwritten.
 */
export class TaskPipeline {
  constructor(
    private readonly deps: PipelineDeps,
    private readonly owner: string,
  ) {}

  /**
   * The index stage (the task's index-task job): takes the task as far as it goes. `ready`/`failed`:
   * finished; `retry`: a passing problem (an outage, a timeout), give the task back for later;
   * `lost`: the lease went (or the run was aborted), another worker carries on.
   */
  run(claimed: ClaimedTask, signal: AbortSignal): Promise<PipelineOutcome> {
    return this.attempt(claimed, signal, [
      // Fetched here only when the task's job was queued before downloads had a stage of their own.
      (task) => (task.status === 'uploading' ? this.fetchSource(task, signal) : task),
      (task, workDir) => (task.status === 'validating' ? this.validate(task, workDir, signal) : task),
      async (task) => {
        if (task.status !== 'pending') return task;
        // Once per task: a task taken over after `queued` was already charged.
        if (!claimed.mediaReserved) await this.reserveMinutes(task);
        // The usage event commits with the reservation's mark: the spend is reported exactly when it is charged.
        return this.advance(task, 'queued', { mediaReserved: true }, claimed.mediaReserved ? [] : [this.usageOf(task)]);
      },
      (task) => (task.status === 'queued' ? this.advance(task, 'indexing', { progress: 0 }) : task),
      (task, workDir) => (task.status === 'indexing' ? this.index(task, workDir, signal) : task),
    ]);
  }

  /**
   * The fetch stage (the task's fetch-task job): downloads the video_url into the blob store and
   * hands the task to its index-task job; `fetched` then. Only I/O, so it runs in slots of its own.
   */
  fetch(claimed: ClaimedTask, signal: AbortSignal): Promise<PipelineOutcome> {
    return this.attempt(claimed, signal, [(task) => (task.status === 'uploading' ? this.fetchSource(task, signal) : task)]);
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
    const workDir = await mkdtemp(join(this.deps.workRoot, `task-${claimed.id}-`));
    try {
      if (claimed.attempts > this.deps.maxAttempts) {
        // Each claim counts: a task that keeps killing (or outliving) its workers stops here.
        throw new ApiError('internal_error', `Indexing was interrupted ${claimed.attempts - 1} times; the video could not be indexed.`);
      }
      for (const step of steps) task = await step(task, workDir);
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
      const failed = await this.write(task, { status: { from: task.status, to: 'failed' }, changes: { failure } });
      if (failed && task.status === 'indexing') await dropBlobsOfUnwrittenVideo(this.deps, task);
      return failed ? { kind: 'failed', task: failed } : { kind: 'lost', task };
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  private async write(
    task: TaskRecord,
    update: Parameters<TaskLeaseStore['update']>[3],
    events: readonly EventEnvelope[] = [],
  ): Promise<TaskRecord | undefined> {
    const clock = this.deps.clock;
    const updated = await this.deps.leases.update(task.id, this.owner, clock.now(), update, (t) => [
      ...(update.status ? [statusChangedEvent(t, update.status.from, clock)] : []),
      ...events,
    ]);
    if (updated && (update.status || events.length > 0)) this.deps.eventsWritten();
    return updated;
  }

  private async advance(
    task: TaskRecord,
    to: TaskStatus,
    changes: TaskChanges = {},
    events: readonly EventEnvelope[] = [],
    nextJob?: TaskUpdate['nextJob'],
  ): Promise<TaskRecord> {
    const updated = await this.write(task, { status: { from: task.status, to }, changes, ...(nextJob ? { nextJob } : {}) }, events);
    if (!updated) throw new LeaseLost(task.id);
    this.deps.logger.info({ taskId: task.id, from: task.status, to }, 'task status changed');
    return updated;
  }

  private async progress(task: TaskRecord, percent: number): Promise<void> {
    if (!(await this.write(task, { changes: { progress: percent } }))) throw new LeaseLost(task.id);
  }

  /**
   * uploading → validating: the URL's bytes go to the blob store under the SSRF rules (and
   * libs/fetch's bounds: idle time, a minimum rate, the whole download's time), and the task's
   * index-task job is queued with the status (nothing when it exists: a task fetched in its index stage).
   */
  private async fetchSource(task: TaskRecord, signal: AbortSignal): Promise<TaskRecord> {
    if (task.source.kind !== 'url') throw new Error(`task ${task.id} is uploading without a URL`);
    const key = fetchedMediaKey(task.id);
    const source = task.source;
    await stage('fetch', task, async () => {
      const body = await openUrl(source.url, 'video_url', this.deps.fetchPolicy, signal);
      await this.deps.blobs.put(key, body, { maxBytes: this.deps.fetchPolicy.maxBytes, signal });
    });
    return this.advance(task, 'validating', { mediaBlobKey: key }, [], INDEX_TASK_JOB);
  }

  private async localMedia(task: TaskRecord, workDir: string): Promise<string> {
    if (!task.mediaBlobKey) throw new Error(`task ${task.id} has no stored media`);
    const path = join(workDir, 'media');
    const blobKey = task.mediaBlobKey;
    await stage('download', task, () => this.deps.blobs.download(blobKey, path));
    return path;
  }

  private async indexOf(task: TaskRecord): Promise<Index> {
    try {
      return await this.deps.index.getIndex(rpcContext(task.orgId), task.indexId);
    } catch (error) {
      if (isApiError(error) && error.code === 'resource_not_exist') {
        throw new ApiError('resource_not_exist', `The index ${task.indexId} no longer exists; the video was not indexed.`);
      }
      throw error;
    }
  }

  /** validating → pending: probe and the contract's limits; a problem fails the task. */
  private async validate(task: TaskRecord, workDir: string, signal: AbortSignal): Promise<TaskRecord> {
    const index = await this.indexOf(task);
    const plan = planExtractors(index);
    const file = await this.localMedia(task, workDir);
    const probed = await stage('probe', task, () => probe(file, { signal }));
    const problems = validateForIndexing(probed, { requireAudio: plan.requiresAudio });
    if (problems[0]) throw mediaProblemError(problems[0]);
    return this.advance(task, 'pending', { system: systemMetadata(task, probed) });
  }

  /**
   * Reserves the media minutes (a video longer than the minutes left fails the task). The
   * reservation is idempotent by the task's key, so a worker taking over from one that died after
   * reserving reserves nothing twice.
   */
  private async reserveMinutes(task: TaskRecord): Promise<void> {
    if (!task.system) throw new Error(`task ${task.id} is pending without system metadata`);
    await this.deps.meter?.reserveMediaSeconds(task.orgId, 'index', task.system.duration, mediaUsageKey(task.id));
  }

  /** The task's `usage.recorded`: its probed seconds, spend in billing-service (by the reservation's key). */
  private usageOf(task: TaskRecord): EventEnvelope {
    const seconds = task.system?.duration ?? 0;
    const usage = {
      kind: 'media_seconds',
      quantity: seconds,
      idempotencyKey: mediaUsageKey(task.id),
      occurredAt: this.deps.clock.now(),
      category: 'index',
    } as const;
    return usageRecorded(task.orgId, usage, this.deps.clock);
  }

  /** indexing → ready: the extractors, then the video, its artifacts and its segments. */
  private async index(task: TaskRecord, workDir: string, signal: AbortSignal): Promise<TaskRecord> {
    const { deps } = this;
    const index = await this.indexOf(task);
    const plan = planExtractors(index);
    const file = await this.localMedia(task, workDir);
    const probed = await stage('probe', task, () => probe(file, { signal }));
    const report: ExtractorReport = { ran: [], skipped: [] };

    const frameModels = await this.frameModels(task, plan, report);
    let lastReported = 0;
    // Progress writes go one after another (never out of order), without holding up the frames.
    let reporting = Promise.resolve();
    // The frame extractors (detector, OCR, the visual embedder) take each sampled frame in turn.
    const frameExtractors = report.ran.slice();
    const frames = await stage(
      'extract frames',
      task,
      () =>
        analyseFrames(file, probed, frameModels, {
          ...deps.frames,
          signal,
          onProgress: (position) => {
            const percent = progressPercent(position, probed.durationSec, 0, 85);
            if (percent - lastReported < 5) return;
            lastReported = percent;
            reporting = reporting.then(() => this.progress(task, percent)).catch(() => undefined);
          },
        }),
      { 'vus.extractors': frameExtractors },
    );
    await reporting;
    const vectorModel = this.clipVectorsOutcome(task, frameModels.embedder, frames, report);
    const duration = probed.durationSec;
    const textValues: TimedValue[] = plan.textInVideo ? textInVideo(frames.observations, frames.step, duration) : [];
    const logoValues: TimedValue[] = plan.logo ? logosOf(frames.observations, BRANDS, frames.step, duration) : [];
    if (plan.logo && frameModels.textReader) report.ran.push('logo');
    const scenes = plan.visual ? scenesOf(frames.observations, frames.step, duration) : [];
    await this.progress(task, 85);

    const conversation = plan.conversation
      ? await stage('extract conversation', task, () => this.conversation(task, file, probed, workDir, signal))
      : undefined;
    if (conversation?.ran) report.ran.push(conversation.ran);
    if (conversation?.skipped) report.skipped.push({ name: conversation.skipped.extractor, reason: conversation.skipped.reason });
    await this.progress(task, 92);

    const hls = task.enableVideoStream
      ? await stage('stream', task, () => this.videoStream(task, file, probed, frames.thumbnails, workDir, signal))
      : undefined;
    if (hls) await this.progress(task, 97);

    await stage('store', task, () =>
      this.store(task, { plan, probed, report, hls, conversation, textValues, logoValues, scenes, frames, vectorModel }),
    );
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
    return this.advance(task, 'ready', { progress: 100, extractors: report, ...(hls ? { hls } : {}) });
  }

  /** The video, its artifacts and its segments, written to index-service and search-service. */
  private async store(
    task: TaskRecord,
    { plan, probed, report, hls, conversation, textValues, logoValues, scenes, frames, vectorModel }: StoreInput,
  ): Promise<void> {
    const { deps } = this;
    const thumbnails = plan.thumbnails ? await this.storeThumbnails(task, frames.thumbnails) : [];
    const ctx = rpcContext(task.orgId);
    await deps.index.createVideo(ctx, {
      index_id: task.indexId,
      video_id: task.videoId,
      system_metadata: systemMetadata(task, probed),
      user_metadata: toMetadataValues(task.userMetadata),
      extractors_run: report.ran,
      media_blob_key: task.mediaBlobKey ?? '',
      speech_language: conversation?.language ?? '',
      created_at: toTimestamp(task.createdAt),
      hls: hls && {
        video_url: hls.videoKey ?? '',
        thumbnail_urls: hls.thumbnailKeys,
        status: hls.status,
        updated_at: toTimestamp(hls.updatedAt),
      },
    });
    await deps.index.putVideoArtifacts(ctx, {
      index_id: task.indexId,
      video_id: task.videoId,
      artifacts: {
        transcription: conversation?.transcription ?? [],
        text_in_video: textValues,
        logo: logoValues,
        thumbnails: thumbnails.map((t) => ({ time: t.time, blob_key: t.key, content_type: 'image/jpeg' })),
      },
    });
    const shownBy = (segment: Segment): Segment => ({ ...segment, thumbnailKey: thumbnailFor(thumbnails, segment.start, segment.end) });
    await this.ingest(
      task,
      [
        ...scenes.map((s): Segment => ({
          start: s.start,
          end: s.end,
          modality: 'visual',
          text: '',
          labels: s.labels,
          tentativeLabels: s.tentativeLabels,
          vector: frames.vectors.find((v) => v.timeSec === s.keyframeSec)?.vector,
          vectorModel,
        })),
        ...(conversation?.transcription ?? []).map((t): Segment => ({
          start: t.start,
          end: t.end,
          modality: 'conversation',
          text: t.value,
          labels: [],
        })),
        ...textValues.map((t): Segment => ({ start: t.start, end: t.end, modality: 'text_in_video', text: t.value, labels: [] })),
        ...logoValues.map((t): Segment => ({ start: t.start, end: t.end, modality: 'logo', text: t.value, labels: [] })),
      ].map(shownBy),
    );
  }

  /**
   * The HLS rendition the task asked for (`enable_video_stream`), stored under the video's folder
   * with a still: the playlist last, so a stored playlist never names a missing segment; a re-run
   * overwrites. It is a convenience, not part of the index: when it cannot be made the
   * stream says ERROR and the video is indexed all the same.
   */
  private async videoStream(
    task: TaskRecord,
    file: string,
    probed: MediaProbe,
    stills: readonly { timeSec: number; jpeg: Buffer }[],
    workDir: string,
    signal: AbortSignal,
  ): Promise<TaskHls> {
    const { blobs, clock, logger } = this.deps;
    const processing: TaskHls = { status: 'PROCESSING', videoKey: null, thumbnailKeys: [], updatedAt: clock.now() };
    if (!(await this.write(task, { changes: { hls: processing } }))) throw new LeaseLost(task.id);
    const prefix = hlsPrefix(task.videoId);
    try {
      const started = performance.now();
      const dir = join(workDir, 'hls');
      await mkdir(dir);
      const rendition = await makeHls(file, dir, { probe: probed, signal });
      // A keyframe from the frame pass: the middle one shows more of the video than its first frame.
      const still = stills[Math.floor(stills.length / 2)];
      if (still) await blobs.put(`${prefix}${HLS_THUMBNAIL}`, Readable.from([still.jpeg]), { signal });
      for (const name of rendition.files) await blobs.put(`${prefix}${name}`, createReadStream(join(dir, name)), { signal });
      logger.info(
        { taskId: task.id, plan: rendition.plan, segments: rendition.segments.length, ms: Math.round(performance.now() - started) },
        'video stream made',
      );
      return {
        status: 'COMPLETE',
        videoKey: `${prefix}${HLS_PLAYLIST}`,
        thumbnailKeys: still ? [`${prefix}${HLS_THUMBNAIL}`] : [],
        updatedAt: clock.now(),
      };
    } catch (error) {
      if (signal.aborted) throw error;
      logger.warn(
        { err: error, taskId: task.id, videoId: task.videoId },
        'the video stream could not be made; the video is indexed without it',
      );
      return { status: 'ERROR', videoKey: null, thumbnailKeys: [], updatedAt: clock.now() };
    }
  }

  /** The frame models the plan asks for; clip vectors (embed-service) are optional (recorded as skipped when absent). */
  private async frameModels(task: TaskRecord, plan: ExtractorPlan, report: ExtractorReport): Promise<FrameModels> {
    const { models } = this.deps;
    const chosen: FrameModels = {};
    if (plan.textInVideo || plan.logo) {
      chosen.textReader = await models.find('text_reader');
      if (chosen.textReader) {
        if (plan.textInVideo) report.ran.push('text_in_video');
      } else {
        report.skipped.push({ name: 'text_in_video', reason: this.missing('text_reader') });
      }
    }
    if (plan.visual) {
      chosen.objectDetector = await models.find('object_detector');
      chosen.faceDetector = await models.find('face_detector');
      if (chosen.objectDetector || chosen.faceDetector) report.ran.push('visual');
      else report.skipped.push({ name: 'visual', reason: this.missing('object_detector') });
      const clip = await VideoClipVectors.open(this.deps.clipVectors, () => rpcContext(task.orgId));
      if (clip instanceof VideoClipVectors) {
        chosen.embedder = clip;
        report.ran.push('clip');
      } else {
        report.skipped.push({ name: 'clip', reason: clip.skipped });
      }
    }
    return chosen;
  }

  /**
   * The vector model of the frames' vectors, or undefined: when embed-service failed during the
   * video its vectors are dropped (a video half embedded would rank by chance) and the clip
   * extractor is recorded as skipped with the reason; the rest of the video is indexed as usual.
   */
  private clipVectorsOutcome(
    task: TaskRecord,
    embedder: FrameModels['embedder'],
    frames: { vectors: unknown[] },
    report: ExtractorReport,
  ): string | undefined {
    if (!(embedder instanceof VideoClipVectors)) return undefined;
    if (embedder.failure === undefined) return frames.vectors.length > 0 ? embedder.model : undefined;
    this.deps.logger.warn({ taskId: task.id, reason: embedder.failure }, 'the video is indexed without clip vectors');
    frames.vectors.length = 0;
    report.ran.splice(report.ran.indexOf('clip'), 1);
    report.skipped.push({ name: 'clip', reason: embedder.failure });
    return undefined;
  }

  private missing(capability: string): string {
    const reasons = this.deps.models
      .status()
      .filter((s) => s.capability === capability)
      .map((s) => `${s.provider}: ${s.reason ?? 'not loaded'}`);
    return reasons.join('; ') || 'no provider is configured';
  }

  private async conversation(task: TaskRecord, file: string, probed: MediaProbe, workDir: string, signal: AbortSignal) {
    const { deps } = this;
    const source = task.transcription;
    const readTranscription = source
      ? source.kind === 'url'
        ? () => fetchText(source.url, 'transcription_url', { ...deps.fetchPolicy, maxBytes: deps.maxTranscriptionBytes }, signal)
        : () => readTranscriptionBlob(deps.blobs, source.blobKey, deps.maxTranscriptionBytes)
      : undefined;
    const recognizer = await deps.models.find('speech_recognizer');
    // The registry serves the first provider that loads: the loaded one is the one found.
    const name = deps.models.status().find((s) => s.capability === 'speech_recognizer' && s.state === 'loaded')?.provider ?? 'speech';
    return extractConversation({
      file,
      probe: probed,
      language: task.language,
      readTranscription,
      recognizer: recognizer && { name, instance: recognizer },
      recognizerMissing: this.missing('speech_recognizer'),
      workDir,
      signal,
    });
  }

  private async storeThumbnails(
    task: TaskRecord,
    frames: readonly { timeSec: number; jpeg: Buffer }[],
  ): Promise<{ time: number; key: string }[]> {
    const stored: { time: number; key: string }[] = [];
    for (const frame of frames) {
      const key = thumbnailKey(task.videoId, frame.timeSec);
      await this.deps.blobs.put(key, Readable.from([frame.jpeg]));
      stored.push({ time: frame.timeSec, key });
    }
    return stored;
  }

  private async ingest(task: TaskRecord, segments: Segment[]): Promise<void> {
    if (!this.deps.segments) return;
    await this.deps.segments.ingest(rpcContext(task.orgId), task.indexId, task.videoId, segments);
  }
}

function systemMetadata(task: TaskRecord, probed: MediaProbe): SystemMetadata {
  return {
    filename: task.filename,
    duration: Math.round(probed.durationSec * 1000) / 1000,
    fps: Math.round(probed.video.fps * 1000) / 1000,
    width: probed.video.width,
    height: probed.video.height,
    size: probed.sizeBytes,
  };
}
