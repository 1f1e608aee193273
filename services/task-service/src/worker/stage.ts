import type { OutgoingContext } from '@vus/grpc';
import { inSpan, recordStage, timed } from '@vus/telemetry';
import type { TaskRecord } from '../tasks/tasks';

const RPC_TIMEOUT_MS = 30_000;

/** One stage of a task's indexing as a span of the upload's trace (its job's span is the parent). */
export function stage<T>(
  name: string,
  task: Pick<TaskRecord, 'id'>,
  run: () => Promise<T>,
  attributes: Record<string, string | number | string[]> = {},
): Promise<T> {
  const measured = () => timed((outcome, seconds) => recordStage(name, outcome, seconds), run);
  return inSpan(`stage ${name}`, { attributes: { 'vus.task.id': task.id, 'vus.stage': name, ...attributes } }, measured);
}

/** An RPC of the worker on an organization's behalf, with the worker's deadline. */
export function rpcContext(orgId: string): OutgoingContext {
  return { orgId, deadline: new Date(Date.now() + RPC_TIMEOUT_MS) };
}
