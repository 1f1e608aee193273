import { isApiError } from '@vus/core';
import { toMetadataValues, toTimestamp } from '@vus/grpc';
import { Readable } from 'node:stream';
import type { TaskHls, TaskRecord } from '../../tasks/tasks';
import { videoBlobPrefix } from '../../video-blobs';
import type { PipelineDeps } from '../pipeline-deps';
import { thumbnailFor, type Segment } from '../segments';
import { rpcContext, stage } from '../stage';
import type { ExtractedVideo } from './extract';
import { systemMetadata } from './inputs';
import { faceTracks } from '../extract/face-tracks';

/** The blob key of an indexed video's thumbnail: under the video, so its deletion removes it. */
export function thumbnailKey(videoId: string, timeSec: number): string {
  return `videos/${videoId}/thumbnails/${Math.round(timeSec * 1000)}.jpg`;
}

/** What indexing found, for the store stage. */
export type StoreInput = Omit<ExtractedVideo, 'file'> & { hls: TaskHls | undefined };

/** The video, its artifacts and its segments, written to index-service and search-service. */
export async function storeVideo(
  deps: Pick<PipelineDeps, 'index' | 'blobs' | 'segments'>,
  task: TaskRecord,
  { plan, probed, report, hls, conversation, textValues, logoValues, scenes, frames, vectorModel, facesTracked }: StoreInput,
): Promise<void> {
  const thumbnails = plan.thumbnails ? await stage('store thumbnails', task, () => storeThumbnails(deps, task, frames.thumbnails)) : [];
  const ctx = rpcContext(task.orgId);
  await stage('store video', task, () =>
    deps.index.createVideo(ctx, {
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
    }),
  );
  // Once the video exists, its artifacts (index-service) and its segments and face tracks
  // (search-service) are independent writes: made at once. Each is idempotent, so the retry of a
  // run where one failed writes them all again.
  const shownBy = (segment: Segment): Segment => ({ ...segment, thumbnailKey: thumbnailFor(thumbnails, segment.start, segment.end) });
  await Promise.all([
    stage('store artifacts', task, () =>
      deps.index.putVideoArtifacts(ctx, {
        index_id: task.indexId,
        video_id: task.videoId,
        artifacts: {
          transcription: conversation?.transcription ?? [],
          text_in_video: textValues,
          logo: logoValues,
          thumbnails: thumbnails.map((t) => ({ time: t.time, blob_key: t.key, content_type: 'image/jpeg' })),
        },
      }),
    ),
    ingest(
      deps,
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
    ),
    // Face tracks for entity search, only when faces were embedded (the face model ran): a video
    // without them is told from one with no face on screen, and an entity search names it.
    facesTracked && deps.segments?.ingestFaceTracks
      ? stage('store face tracks', task, () =>
          deps.segments!.ingestFaceTracks!(
            ctx,
            task.indexId,
            task.videoId,
            faceTracks(frames.faces, { step: frames.step, durationSec: probed.durationSec }),
          ),
        )
      : undefined,
  ]);
}

async function storeThumbnails(
  deps: Pick<PipelineDeps, 'blobs'>,
  task: TaskRecord,
  frames: readonly { timeSec: number; jpeg: Buffer }[],
): Promise<{ time: number; key: string }[]> {
  const stored: { time: number; key: string }[] = [];
  for (const frame of frames) {
    const key = thumbnailKey(task.videoId, frame.timeSec);
    await deps.blobs.put(key, Readable.from([frame.jpeg]));
    stored.push({ time: frame.timeSec, key });
  }
  return stored;
}

async function ingest(deps: Pick<PipelineDeps, 'segments'>, task: TaskRecord, segments: Segment[]): Promise<void> {
  if (!deps.segments) return;
  await stage('store segments', task, () => deps.segments!.ingest(rpcContext(task.orgId), task.indexId, task.videoId, segments));
}

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
