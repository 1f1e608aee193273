import { JOBS_MIGRATIONS } from '@vus/jobs';
import { defineService, runService, startService, type KitOptions, type RunningService } from '@vus/service';
import { join } from 'node:path';
import { assetParts } from './assets/start';
import { entityParts } from './entities/start';
import { knowledgeParts } from './knowledge/start';
import { taskEnvShape, taskOptionsFromEnv, type TaskServiceOptions } from './env';
import { createIndexClient, indexDirectory } from './index-client';
import { taskServiceImplementation } from './server';
import { taskHandlers } from './tasks/rpc';
import { createTaskStore } from './tasks/store';
import { createTaskService } from './tasks/tasks';
import { videoBlobConsumers } from './video-blobs';
import { webhookParts } from './webhooks/start';
import { indexingWorkerJob, type RunningWorker } from './worker/start';
export { parseAllowList } from '@vus/fetch';
export { mediaMeter, workerEnvShape, type MediaMeterHandle } from './worker/config';

/** Indexing tasks, uploads, webhooks; the indexing worker when configured. */
export const taskService = defineService({
  name: 'task-service',
  migrations: join(__dirname, '..', 'migrations'),
  libraryMigrations: [JOBS_MIGRATIONS],
  outbox: true,
  consumes: true,
  env: taskEnvShape,
  fromEnv: taskOptionsFromEnv,
  async build({ db, bus, clock, logger, eventsWritten, onStop }, options: TaskServiceOptions) {
    const index = createIndexClient(options.indexServiceAddress);
    onStop(() => index.close());
    const { blobs } = options;
    const tasks = createTaskService({ store: createTaskStore(db), indexes: indexDirectory(index), blobs, clock, eventsWritten });
    const webhooks = webhookParts({ db, clock, logger, options: options.webhooks });
    const knowledge = knowledgeParts({ db, clock, tasks, index });
    const assets = assetParts({ db, clock, logger, tasks, index, items: knowledge.assetItems, blobs, fetch: options.worker?.fetch });
    const handlers = {
      tasks: taskHandlers(tasks, clock),
      webhooks: webhooks.handlers,
      assets: assets.handlers,
      entities: entityParts({ db, clock, logger, options }).handlers,
      ...knowledge.handlers,
    };
    const worker = indexingWorkerJob(db, options.worker, options.indexServiceAddress, { logger, bus, clock, eventsWritten });
    return {
      implementation: taskServiceImplementation(handlers, logger),
      consumers: [webhooks.consumer, ...videoBlobConsumers({ db, blobs, logger })],
      withoutBus: "no event bus: no webhook deliveries are planned, and deleted videos' media files stay in the blob store",
      jobs: [...webhooks.jobs, ...assets.jobs, ...(worker ? [worker.job] : [])],
      extra: () => ({ worker: worker?.running() }),
    };
  },
});

export type { TaskServiceOptions } from './env';
export type RunningTaskService = RunningService<{ worker: RunningWorker | undefined }>;
export const startTaskService = (options: KitOptions & TaskServiceOptions): Promise<RunningTaskService> =>
  startService(taskService, options);

if (require.main === module) runService(taskService);
