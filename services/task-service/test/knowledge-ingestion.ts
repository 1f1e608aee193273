import { newId, type Clock } from '@vus/core';
import type { Database } from '@vus/db';
import type { ItemIngestion } from '../src/knowledge/knowledge-stores';
import { isTerminal } from '../src/tasks/status';
import { createTaskStore } from '../src/tasks/store';
import { createTaskService } from '../src/tasks/tasks';

/**
 * ItemIngestion for the store-level tests: real indexing tasks in task-service's own tables (an
 * item's status is read from them), index-service's side (indexes, videos) in memory. The real
 * one, over index-service and the worker, is tested in knowledge-items.int.test.ts.
 */
export function tasksOnlyIngestion(
  db: Database,
  clock: Clock,
): ItemIngestion & { indexes: Set<string>; removals: Array<{ taskId: string; videoGone: boolean }> } {
  const indexes = new Set<string>();
  // Each removeTask asked for, with whether the video is left to its index's deletion.
  const removals: Array<{ taskId: string; videoGone: boolean }> = [];
  const tasks = createTaskService({
    store: createTaskStore(db),
    indexes: { indexExists: async (_orgId, id) => indexes.has(id), videoExists: async () => false },
    clock,
    eventsWritten: () => undefined,
  });
  return {
    indexes,
    removals,
    async createIndex() {
      const id = newId(clock.now());
      indexes.add(id);
      return id;
    },
    async deleteIndex(_orgId, indexId) {
      indexes.delete(indexId);
    },
    async startTask(orgId, indexId, item) {
      const task = await tasks.create(orgId, {
        indexId,
        source: { kind: 'upload', blobKey: `test/${item.id}` },
        transcription: null,
        language: null,
        enableVideoStream: false,
        userMetadata: {},
        filename: item.asset.filename,
        idempotencyKey: null,
      });
      return task.id;
    },
    async removeTask(orgId, taskId, options) {
      removals.push({ taskId, videoGone: options?.videoGone ?? false });
      const task = await tasks.get(orgId, taskId);
      if (!isTerminal(task.status)) return false;
      await tasks.delete(orgId, taskId);
      return true;
    },
  };
}
