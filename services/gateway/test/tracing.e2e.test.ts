/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * One upload is one trace: the gateway's request span, task-service's CreateTask, the job that
 * indexes the task with its stages, the calls to index-service and search-service's ingest, and
 * the event consumers, each span the child of one in the same trace (across the event bus too).
 * Spans are recorded in memory (libs/telemetry/testing), as the Node SDK would export them.
 */
import { SpanKind } from '@opentelemetry/api';
import { recordSpans, type ReadableSpan, type RecordedSpans } from '@vus/telemetry/testing';
import { textScenesVideo, type GeneratedVideo } from '@vus/testing';
import request from 'supertest';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

let recorded: RecordedSpans;
let stack: IndexingStack;
let fixture: GeneratedVideo;
let key: string;
let taskId: string;
const api = () => request(stack.url);

beforeAll(async () => {
  recorded = recordSpans();
  [stack, fixture] = await Promise.all([startIndexingStack({ worker: true, database: 'pglite' }), textScenesVideo()]);
  ({ key } = await stack.newOrg());
  const index = await api()
    .post('/v1.3/indexes')
    .set('x-api-key', key)
    .send({ index_name: 'traced', models: [{ model_name: 'marengo3.0', model_options: ['visual', 'audio'] }] })
    .expect(201);
  const created = await api()
    .post('/v1.3/tasks')
    .set('x-api-key', key)
    .field('index_id', index.body._id as string)
    .field('enable_video_stream', 'false')
    .attach('video_file', fixture.path)
    .expect(200);
  taskId = created.body._id as string;
  for (;;) {
    const res = await api().get(`/v1.3/tasks/${taskId}`).set('x-api-key', key).expect(200);
    if (res.body.status === 'ready' || res.body.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  // The last status change's consumers run just after the task reads ready.
  await new Promise((r) => setTimeout(r, 500));
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await recorded?.stop();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

function uploadTrace(): ReadableSpan[] {
  const upload = recorded
    .spans()
    .find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /tasks' && s.attributes['http.response.status_code'] === 200);
  expect(upload).toBeDefined();
  return recorded.spans().filter((s) => s.spanContext().traceId === upload!.spanContext().traceId);
}

describe('an upload through the gateway', () => {
  it('is one trace from the request to the search index', () => {
    const spans = uploadTrace();
    const names = new Set(spans.map((s) => s.name));
    for (const name of [
      'POST /tasks',
      'vus.task.v1.TaskService/CreateTask',
      'vus.task.created process',
      'job index-task',
      'stage download',
      'stage probe',
      'stage extract frames',
      'stage extract conversation',
      'stage store',
      'vus.index.v1.IndexService/CreateVideo',
      'vus.search.v1.SearchService/IngestSegments',
    ]) {
      expect({ name, present: names.has(name) }).toEqual({ name, present: true });
    }
    // One claim downloads and probes the media once, for validate and index alike.
    expect(spans.filter((s) => s.name === 'stage download' || s.name === 'stage probe').map((s) => s.name)).toEqual([
      'stage download',
      'stage probe',
    ]);
    // Both sides of each internal call: the server span is the client span's child.
    const ingestServer = spans.find((s) => s.name === 'vus.search.v1.SearchService/IngestSegments' && s.kind === SpanKind.SERVER)!;
    const ingestClient = spans.find((s) => s.spanContext().spanId === parentOf(ingestServer))!;
    expect(ingestClient).toMatchObject({ kind: SpanKind.CLIENT, name: 'vus.search.v1.SearchService/IngestSegments' });
  });

  it('links every span to a parent in the same trace: one root, the request', () => {
    const spans = uploadTrace();
    const ids = new Set(spans.map((s) => s.spanContext().spanId));
    const roots = spans.filter((s) => !parentOf(s));
    expect(roots.map((s) => s.name)).toEqual(['POST /tasks']);
    expect(spans.filter((s) => parentOf(s) && !ids.has(parentOf(s)!)).map((s) => s.name)).toEqual([]);
  });

  it('crosses the event bus: a consumer span is the child of the producer span that wrote its event', () => {
    const spans = uploadTrace();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const consumers = spans.filter((s) => s.kind === SpanKind.CONSUMER);
    expect(consumers.map((s) => s.name)).toEqual(expect.arrayContaining(['vus.task.created process', 'vus.task.status-changed process']));
    for (const consumer of consumers) {
      expect(byId.get(parentOf(consumer)!)).toMatchObject({
        kind: SpanKind.PRODUCER,
        name: consumer.name.replace(/ process$/, ' publish'),
      });
    }
  });

  it('runs the worker stages inside the job of this task', () => {
    const spans = uploadTrace();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const job = spans.find((s) => s.name === 'job index-task')!;
    expect(job.attributes['vus.job.subject_id']).toBe(taskId);
    const isStage = (span: ReadableSpan | undefined) => span?.name.startsWith('stage ') === true;
    // A stage's own steps (store's "store video", …) are its children; the outermost stages are the job's.
    const outside = (span: ReadableSpan) => {
      let parent = byId.get(parentOf(span)!);
      while (isStage(parent)) parent = byId.get(parentOf(parent!)!);
      return parent?.spanContext().spanId;
    };
    const stages = spans.filter(isStage);
    expect(stages.map((s) => s.name)).toEqual(expect.arrayContaining(['stage store', 'stage store video']));
    expect(parentOf(stages.find((s) => s.name === 'stage store')!)).toBe(job.spanContext().spanId);
    for (const stage of stages) {
      expect({ stage: stage.name, inside: outside(stage) }).toEqual({ stage: stage.name, inside: job.spanContext().spanId });
      expect(stage.attributes['vus.task.id']).toBe(taskId);
    }
  });
});
