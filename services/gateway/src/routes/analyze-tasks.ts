import { knownId, pageInfo } from '@vus/core';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { readQuery } from '../http/query';
import { presentCreatedTask, presentTask } from '../presenters/analyze-tasks';
import * as docs from './analyze-tasks.docs';
import { parseCreateTask, parseListTasks } from './analyze-tasks.schema';
import { configured, type RouteDeps } from './deps';

const taskIdParam = (raw: string | string[] | undefined) => knownId('Analysis task', raw);

/**
 * Asynchronous analysis tasks (v1.3, twelvelabs-js 1.3.4 `analyzeAsync.tasks`): analyze-service
 * owns them and runs each on its job queue; this is HTTP only. Created like POST /analyze (rate
 * category analyze) and metered like it when they run.
 */
export function analyzeTaskEndpoints({ clients, timeoutMs }: Pick<RouteDeps, 'clients' | 'timeoutMs'>): Endpoint[] {
  const analyze = () => configured(clients.analyze, 'generate');
  const availability = 'POST /analyze/tasks';
  return [
    {
      method: 'post',
      path: '/analyze/tasks',
      availability,
      rate: 'analyze',
      doc: docs.createTask,
      handle: async (req, res) => {
        const task = await analyze().createAnalyzeTask(outgoing(res, timeoutMs), { spec: parseCreateTask(req.body) });
        res.status(201).json(presentCreatedTask(task));
      },
    },
    {
      method: 'get',
      path: '/analyze/tasks',
      availability,
      doc: docs.listTasks,
      handle: async (req, res) => {
        const { request, byUrl } = parseListTasks(readQuery(req.originalUrl));
        // No task is made from a URL here (only indexed videos are analyzed): a filter by URL finds none.
        if (byUrl)
          return void res.json({
            data: [],
            page_info: pageInfo({ page: request.page as number, pageLimit: request.page_limit as number }, 0),
          });
        const page = await analyze().listAnalyzeTasks(outgoing(res, timeoutMs), request);
        res.json({ data: page.data.map((task) => presentTask(task, true)), page_info: page.page_info });
      },
    },
    {
      method: 'get',
      path: '/analyze/tasks/:taskId',
      availability,
      doc: docs.retrieveTask,
      handle: async (req, res) => {
        res.json(presentTask(await analyze().getAnalyzeTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId))));
      },
    },
    {
      method: 'delete',
      path: '/analyze/tasks/:taskId',
      availability,
      doc: docs.deleteTask,
      handle: async (req, res) => {
        await analyze().deleteAnalyzeTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId));
        res.status(204).end();
      },
    },
  ];
}
