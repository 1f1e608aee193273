import { fromTimestamp } from '@vus/grpc';
import type { AnalyzeBatch } from '@vus/grpc/types/analyze/v1/AnalyzeBatch';
import type { AnalyzeBatchCreated } from '@vus/grpc/types/analyze/v1/AnalyzeBatchCreated';
import type { AnalyzeTask } from '@vus/grpc/types/analyze/v1/AnalyzeTask';
import type { AnalyzeTaskSpec } from '@vus/grpc/types/analyze/v1/AnalyzeTaskSpec';

/** Analysis tasks and batches as twelvelabs-js 1.3.4 reads them (AnalyzeTaskResponse, AnalyzeBatchStatusResponse, BatchResultItem). */

const iso = (ts: AnalyzeTask['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();
const present = <K extends string, V>(key: K, value: V | undefined | null) =>
  value === undefined || value === null ? {} : { [key]: value };

type Optional = 'temperature' | 'min_segment_duration' | 'max_segment_duration' | 'start_time' | 'end_time';

/** A proto3 `optional` field, only when it was set (its synthetic oneof names it). */
const set = (spec: AnalyzeTaskSpec, name: Optional) =>
  (spec as unknown as Record<string, unknown>)[`_${name}`] === name ? { [name]: spec[name] } : {};

/** The list shows the first 30 characters of a prompt (the reference's rule); a retrieve, all of it. */
const LISTED_PROMPT_CHARS = 30;

function requestParams(task: AnalyzeTask, listed: boolean) {
  const spec = task.spec!;
  const general = spec.analysis_mode === 'general';
  const prompt = listed ? spec.prompt.slice(0, LISTED_PROMPT_CHARS) : spec.prompt;
  return {
    analysis_mode: spec.analysis_mode,
    ...(general ? { prompt } : {}),
    ...(spec.response_format_json ? { response_format: JSON.parse(spec.response_format_json) as unknown } : {}),
    ...set(spec, 'temperature'),
    ...(spec.max_tokens ? { max_tokens: spec.max_tokens } : {}),
    ...set(spec, 'min_segment_duration'),
    ...set(spec, 'max_segment_duration'),
    ...set(spec, 'start_time'),
    ...set(spec, 'end_time'),
  };
}

/** The analysis result envelope (AnalyzeTaskResult), for ready tasks. */
const resultOf = (task: AnalyzeTask) =>
  task.result
    ? {
        generation_id: task.result.generation_id,
        data: task.result.data,
        finish_reason: task.result.finish_reason,
        usage: { output_tokens: task.result.usage?.output_tokens ?? 0 },
      }
    : undefined;

/** An item canceled with its batch: the task statuses have no `canceled`, so the task reads as failed, saying why. */
const CANCELED_MESSAGE = 'The batch was canceled or expired before this item was analyzed.';

/** GET /analyze/tasks/{task_id} (and each of a list, `listed`). */
export function presentTask(task: AnalyzeTask, listed = false) {
  const canceled = task.status === 'canceled';
  const status = canceled ? 'failed' : task.status;
  const ended = status === 'ready' || status === 'failed';
  const message = canceled ? CANCELED_MESSAGE : task.message;
  return {
    task_id: task.id,
    custom_id: task.spec?.custom_id || null,
    video_source: {
      type: 'asset_id',
      asset_id: task.spec?.video_id,
      ...(task.video_duration > 0 ? { system_metadata: { duration: task.video_duration } } : {}),
    },
    request_params: requestParams(task, listed),
    status,
    created_at: iso(task.created_at),
    ...(ended ? present('completed_at', iso(task.completed_at)) : {}),
    ...present('result', status === 'ready' ? resultOf(task) : undefined),
    ...(message ? { error: { message } } : {}),
  };
}

/** POST /analyze/tasks */
export const presentCreatedTask = (task: AnalyzeTask) => ({ task_id: task.id, status: task.status });

/** One line of GET /analyze/batches/{batch_id}/results (BatchResultItem). */
export function presentResultItem(task: AnalyzeTask) {
  return {
    task_id: task.id,
    custom_id: task.spec?.custom_id || null,
    status: task.status === 'pending' ? 'queued' : task.status,
    ...present('data', task.status === 'ready' ? resultOf(task) : undefined),
    ...(task.status === 'failed' ? { error: { message: task.message || 'The analysis failed.' } } : {}),
  };
}

/** A batch with its item counts (AnalyzeBatchStatusResponse); the ended-at time under its status's name. */
export function presentBatch(batch: AnalyzeBatch) {
  return {
    batch_id: batch.id,
    analysis_mode: batch.analysis_mode,
    model_name: batch.model_name,
    status: batch.status,
    total_items: batch.total_items,
    created_at: iso(batch.created_at),
    expires_at: iso(batch.expires_at),
    ...present('completed_at', iso(batch.completed_at)),
    ...present('canceled_at', iso(batch.canceled_at)),
    ...present('expired_at', iso(batch.expired_at)),
    queued_items: batch.queued_items,
    processing_items: batch.processing_items,
    ready_items: batch.ready_items,
    failed_items: batch.failed_items,
    canceled_items: batch.canceled_items,
  };
}

/** POST /analyze/batches (CreateAnalyzeBatchResponse). */
export function presentCreatedBatch(created: AnalyzeBatchCreated) {
  const batch = created.batch!;
  return {
    batch_id: batch.id,
    status: batch.status,
    total_items: batch.total_items,
    created_at: iso(batch.created_at),
    expires_at: iso(batch.expires_at),
    items: created.items.map((item) => ({ task_id: item.task_id, custom_id: item.custom_id || null })),
  };
}
