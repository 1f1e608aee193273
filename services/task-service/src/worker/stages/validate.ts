import { mediaProblemError, validateForIndexing } from '@vus/media';
import type { TaskRecord } from '../../tasks/tasks';
import type { TaskWriter } from '../task-writer';
import { systemMetadata, type VideoSource } from './inputs';

/** validating → pending: the probed media against the contract's limits; a problem fails the task. */
export async function validate(writer: TaskWriter, task: TaskRecord, { plan, probed }: VideoSource): Promise<TaskRecord> {
  const problems = validateForIndexing(probed, { requireAudio: plan.requiresAudio });
  if (problems[0]) throw mediaProblemError(problems[0]);
  return writer.advance(task, 'pending', { system: systemMetadata(task, probed) });
}
