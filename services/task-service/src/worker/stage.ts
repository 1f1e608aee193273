import type { OutgoingContext } from '@vus/grpc';
import { inSpan, recordStage, timed } from '@vus/telemetry';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TaskRecord } from '../tasks/tasks';

const RPC_TIMEOUT_MS = 30_000;

/** One finished stage of a run: its name, when it started (ms after the run began) and its wall seconds. */
export interface StageTiming {
  stage: string;
  startMs: number;
  seconds: number;
}

/** The stages of the run being recorded, when one is (see recordingStages). */
const recording = new AsyncLocalStorage<{ startedAt: number; stages: StageTiming[] }>();

/**
 * Runs `run` with every stage under it (however deep, however concurrent) recorded in the list it
 * is handed back with: a run's own account of where its time went, for its log line.
 */
export async function recordingStages<T>(run: () => Promise<T>): Promise<{ result: T; stages: StageTiming[]; seconds: number }> {
  const record = { startedAt: performance.now(), stages: [] as StageTiming[] };
  const result = await recording.run(record, run);
  return { result, stages: record.stages, seconds: (performance.now() - record.startedAt) / 1000 };
}

/** One stage of a task's indexing as a span of the upload's trace (its job's span is the parent). */
export function stage<T>(
  name: string,
  task: Pick<TaskRecord, 'id'>,
  run: () => Promise<T>,
  attributes: Record<string, string | number | string[]> = {},
): Promise<T> {
  const record = recording.getStore();
  const startedAt = performance.now();
  const measured = () =>
    timed((outcome, seconds) => {
      recordStage(name, outcome, seconds);
      record?.stages.push({ stage: name, startMs: Math.round(startedAt - record.startedAt), seconds });
    }, run);
  return inSpan(`stage ${name}`, { attributes: { 'vus.task.id': task.id, 'vus.stage': name, ...attributes } }, measured);
}

/** An RPC of the worker on an organization's behalf, with the worker's deadline. */
export function rpcContext(orgId: string): OutgoingContext {
  return { orgId, deadline: new Date(Date.now() + RPC_TIMEOUT_MS) };
}
