import { mediaProblemError, probe, validateForIndexing } from '@vus/media';
import type { TaskRecord } from '../../tasks/tasks';
import type { PipelineDeps } from '../pipeline-deps';
import { planExtractors } from '../plan';
import { stage } from '../stage';
import type { TaskWriter } from '../task-writer';
import { indexOf, localMedia, systemMetadata } from './inputs';

/** validating → pending: probe and the contract's limits; a problem fails the task. */
export async function validate(
  deps: Pick<PipelineDeps, 'index' | 'blobs'>,
  writer: TaskWriter,
  task: TaskRecord,
  workDir: string,
  signal: AbortSignal,
): Promise<TaskRecord> {
  const index = await indexOf(deps, task);
  const plan = planExtractors(index);
  const file = await localMedia(deps, task, workDir);
  const probed = await stage('probe', task, () => probe(file, { signal }));
  const problems = validateForIndexing(probed, { requireAudio: plan.requiresAudio });
  if (problems[0]) throw mediaProblemError(problems[0]);
  return writer.advance(task, 'pending', { system: systemMetadata(task, probed) });
}
