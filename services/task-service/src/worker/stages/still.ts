import { stillVideo } from '@vus/media';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { TaskRecord } from '../../tasks/tasks';
import type { PipelineDeps } from '../pipeline-deps';
import { stage } from '../stage';
import { LeaseLost, type TaskWriter } from '../task-writer';

/** Where an image task's still video is stored: the task's own media (it goes with the task or its video). */
export function stillVideoKey(taskId: string): string {
  return `uploads/${taskId}/still.mp4`;
}

/** The task's media is still to be made: an image task before its still video is stored. */
export function needsStill(task: Pick<TaskRecord, 'source' | 'mediaBlobKey'>): boolean {
  return task.source.kind === 'image' && task.mediaBlobKey === null;
}

/**
 * An image task (an image item's, issue 33), validating: the indexing pipeline reads videos only,
 * so the image becomes a short still video of it (libs/media stillVideo, its time limit), stored as
 * the task's media; validation goes on from there. Done again by a worker that takes the task over
 * (the blob is overwritten). An image ffmpeg cannot read fails the task (unsupported_file_type).
 */
export async function makeStill(
  deps: Pick<PipelineDeps, 'blobs'>,
  writer: TaskWriter,
  task: TaskRecord,
  workDir: string,
  signal: AbortSignal,
): Promise<TaskRecord> {
  if (task.source.kind !== 'image') throw new Error(`task ${task.id} has no image to make a still of`);
  const imageKey = task.source.blobKey;
  const image = join(workDir, 'image');
  const video = join(workDir, 'still.mp4');
  const key = stillVideoKey(task.id);
  await stage('still', task, async () => {
    await deps.blobs.download(imageKey, image);
    await stillVideo(image, video, { signal });
    await deps.blobs.put(key, createReadStream(video), { signal });
  });
  const written = await writer.write(task, { changes: { mediaBlobKey: key } });
  if (!written) throw new LeaseLost(task.id);
  return written;
}
