/**
 * Synchronous video embeddings (POST /embed-v2 with input_type video; API-CONTRACT §5.8): media
 * under about 10 minutes, embedded as an embed task embeds it (embedMediaFile), answered at once,
 * and metered as a task is: the seconds of video embedded (Embed - Video).
 */
import type { BlobStore } from '@vus/blob';
import { ApiError, KeyedGate, newId, type Clock } from '@vus/core';
import type { FetchPolicy } from '@vus/fetch';
import type { ConceptEmbedder } from '@vus/models';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embedMediaFile, fetchMediaFile, type DurationLimit } from './media-embedding';
import { embeddingModel } from './model-names';
import { taskOptions, type TaskOptions, type TaskResult, type TaskSource } from './tasks';

/**
 * Synchronous video embeddings one organization runs at once: each holds ffmpeg and the image
 * models for minutes, so one caller must not take every core; more wait in an embed task instead.
 */
export const SYNC_VIDEOS_PER_ORGANIZATION = 2;

/** The real API takes media under about 10 minutes synchronously (async: up to 4 hours). */
export const SYNC_VIDEO_LIMIT: DurationLimit = {
  maxSec: 600,
  of: 'range',
  takes: 'synchronous video embeddings',
  use: 'Use an embed task (POST /embed-v2/tasks) for longer video.',
};

export interface SyncVideoRequest {
  modelName: string;
  source: TaskSource;
  startSec?: number;
  endSec?: number;
  clipLength?: number;
  /** clip and/or asset; empty: both (as /embed-v2/tasks). */
  scopes: readonly string[];
  /** visual, audio, transcription; empty: visual and audio. */
  embeddingOptions: readonly string[];
  /** separate_embedding and/or fused_embedding; empty: separate. */
  embeddingTypes?: readonly string[];
}

export interface SyncVideoEmbedding {
  modelName: string;
  options: TaskOptions;
  result: TaskResult;
}

/** What the domain needs stored: the usage of one embedding, written once per key. */
export interface VideoUsageStore {
  recordVideoSeconds(orgId: string, usage: { key: string; seconds: number; at: Date }): Promise<void>;
}

export interface SyncVideoDeps {
  embedder: ConceptEmbedder;
  /** Where the gateway put inline media (and assets are); absent: URLs only. */
  blobs?: BlobStore | undefined;
  fetchPolicy: FetchPolicy;
  usage: VideoUsageStore;
  clock: Clock;
  /** Default SYNC_VIDEOS_PER_ORGANIZATION. */
  perOrganization?: number;
}

export function createSyncVideoEmbedding(deps: SyncVideoDeps) {
  const gate = new KeyedGate(
    { running: deps.perOrganization ?? SYNC_VIDEOS_PER_ORGANIZATION, waiting: 0 },
    (_orgId, load) =>
      new ApiError(
        'too_many_requests',
        `This organization already has ${load.running} synchronous video embeddings running, the most it may run at once. ` +
          'Wait for one to finish, or use an embed task (POST /embed-v2/tasks).',
      ),
  );
  return {
    /** Embeds a video (refused while the organization runs as many as it may); `signal` (the caller left, its deadline passed) stops the work. */
    embed(orgId: string, request: SyncVideoRequest, signal?: AbortSignal): Promise<SyncVideoEmbedding> {
      return gate.run(orgId, () => embedVideo(deps, orgId, request, signal), signal);
    },
  };
}

async function embedVideo(
  deps: SyncVideoDeps,
  orgId: string,
  request: SyncVideoRequest,
  signal?: AbortSignal,
): Promise<SyncVideoEmbedding> {
  const model = embeddingModel(request.modelName);
  if (!request.source.url && !request.source.blobKey)
    throw new ApiError('parameter_not_provided', 'Provide the video by url, base64_string or asset_id.', {
      param: 'video.media_source',
    });
  const options = taskOptions({
    inputType: 'video',
    embeddingOptions: request.embeddingOptions,
    embeddingTypes: request.embeddingTypes ?? [],
    scopes: request.scopes.length > 0 ? request.scopes : ['clip', 'asset'],
    ...(request.startSec === undefined ? {} : { startSec: request.startSec }),
    ...(request.endSec === undefined ? {} : { endSec: request.endSec }),
    ...(request.clipLength === undefined ? {} : { clipLength: request.clipLength }),
  });
  const dir = await mkdtemp(join(tmpdir(), 'vus-embed-video-'));
  try {
    const file = join(dir, 'media');
    await fetchMediaFile(request.source, file, deps, signal);
    const embedded = await embedMediaFile(file, { ...options, embeddingOptions: options.embeddingOptions ?? [] }, model.dimensions, {
      embedder: deps.embedder,
      dir,
      signal,
      limit: SYNC_VIDEO_LIMIT,
    });
    if ('problem' in embedded)
      throw new ApiError(embedded.problem.code, embedded.problem.message, {
        param: embedded.problem.code === 'parameter_invalid' ? 'video.start_sec' : 'video.media_source',
      });
    signal?.throwIfAborted();
    const at = deps.clock.now();
    await deps.usage.recordVideoSeconds(orgId, { key: `embed-video:${newId(at)}`, seconds: embedded.result.duration, at });
    return { modelName: model.name, options, result: embedded.result };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type SyncVideo = ReturnType<typeof createSyncVideoEmbedding>;
