/**
 * Asynchronous analysis on PostgreSQL: tasks and batches made through the domain (async.ts), run by
 * the job queue's runner one round at a time (runDue, so nothing depends on timing), with the
 * evidence read through real index-service and search-service, as the worker writes it.
 */
import { createIndexClient, createSearchClient, type IndexClient, type SearchClient } from '@vus/clients';
import { createLogger, isApiError, newId, systemClock, type Clock } from '@vus/core';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@vus/db/testing';
import { startIndexService, type RunningIndexService } from '@vus/index-service';
import type { JobRunner } from '@vus/jobs';
import { startSearchService, type RunningSearchService } from '@vus/search-service';
import { migrateService } from '@vus/service';
import { openWordNet } from '@vus/wordnet';
import { createAnalyzeService, type AnalyzeService } from '../src/analyze';

type Tail<F> = F extends (first: never, ...rest: infer R) => unknown ? R : never;
import { asyncAnalysisWithJobs, type AsyncAnalysis } from '../src/async';
import { createAnalyzeTaskStore } from '../src/async-store';
import type { TaskSpecInput } from '../src/async-spec';
import { serviceDirectory } from '../src/directory';
import { ExtractiveProvider } from '../src/extractive';
import { analyzeService } from '../src/main';
import { createGenerationStore } from '../src/store';
import { addGardenTourIndexes } from './fixtures';

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The system clock, moved forward by `advance` (a batch's 24 hours pass in a test). */
const movableClock = (): Clock & { advance(ms: number): void } => {
  let offset = 0;
  return { now: () => new Date(systemClock.now().getTime() + offset), advance: (ms) => (offset += ms) };
};

/** The code and param of what a call throws. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    if (!isApiError(error)) throw error;
    return `${error.code}${error.details?.param ? ` ${error.details.param}` : ''}`;
  }
}

describe('asynchronous analysis on PostgreSQL', () => {
  const dbs: ThrowawayDatabase[] = [];
  let indexService: RunningIndexService;
  let searchService: RunningSearchService;
  let index: IndexClient;
  let search: SearchClient;
  let db: ThrowawayDatabase;
  let tasks: AsyncAnalysis;
  let runner: JobRunner;
  let analyze: AnalyzeService;
  const clock = movableClock();
  const wordnet = openWordNet();
  const org = newId();
  const otherOrg = newId();
  const ctx = {
    orgId: org,
    get deadline() {
      return new Date(Date.now() + 60_000);
    },
  };
  let videoId: string;
  let searchOnlyVideoId: string;

  const general = (over: Partial<TaskSpecInput> = {}): TaskSpecInput => ({
    video_id: videoId,
    analysis_mode: '',
    prompt: 'Where is the bicycle?',
    max_tokens: 0,
    response_format_json: '',
    custom_id: '',
    model_name: '',
    ...over,
  });
  const segmentation = (over: Partial<TaskSpecInput> = {}): TaskSpecInput =>
    general({
      analysis_mode: 'time_based_metadata',
      prompt: '',
      response_format_json: JSON.stringify({
        type: 'segment_definitions',
        segment_definitions: [
          {
            id: 'scenes',
            description: 'A distinct scene',
            fields: [
              { name: 'summary', type: 'string', description: 'What happens in this scene' },
              { name: 'key_objects', type: 'array', description: 'Objects seen', items: { type: 'string' } },
              { name: 'highlight_at', type: 'timestamp', description: 'The moment', format: 'hh:mm:ss' },
            ],
          },
        ],
      }),
      ...over,
    });

  beforeAll(async () => {
    const [indexDb, searchDb] = [await createThrowawayDatabase(), await createThrowawayDatabase()];
    db = await createThrowawayDatabase();
    dbs.push(indexDb, searchDb, db);
    indexService = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'postgres', url: indexDb.url }, logger });
    searchService = await startSearchService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: searchDb.url },
      indexServiceAddress: indexService.address,
      logger,
    });
    index = createIndexClient(indexService.address);
    search = createSearchClient(searchService.address);
    await migrateService(db.db, analyzeService);
    analyze = createAnalyzeService({
      directory: serviceDirectory(index, search),
      store: createGenerationStore(db.db),
      provider: new ExtractiveProvider(wordnet),
      clock,
      logger,
    });
    ({ asyncAnalysis: tasks, runner } = asyncAnalysisWithJobs({ db: db.db, analyze, clock, logger }));
    ({ videoId, searchOnlyVideoId } = await addGardenTourIndexes({ index, search }, ctx));
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    wordnet.close();
    search?.close();
    index?.close();
    await searchService?.stop();
    await indexService?.stop();
    for (const d of dbs) await d.drop();
  });

  it('runs a general task from queued to ready, and meters it like /analyze', async () => {
    const created = await tasks.createTask(org, general({ custom_id: 'bike-1', temperature: 0.1, _temperature: 'temperature' }));
    expect(created.status).toBe('queued');
    expect((await tasks.task(org, created.id)).status).toBe('queued');
    await runner.runDue();
    const task = await tasks.task(org, created.id);
    expect(task).toMatchObject({ status: 'ready', finishReason: 'stop', videoDuration: 30, message: null });
    expect(task.data).toContain('bicycle is parked by the gate');
    expect(task.completedAt).toBeInstanceOf(Date);
    expect(task.spec).toMatchObject({ customId: 'bike-1', temperature: 0.1, analysisMode: 'general' });
    const { rows } = await db.db.query<{ payload: { kind: string; quantity: number } }>(
      `SELECT payload FROM outbox WHERE type = 'usage.recorded' AND payload->>'idempotency_key' LIKE $1 ORDER BY seq`,
      [`generation:${task.generationId}%`],
    );
    expect(rows.map((r) => [r.payload.kind, r.payload.quantity])).toEqual([
      ['output_tokens', task.outputTokens],
      ['media_seconds', 30],
    ]);
  });

  it('segments a video by its shots and fills each definition’s fields from the segment’s evidence', async () => {
    const created = await tasks.createTask(org, segmentation());
    await runner.runDue();
    const task = await tasks.task(org, created.id);
    expect(task.status).toBe('ready');
    const data = JSON.parse(task.data!) as { scenes: { start_time: number; end_time: number; metadata: Record<string, unknown> }[] };
    expect(data.scenes.map((s) => [s.start_time, s.end_time])).toEqual([
      [0, 15],
      [15, 30],
    ]);
    expect(data.scenes[1]!.metadata.highlight_at).toBe('00:00:15');
    expect(JSON.stringify(data.scenes[1]!.metadata)).toContain('bicycle');
    expect(JSON.stringify(data.scenes[0]!.metadata)).not.toContain('bicycle');
  });

  it('reads only the window asked, and meters only its seconds', async () => {
    const created = await tasks.createTask(
      org,
      segmentation({ start_time: 15, _start_time: 'start_time', end_time: 30, _end_time: 'end_time' }),
    );
    await runner.runDue();
    const task = await tasks.task(org, created.id);
    expect(JSON.parse(task.data!)).toMatchObject({ scenes: [{ start_time: 15, end_time: 30 }] });
    const { rows } = await db.db.query<{ payload: { quantity: number } }>(
      `SELECT payload FROM outbox WHERE payload->>'idempotency_key' = $1`,
      [`generation:${task.generationId}/video`],
    );
    expect(rows[0]?.payload.quantity).toBe(15);
  });

  it('fails a task whose video cannot be analyzed, saying why, without retrying', async () => {
    const noEngine = await tasks.createTask(org, general({ video_id: searchOnlyVideoId }));
    const pastEnd = await tasks.createTask(org, general({ start_time: 40, _start_time: 'start_time' }));
    const gone = await tasks.createTask(org, general({ video_id: newId() }));
    await runner.runDue();
    expect(await tasks.task(org, noEngine.id)).toMatchObject({ status: 'failed', data: null });
    expect((await tasks.task(org, noEngine.id)).message).toMatch(/no generative engine/);
    expect((await tasks.task(org, pastEnd.id)).message).toMatch(/start_time/);
    expect((await tasks.task(org, gone.id)).status).toBe('failed');
  });

  it('answers another organization’s and unknown ids as not found', async () => {
    const mine = await tasks.createTask(org, general());
    expect(await refusal(tasks.task(otherOrg, mine.id))).toBe('resource_not_exist');
    expect(await refusal(tasks.deleteTask(otherOrg, mine.id))).toBe('resource_not_exist');
    expect(await refusal(tasks.task(org, newId()))).toBe('resource_not_exist');
    expect((await tasks.listTasks(otherOrg, {}, {})).data).toEqual([]);
    await runner.runDue();
  });

  it('refuses to delete a task being processed; deletes it once ended, and a queued one never runs', async () => {
    const task = await tasks.createTask(org, general());
    await db.db.query(`UPDATE analyze_tasks SET status = 'processing' WHERE id = $1`, [task.id]);
    expect(await refusal(tasks.deleteTask(org, task.id))).toBe('parameter_invalid task_id');
    await db.db.query(`UPDATE analyze_tasks SET status = 'queued' WHERE id = $1`, [task.id]);
    await tasks.deleteTask(org, task.id);
    expect(await refusal(tasks.task(org, task.id))).toBe('resource_not_exist');
    expect(await runner.runDue()).toBe(0);
  });

  it('lists newest first with filters and pages', async () => {
    const all = await tasks.listTasks(org, {}, { page: 1, pageLimit: 50 });
    const times = all.data.map((t) => t.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const ready = await tasks.listTasks(org, { status: 'ready' }, {});
    expect(ready.data.every((t) => t.status === 'ready')).toBe(true);
    const segmented = await tasks.listTasks(org, { analysisMode: 'time_based_metadata' }, {});
    expect(segmented.pageInfo.total_results).toBe(2);
    const byVideo = await tasks.listTasks(org, { videoId: searchOnlyVideoId }, { page: 1, pageLimit: 1 });
    expect(byVideo.pageInfo).toMatchObject({ total_results: 1, limit_per_page: 1 });
  });

  it('runs a batch to completed, counting ready and failed items, results in request order', async () => {
    const { batch, tasks: created } = await tasks.createBatch(org, {
      modelName: 'pegasus1.5',
      analysisMode: 'general',
      items: [general({ custom_id: 'a' }), general({ custom_id: 'b', video_id: searchOnlyVideoId }), general({ prompt: 'What is shown?' })],
    });
    expect(batch).toMatchObject({
      status: 'pending',
      totalItems: 3,
      counts: { queued: 3, processing: 0, ready: 0, failed: 0, canceled: 0 },
    });
    expect(batch.expiresAt.getTime() - batch.createdAt.getTime()).toBe(24 * 3_600_000);
    await runner.runDue();
    const done = await tasks.batch(org, batch.id);
    expect(done).toMatchObject({ status: 'completed', counts: { queued: 0, processing: 0, ready: 2, failed: 1, canceled: 0 } });
    expect(done.endedAt).toBeInstanceOf(Date);
    const results = [];
    for await (const item of await tasks.batchResults(org, batch.id)) results.push([item.id, item.spec.customId, item.status]);
    expect(results).toEqual([
      [created[0]!.id, 'a', 'ready'],
      [created[1]!.id, 'b', 'failed'],
      [created[2]!.id, '', 'ready'],
    ]);
    await tasks.deleteBatch(org, batch.id);
    expect(await refusal(tasks.batch(org, batch.id))).toBe('resource_not_exist');
    expect(await refusal(tasks.task(org, created[0]!.id))).toBe('resource_not_exist');
  });

  it('refuses a bad batch as a whole, naming the request, and a batch over 1,000 requests', async () => {
    const before = (await tasks.listTasks(org, {}, {})).pageInfo.total_results;
    expect(
      await refusal(
        tasks.createBatch(org, { modelName: 'pegasus1.5', analysisMode: 'general', items: [general(), general({ prompt: '' })] }),
      ),
    ).toBe('parameter_not_provided requests[1].prompt');
    expect(
      await refusal(
        tasks.createBatch(org, {
          modelName: 'pegasus1.5',
          analysisMode: 'general',
          items: [general({ custom_id: 'x' }), general({ custom_id: 'x' })],
        }),
      ),
    ).toBe('parameter_invalid requests[1].custom_id');
    expect(
      await refusal(
        tasks.createBatch(org, { modelName: 'pegasus1.5', analysisMode: 'general', items: Array.from({ length: 1001 }, () => general()) }),
      ),
    ).toBe('parameter_invalid requests');
    expect((await tasks.listTasks(org, {}, {})).pageInfo.total_results).toBe(before);
  });

  it('cancels a batch: queued items canceled at once, never run; a canceled batch can be deleted', async () => {
    const { batch } = await tasks.createBatch(otherOrg, {
      modelName: 'pegasus1.5',
      analysisMode: 'general',
      items: [general(), general()],
    });
    expect(await refusal(tasks.deleteBatch(otherOrg, batch.id))).toBe('parameter_invalid batch_id');
    expect(await refusal(tasks.cancelBatch(org, batch.id))).toBe('resource_not_exist');
    const canceled = await tasks.cancelBatch(otherOrg, batch.id);
    expect(canceled).toMatchObject({ status: 'canceled', counts: { queued: 0, canceled: 2 } });
    expect(await runner.runDue()).toBe(0);
    expect(await refusal(tasks.cancelBatch(otherOrg, batch.id))).toBe('parameter_invalid batch_id');
    await tasks.deleteBatch(otherOrg, batch.id);
  });

  it('a batch being processed when canceled is canceling until its items end', async () => {
    const { batch, tasks: created } = await tasks.createBatch(otherOrg, {
      modelName: 'pegasus1.5',
      analysisMode: 'general',
      items: [general(), general()],
    });
    // A worker holds the first item (as a claim would leave it).
    await db.db.query(`UPDATE analyze_tasks SET status = 'processing' WHERE id = $1`, [created[0]!.id]);
    expect(await tasks.cancelBatch(otherOrg, batch.id)).toMatchObject({ status: 'canceling', counts: { processing: 1, canceled: 1 } });
    await db.db.query(`UPDATE analyze_tasks SET status = 'ready' WHERE id = $1`, [created[0]!.id]);
    // The next change to one of its items writes the batch's status: deleting the ready one.
    await tasks.deleteTask(otherOrg, created[0]!.id);
    expect((await tasks.batch(otherOrg, batch.id)).status).toBe('canceled');
  });

  it('expires a batch after 24 hours: queued items canceled, status expired', async () => {
    const { batch } = await tasks.createBatch(otherOrg, { modelName: 'pegasus1.5', analysisMode: 'general', items: [general()] });
    const store = createAnalyzeTaskStore(db.db);
    expect(await store.expireBatches(clock.now())).toBe(0);
    clock.advance(24 * 3_600_000 + 1000);
    expect(await store.expireBatches(clock.now())).toBe(1);
    const expired = await tasks.batch(otherOrg, batch.id);
    expect(expired).toMatchObject({ status: 'expired', counts: { canceled: 1 } });
    expect(await runner.runDue()).toBe(0);
  });

  it('takes turns between organizations: one organization’s backlog does not hold back another’s task', async () => {
    const started: string[] = [];
    const counting = {
      ...analyze,
      runTask: (orgId: string, ...rest: Tail<AnalyzeService['runTask']>) => (started.push(orgId), analyze.runTask(orgId, ...rest)),
    };
    const fair = asyncAnalysisWithJobs({ db: db.db, analyze: counting, clock, logger });
    const busy = newId();
    const patient = newId();
    for (let i = 0; i < 4; i++) await fair.asyncAnalysis.createTask(busy, general());
    await fair.asyncAnalysis.createTask(patient, general());
    await fair.runner.runDue();
    // Two slots: the first goes to the backlog's first task, the last free one never to an organization already running.
    expect(started).toHaveLength(5);
    expect(started.indexOf(patient)).toBe(1);
  });

  it('takes a batch of exactly 1,000 requests, and streams all of its results in order', async () => {
    const fourth = newId();
    const { batch, tasks: created } = await tasks.createBatch(fourth, {
      modelName: 'pegasus1.5',
      analysisMode: 'general',
      items: Array.from({ length: 1000 }, (_, i) => general({ custom_id: `item-${i}` })),
    });
    expect(batch.totalItems).toBe(1000);
    await tasks.cancelBatch(fourth, batch.id);
    const ids: string[] = [];
    for await (const item of await tasks.batchResults(fourth, batch.id)) ids.push(item.id);
    expect(ids).toEqual(created.map((t) => t.id));
    await tasks.deleteBatch(fourth, batch.id);
  });

  it('allows at most 5 batches that have not ended per organization', async () => {
    const third = newId();
    const make = () => tasks.createBatch(third, { modelName: 'pegasus1.5', analysisMode: 'general', items: [general()] });
    for (let i = 0; i < 5; i++) await make();
    expect(await refusal(make())).toBe('parameter_invalid requests');
    await runner.runDue();
    await make();
    await runner.runDue();
  });
});
