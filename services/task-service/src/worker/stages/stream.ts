import { HLS_PLAYLIST, makeHls, type MediaProbe } from '@vus/media';
import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { TaskHls, TaskRecord } from '../../tasks/tasks';
import { videoBlobPrefix } from '../../video-blobs';
import type { PipelineDeps } from '../pipeline-deps';
import { LeaseLost, type TaskWriter } from '../task-writer';

/** The folder of a video's HLS rendition: under the video, so its deletion removes it. */
export function hlsPrefix(videoId: string): string {
  return `${videoBlobPrefix(videoId)}hls/`;
}

/** The still stored beside the playlist (the stream's `thumbnail_urls`). */
const HLS_THUMBNAIL = 'thumbnail.jpg';

/**
 * The HLS rendition the task asked for (`enable_video_stream`), stored under the video's folder:
 * the playlist last, so a stored playlist never names a missing segment; a re-run overwrites. It
 * is a convenience, not part of the index: when it cannot be made the stream says ERROR and the
 * video is indexed all the same. It needs nothing from the extractors, so it runs beside them
 * (streamStill adds the still once the frame pass has chosen its keyframes).
 */
export async function videoStream(
  deps: Pick<PipelineDeps, 'blobs' | 'clock' | 'logger'>,
  writer: TaskWriter,
  task: TaskRecord,
  file: string,
  probed: MediaProbe,
  workDir: string,
  signal: AbortSignal,
): Promise<TaskHls> {
  const { blobs, clock, logger } = deps;
  const processing: TaskHls = { status: 'PROCESSING', videoKey: null, thumbnailKeys: [], updatedAt: clock.now() };
  if (!(await writer.write(task, { changes: { hls: processing } }))) throw new LeaseLost(task.id);
  const prefix = hlsPrefix(task.videoId);
  try {
    const started = performance.now();
    const dir = join(workDir, 'hls');
    await mkdir(dir);
    const rendition = await makeHls(file, dir, { probe: probed, signal });
    for (const name of rendition.files) await blobs.put(`${prefix}${name}`, createReadStream(join(dir, name)), { signal });
    logger.info(
      { taskId: task.id, plan: rendition.plan, segments: rendition.segments.length, ms: Math.round(performance.now() - started) },
      'video stream made',
    );
    return { status: 'COMPLETE', videoKey: `${prefix}${HLS_PLAYLIST}`, thumbnailKeys: [], updatedAt: clock.now() };
  } catch (error) {
    if (signal.aborted) throw error;
    logger.warn(
      { err: error, taskId: task.id, videoId: task.videoId },
      'the video stream could not be made; the video is indexed without it',
    );
    return { status: 'ERROR', videoKey: null, thumbnailKeys: [], updatedAt: clock.now() };
  }
}

/**
 * The complete stream with its still, a keyframe of the frame pass (the middle one shows more of
 * the video than its first frame); a stream without one, or not complete, as it is.
 */
export async function streamStill(
  deps: Pick<PipelineDeps, 'blobs'>,
  task: TaskRecord,
  hls: TaskHls,
  stills: readonly { timeSec: number; jpeg: Buffer }[],
  signal: AbortSignal,
): Promise<TaskHls> {
  const still = stills[Math.floor(stills.length / 2)];
  if (hls.status !== 'COMPLETE' || !still) return hls;
  const key = `${hlsPrefix(task.videoId)}${HLS_THUMBNAIL}`;
  await deps.blobs.put(key, Readable.from([still.jpeg]), { signal });
  return { ...hls, thumbnailKeys: [key] };
}
