/**
 * Synchronous video embeddings (POST /embed-v2 with input_type video; API-CONTRACT §5.8): media
 * under about 10 minutes, embedded as an embed task embeds it (embedMediaFile), answered at once,
 * and metered as a task is: the seconds of video embedded (Embed - Video).
 */
import type { BlobStore } from '@vus/blob';
import { ApiError, newId, type Clock } from '@vus/core';
import type { FetchPolicy } from '@vus/fetch';
import type { ConceptEmbedder } from '@vus/models';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embedMediaFile, fetchMediaFile, type DurationLimit } from './media-embedding';
import { embeddingModel } from './model-names';
import { taskOptions, type TaskOptions, type TaskResult, type TaskSource } from './tasks';

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
}

export function createSyncVideoEmbedding(deps: SyncVideoDeps) {
  return {
    async embed(orgId: string, request: SyncVideoRequest, signal?: AbortSignal): Promise<SyncVideoEmbedding> {
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
        const at = deps.clock.now();
        await deps.usage.recordVideoSeconds(orgId, { key: `embed-video:${newId(at)}`, seconds: embedded.result.duration, at });
        return { modelName: model.name, options, result: embedded.result };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

export type SyncVideo = ReturnType<typeof createSyncVideoEmbedding>;
