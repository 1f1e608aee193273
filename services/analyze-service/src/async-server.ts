/** gRPC handlers of asynchronous analysis: requests to the domain (async.ts), records to messages. */
import type * as grpc from '@grpc/grpc-js';
import { knownId, type Logger } from '@vus/core';
import { implement, implementServerStream, requireOrg, toTimestamp } from '@vus/grpc';
import type { AnalyzeBatch__Input } from '@vus/grpc/types/analyze/v1/AnalyzeBatch';
import type { AnalyzeBatchRef } from '@vus/grpc/types/analyze/v1/AnalyzeBatchRef';
import type { AnalyzeServiceHandlers } from '@vus/grpc/types/analyze/v1/AnalyzeService';
import type { AnalyzeTask__Input } from '@vus/grpc/types/analyze/v1/AnalyzeTask';
import type { AnalyzeTaskSpec, AnalyzeTaskSpec__Input } from '@vus/grpc/types/analyze/v1/AnalyzeTaskSpec';
import type { AsyncAnalysis } from './async';
import type { TaskSpecInput } from './async-spec';
import type { BatchRecord, TaskRecord } from './async-store';

const taskId = (raw: string) => knownId('Analysis task', raw);
const batchId = (raw: string) => knownId('Batch', raw);

/** A spec as it arrives (proto3 optionals: a `_name` oneof says a value is set). */
const specInput = (spec: AnalyzeTaskSpec | null): TaskSpecInput =>
  spec ?? { video_id: '', analysis_mode: '', prompt: '', max_tokens: 0, response_format_json: '', custom_id: '', model_name: '' };

/** The checked spec, as the gateway shows it back (request_params). */
function specMessage(task: TaskRecord): AnalyzeTaskSpec__Input {
  const s = task.spec;
  return {
    video_id: s.videoId,
    analysis_mode: s.analysisMode,
    prompt: s.prompt,
    max_tokens: s.maxTokens,
    response_format_json: s.responseFormat ? JSON.stringify(s.responseFormat) : '',
    custom_id: s.customId,
    model_name: s.modelName,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.minSegmentDuration !== undefined ? { min_segment_duration: s.minSegmentDuration } : {}),
    ...(s.maxSegmentDuration !== undefined ? { max_segment_duration: s.maxSegmentDuration } : {}),
    ...(s.startTime !== undefined ? { start_time: s.startTime } : {}),
    ...(s.endTime !== undefined ? { end_time: s.endTime } : {}),
  };
}

export function taskMessage(task: TaskRecord): AnalyzeTask__Input {
  return {
    id: task.id,
    status: task.status,
    spec: specMessage(task),
    created_at: toTimestamp(task.createdAt),
    completed_at: task.completedAt ? toTimestamp(task.completedAt) : null,
    result:
      task.status === 'ready'
        ? {
            generation_id: task.generationId ?? '',
            data: task.data ?? '',
            finish_reason: task.finishReason ?? 'stop',
            usage: { output_tokens: task.outputTokens ?? 0 },
          }
        : null,
    message: task.message ?? '',
    video_duration: task.videoDuration ?? 0,
    batch_id: task.batchId ?? '',
  };
}

export function batchMessage(batch: BatchRecord): AnalyzeBatch__Input {
  const ended = batch.endedAt ? toTimestamp(batch.endedAt) : null;
  return {
    id: batch.id,
    analysis_mode: batch.analysisMode,
    model_name: batch.modelName,
    status: batch.status,
    total_items: batch.totalItems,
    queued_items: batch.counts.queued,
    processing_items: batch.counts.processing,
    ready_items: batch.counts.ready,
    failed_items: batch.counts.failed,
    canceled_items: batch.counts.canceled,
    created_at: toTimestamp(batch.createdAt),
    expires_at: toTimestamp(batch.expiresAt),
    completed_at: batch.status === 'completed' ? ended : null,
    canceled_at: batch.status === 'canceled' ? ended : null,
    expired_at: batch.status === 'expired' ? ended : null,
  };
}

export function asyncAnalysisImplementation(tasks: AsyncAnalysis, logger: Logger): grpc.UntypedServiceImplementation {
  const unary = implement<AnalyzeServiceHandlers>(
    {
      async CreateAnalyzeTask(request, ctx) {
        return taskMessage(await tasks.createTask(requireOrg(ctx), specInput(request.spec)));
      },
      async GetAnalyzeTask(request, ctx) {
        return taskMessage(await tasks.task(requireOrg(ctx), taskId(request.id)));
      },
      async ListAnalyzeTasks(request, ctx) {
        const filter = { status: request.status, videoId: request.video_id, analysisMode: request.analysis_mode };
        const page = await tasks.listTasks(requireOrg(ctx), filter, { page: request.page, pageLimit: request.page_limit });
        return { data: page.data.map(taskMessage), page_info: page.pageInfo };
      },
      async DeleteAnalyzeTask(request, ctx) {
        await tasks.deleteTask(requireOrg(ctx), taskId(request.id));
        return {};
      },
      async CreateAnalyzeBatch(request, ctx) {
        const { batch, tasks: created } = await tasks.createBatch(requireOrg(ctx), {
          modelName: request.model_name,
          analysisMode: request.analysis_mode,
          items: request.items.map(specInput),
        });
        return { batch: batchMessage(batch), items: created.map((t) => ({ task_id: t.id, custom_id: t.spec.customId })) };
      },
      async GetAnalyzeBatch(request, ctx) {
        return batchMessage(await tasks.batch(requireOrg(ctx), batchId(request.id)));
      },
      async ListAnalyzeBatches(request, ctx) {
        const filter = { statuses: request.statuses, modes: request.analysis_modes };
        const page = await tasks.listBatches(requireOrg(ctx), filter, { page: request.page, pageLimit: request.page_limit });
        return { data: page.data.map(batchMessage), page_info: page.pageInfo };
      },
      async DeleteAnalyzeBatch(request, ctx) {
        await tasks.deleteBatch(requireOrg(ctx), batchId(request.id));
        return {};
      },
      async CancelAnalyzeBatch(request, ctx) {
        return batchMessage(await tasks.cancelBatch(requireOrg(ctx), batchId(request.id)));
      },
    },
    logger,
  );
  const results = implementServerStream(async function* (request: AnalyzeBatchRef, ctx) {
    for await (const task of await tasks.batchResults(requireOrg(ctx), batchId(request.id))) yield taskMessage(task);
  }, logger);
  return { ...unary, ListAnalyzeBatchResults: results };
}
