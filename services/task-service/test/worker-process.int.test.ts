/**
 * The worker-only process as the chart's indexing-worker Deployment runs it (`dist/worker/main.js`;
 * `npm test` builds first): it answers gRPC health checks on GRPC_BIND, and with KAFKA_BROKERS a
 * new task wakes it at once — its poll is set far beyond the test's time, so only the bus can.
 * task-service's API runs in this process, without a worker, publishing through the same broker.
 */
import { createLogger, newId } from '@vus/core';
import { KafkaEventBus } from '@vus/events';
import { startTestKafka, type TestKafka } from '@vus/events/testing';
import { checkHealth } from '@vus/grpc';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { textScenesVideo } from '@vus/testing';
import { startTaskStack, type TaskStack, type WorkerProcess } from './stack';

const logger = createLogger({ service: 'worker-process-test', level: 'silent' });
// Kafka group joins take seconds on the mock broker (the worker's, and task-service's subscribers).
jest.setTimeout(120_000);

let kafka: TestKafka;
let bus: KafkaEventBus;
let stack: TaskStack;

beforeAll(async () => {
  kafka = await startTestKafka(process.env.KAFKA_BROKERS);
  bus = new KafkaEventBus({ brokers: kafka.brokers, clientId: 'worker-process-test', logger, sessionTimeoutMs: 6000, maxWaitTimeMs: 200 });
  // The API only (as with WORKER_ENABLED=false): indexing happens in the child process. The bus is
  // task-service's alone, and with no blob store it subscribes to no video.deleted (one group join less).
  stack = await startTaskStack({ name: 'worker-process', database: 'postgres', taskService: { bus, blobs: undefined } });
});

afterAll(async () => {
  await stack?.stop();
  await bus?.close();
  await kafka?.stop();
});

/** Starts the worker process; resolves with its health address once its log says it listens. */
function startWorker(): Promise<WorkerProcess & { healthAddress: string }> {
  const worker = stack.spawnWorker({
    KAFKA_BROKERS: kafka.brokers.join(','),
    GRPC_BIND: '127.0.0.1:0',
    // Far beyond this test: a task found in time was found because task.created woke the worker.
    WORKER_POLL_MS: '3600000',
  });
  return new Promise((resolve, reject) => {
    // After the stack's own listeners: output() already holds the chunk.
    const onData = () => {
      const listening = /"address":"([^"]+)"[^\n]*"msg":"gRPC server listening"/.exec(worker.output());
      if (listening) resolve({ ...worker, healthAddress: listening[1]! });
    };
    worker.child.stdout!.on('data', onData);
    worker.child.stderr!.on('data', onData);
    worker.child.once('exit', (code) => reject(new Error(`worker exited (${code}):\n${worker.output()}`)));
  });
}

it('answers health checks, and a new task published on Kafka wakes it to index', async () => {
  const started = await startWorker();
  expect(await checkHealth(started.healthAddress, '')).toBe(true);

  const org = newId();
  const indexId = await stack.createIndex(org, ['visual']);
  const key = await stack.upload((await textScenesVideo()).path);
  const task = await stack.rpc<Task>(org, (md, opts, cb) =>
    stack.tasks.CreateTask({ index_id: indexId, video_blob_key: key, filename: 'scenes.mp4' }, md, opts, cb),
  );

  const { status } = await stack.waitForTask(org, task.id, { timeoutMs: 90_000, diagnostics: started.output });
  expect([status, started.output()]).toEqual(['ready', started.output()]);

  // SIGTERM: a clean stop (health server, worker, bus, database).
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  expect(await exited).toBe(0);
});
