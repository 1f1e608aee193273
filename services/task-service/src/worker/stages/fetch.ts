import { openUrl } from '@vus/fetch';
import { INDEX_TASK_JOB } from '../../tasks/leases';
import type { TaskRecord } from '../../tasks/tasks';
import type { PipelineDeps } from '../pipeline-deps';
import { stage } from '../stage';
import type { TaskWriter } from '../task-writer';

/** Where a fetched video_url is stored. */
export function fetchedMediaKey(taskId: string): string {
  return `uploads/${taskId}/fetched`;
}

/**
 * uploading → validating: the URL's bytes go to the blob store under the SSRF rules (and
 * libs/fetch's bounds: idle time, a minimum rate, the whole download's time), and the task's
 * index-task job is queued with the status (nothing when it exists: a task fetched in its index stage).
 */
export async function fetchSource(
  deps: Pick<PipelineDeps, 'blobs' | 'fetchPolicy'>,
  writer: TaskWriter,
  task: TaskRecord,
  signal: AbortSignal,
): Promise<TaskRecord> {
  if (task.source.kind !== 'url') throw new Error(`task ${task.id} is uploading without a URL`);
  const key = fetchedMediaKey(task.id);
  const source = task.source;
  await stage('fetch', task, async () => {
    const body = await openUrl(source.url, 'video_url', deps.fetchPolicy, signal);
    await deps.blobs.put(key, body, { maxBytes: deps.fetchPolicy.maxBytes, signal });
  });
  return writer.advance(task, 'validating', { mediaBlobKey: key }, [], INDEX_TASK_JOB);
}
