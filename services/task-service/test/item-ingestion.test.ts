import { errors } from '@vus/core';
import type { IndexClient } from '../src/index-client';
import { itemIngestion } from '../src/knowledge/ingestion';
import type { TaskService } from '../src/tasks/tasks';

const ORG = '6528dde58f9cd95a98cbd075';

/**
 * itemIngestion.removeTask over recording fakes of index-service and the task service: which calls
 * removing an item's task makes. The real calls are run in knowledge-items.int.test.ts.
 */
function recorded(status: string | undefined) {
  const calls: string[] = [];
  const index = {
    deleteVideo: async (_ctx: unknown, indexId: string, videoId: string) => calls.push(`DeleteVideo ${indexId}/${videoId}`),
  } as unknown as IndexClient;
  const tasks = {
    get: async (_orgId: string, id: string) => {
      if (!status) throw errors.notFound('Task', id);
      return { id, status, indexId: 'idx', videoId: 'vid' };
    },
    delete: async (_orgId: string, id: string) => calls.push(`delete task ${id}`),
  } as unknown as TaskService;
  return { calls, ingestion: itemIngestion({ index, tasks }) };
}

describe('itemIngestion.removeTask', () => {
  it.each([
    ['a ready task', 'ready', undefined, true, ['DeleteVideo idx/vid', 'delete task t1']],
    ['a ready task whose index went', 'ready', { videoGone: true }, true, ['delete task t1']],
    ['a failed task (no video)', 'failed', undefined, true, ['delete task t1']],
    ['a task still indexing', 'indexing', undefined, false, []],
    ['a task already gone', undefined, undefined, true, []],
  ])('%s', async (_name, status, options, removed, calls) => {
    const run = recorded(status);
    expect(await run.ingestion.removeTask(ORG, 't1', options)).toBe(removed);
    expect(run.calls).toEqual(calls);
  });
});
