import { ApiError, isApiError } from '@vus/core';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import { probe, type MediaProbe } from '@vus/media';
import { join } from 'node:path';
import type { SystemMetadata, TaskRecord } from '../../tasks/tasks';
import type { PipelineDeps } from '../pipeline-deps';
import { planExtractors, type ExtractorPlan } from '../plan';
import { rpcContext, stage } from '../stage';

/** What the validate and index stages start from: the task's index (its extractors) and its media file, probed. */
export interface VideoSource {
  /** The media file in the run's work folder. */
  file: string;
  plan: ExtractorPlan;
  probed: MediaProbe;
}

/**
 * The task's index (which extractors it asks for) and its media, downloaded into the run's work
 * folder and probed. One claim makes it once for validate and index (TaskPipeline.run): the media
 * cannot change between them (its blob key is fixed once the task is validating).
 */
export async function videoSource(
  deps: Pick<PipelineDeps, 'index' | 'blobs'>,
  task: TaskRecord,
  workDir: string,
  signal: AbortSignal,
): Promise<VideoSource> {
  const plan = planExtractors(await indexOf(deps, task));
  const file = await localMedia(deps, task, workDir);
  const probed = await stage('probe', task, () => probe(file, { signal }));
  return { file, plan, probed };
}

export async function indexOf(deps: Pick<PipelineDeps, 'index'>, task: TaskRecord): Promise<Index> {
  try {
    return await deps.index.getIndex(rpcContext(task.orgId), task.indexId);
  } catch (error) {
    if (isApiError(error) && error.code === 'resource_not_exist') {
      throw new ApiError('resource_not_exist', `The index ${task.indexId} no longer exists; the video was not indexed.`);
    }
    throw error;
  }
}

/** The task's stored media, downloaded into the run's work folder. */
export async function localMedia(deps: Pick<PipelineDeps, 'blobs'>, task: TaskRecord, workDir: string): Promise<string> {
  if (!task.mediaBlobKey) throw new Error(`task ${task.id} has no stored media`);
  const path = join(workDir, 'media');
  const blobKey = task.mediaBlobKey;
  await stage('download', task, () => deps.blobs.download(blobKey, path));
  return path;
}

/** The video's system metadata as probed (rounded to the millisecond and the thousandth of a frame). */
export function systemMetadata(task: TaskRecord, probed: MediaProbe): SystemMetadata {
  return {
    filename: task.filename,
    duration: Math.round(probed.durationSec * 1000) / 1000,
    fps: Math.round(probed.video.fps * 1000) / 1000,
    width: probed.video.width,
    height: probed.video.height,
    size: probed.sizeBytes,
  };
}
