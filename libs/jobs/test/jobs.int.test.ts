import { createLogger, systemClock } from '@vus/core';
import { migrate } from '@vus/db';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import {
  cancelJob,
  createJobStore,
  enqueueJob,
  JOBS_MIGRATIONS,
  JobRunner,
  leaseHeldSql,
  type ClaimedJob,
  type JobKind,
  type JobOutcome,
  type JobStore,
} from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });
const LEASE_MS = 10_000;
const RETRY = { baseMs: 1000, maxMs: 10_000 };

/** Polls `condition` until it holds; fails naming what it waited for. Behaviour, not wall-clock. */
async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A job kind whose runs wait until the test lets them end, recording what ran. */
class HeldKind implements JobKind {
  readonly retry = RETRY;
  readonly maxAttempts = 3;
  readonly started: ClaimedJob[] = [];
  readonly aborted: string[] = [];
  private readonly release = new Map<string, (outcome: JobOutcome) => void>();

  run(job: ClaimedJob, context: { signal: AbortSignal }): Promise<JobOutcome> {
    this.started.push(job);
    return new Promise((resolve) => {
      this.release.set(job.subjectId, resolve);
      context.signal.addEventListener('abort', () => {
        this.aborted.push(job.subjectId);
        resolve({ kind: 'lost' });
      });
    });
  }

  startedSubjects(): string[] {
    return this.started.map((j) => j.subjectId);
  }

  end(subjectId: string, outcome: JobOutcome = { kind: 'succeeded' }): void {
    const resolve = this.release.get(subjectId);
    if (!resolve) throw new Error(`${subjectId} is not running`);
    this.release.delete(subjectId);
    resolve(outcome);
  }
}

describe.each(DATABASE_KINDS)('job queue on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let store: JobStore;
  const t0 = new Date('2026-03-01T10:00:00Z');
  const at = (ms: number) => new Date(t0.getTime() + ms);

  const enqueue = (subjectId: string, orgId: string, runAt = t0) => enqueueJob(database.db, { kind: 'work', subjectId, orgId, runAt });
  const stateOf = async (subjectId: string) => (await store.get('work', subjectId))?.state;

  beforeAll(async () => {
    database = await create();
    await migrate(database.db, JOBS_MIGRATIONS);
    store = createJobStore(database.db);
  });
  afterAll(() => database.drop());
  beforeEach(() => database.db.query('TRUNCATE jobs'));

  describe('store', () => {
    it('queues one job per subject, claims it once, and takes it over after its lease expires', async () => {
      expect(await enqueue('s1', 'org-a')).toBe(true);
      expect(await enqueue('s1', 'org-a')).toBe(false);
      const first = await store.claim('w1', ['work'], t0, LEASE_MS);
      expect(first).toMatchObject({ subjectId: 's1', orgId: 'org-a', state: 'running', leaseOwner: 'w1', attempts: 1 });
      expect(await store.claim('w2', ['work'], at(1000), LEASE_MS)).toBeUndefined();
      // Renewed at 5 s: held until 15 s.
      expect(await store.renew(first!.id, 'w1', at(5000), LEASE_MS)).toBe(true);
      expect(await store.claim('w2', ['work'], at(14_000), LEASE_MS)).toBeUndefined();
      const second = await store.claim('w2', ['work'], at(15_001), LEASE_MS);
      expect(second).toMatchObject({ id: first!.id, leaseOwner: 'w2', attempts: 2 });
      // The first worker lost it: its renewal and its end are refused.
      expect(await store.renew(first!.id, 'w1', at(15_002), LEASE_MS)).toBe(false);
      expect(await store.finish(first!.id, 'w1', at(15_002), { state: 'succeeded' })).toBe(false);
      expect(await store.finish(first!.id, 'w2', at(15_003), { state: 'succeeded' })).toBe(true);
      expect(await stateOf('s1')).toBe('succeeded');
      expect(await store.claim('w3', ['work'], at(60_000), LEASE_MS)).toBeUndefined();
    });

    it('claims only kinds asked for, only due jobs, and a requeued job not before its time', async () => {
      await enqueueJob(database.db, { kind: 'other', subjectId: 'o1', orgId: 'org-a', runAt: t0 });
      await enqueue('later', 'org-a', at(5000));
      expect(await store.claim('w1', ['work'], t0, LEASE_MS)).toBeUndefined();
      const job = await store.claim('w1', ['work'], at(5000), LEASE_MS);
      expect(job?.subjectId).toBe('later');
      expect(await store.requeue(job!.id, 'w1', at(5000), at(9000), 'timeout')).toBe(true);
      expect(await store.get('work', 'later')).toMatchObject({ state: 'queued', lastError: 'timeout', leaseOwner: null });
      expect(await store.claim('w1', ['work'], at(8999), LEASE_MS)).toBeUndefined();
      expect(await store.claim('w1', ['work'], at(9000), LEASE_MS)).toMatchObject({ subjectId: 'later', attempts: 2 });
      // Several kinds at once: the other kind's job is found too.
      expect(await store.claim('w2', ['work', 'other'], at(9000), LEASE_MS)).toMatchObject({ kind: 'other', subjectId: 'o1' });
    });

    it('ends failed jobs with their error, and cancels queued and running ones for good', async () => {
      await enqueue('f', 'org-a');
      const job = await store.claim('w1', ['work'], t0, LEASE_MS);
      expect(await store.finish(job!.id, 'w1', t0, { state: 'failed', error: 'broken' })).toBe(true);
      expect(await store.get('work', 'f')).toMatchObject({ state: 'failed', lastError: 'broken' });
      expect(await cancelJob(database.db, 'work', 'f', t0)).toBe(false);

      await enqueue('q', 'org-a');
      expect(await cancelJob(database.db, 'work', 'q', t0)).toBe(true);
      await enqueue('r', 'org-a');
      const running = await store.claim('w1', ['work'], t0, LEASE_MS);
      expect(running?.subjectId).toBe('r');
      expect(await cancelJob(database.db, 'work', 'r', t0)).toBe(true);
      expect(await store.renew(running!.id, 'w1', t0, LEASE_MS)).toBe(false);
      expect(await store.claim('w1', ['work'], at(60_000), LEASE_MS)).toBeUndefined();
      expect([await stateOf('q'), await stateOf('r')]).toEqual(['cancelled', 'cancelled']);
    });

    it('prunes jobs that ended before a time, of the kinds asked, and nothing unfinished', async () => {
      await enqueue('old', 'org-a');
      await enqueue('open', 'org-a', at(5));
      await enqueueJob(database.db, { kind: 'other', subjectId: 'o', orgId: 'org-a', runAt: t0 });
      const old = await store.claim('w1', ['work'], t0, LEASE_MS);
      await store.finish(old!.id, 'w1', t0, { state: 'succeeded' });
      const other = await store.claim('w1', ['other'], t0, LEASE_MS);
      await store.finish(other!.id, 'w1', t0, { state: 'failed', error: 'x' });
      expect(await store.pruneFinished(['work'], t0)).toBe(0);
      expect(await store.pruneFinished(['work'], at(1))).toBe(1);
      expect(await store.get('work', 'old')).toBeUndefined();
      expect(await stateOf('open')).toBe('queued');
      expect((await store.get('other', 'o'))?.state).toBe('failed');
    });

    it('leaseHeldSql is true only for the live lease of its holder', async () => {
      await enqueue('s', 'org-a');
      await store.claim('w1', ['work'], t0, LEASE_MS);
      const held = async (owner: string, now: Date) =>
        (await database.db.query<{ held: boolean }>(`SELECT ${leaseHeldSql("'work'", '$1', '$2', '$3')} AS held`, ['s', owner, now]))
          .rows[0]!.held;
      expect(await held('w1', at(1000))).toBe(true);
      expect(await held('w2', at(1000))).toBe(false);
      expect(await held('w1', at(LEASE_MS))).toBe(false);
    });

    it('claims from the organization with the fewest running jobs first, then the job due first', async () => {
      await enqueue('a1', 'org-a', t0);
      await enqueue('a2', 'org-a', at(1));
      await enqueue('a3', 'org-a', at(2));
      await enqueue('b1', 'org-b', at(3));
      await enqueue('c1', 'org-c', at(4));
      const order: string[] = [];
      for (let n = 0; n < 5; n++) order.push((await store.claim(`w${n}`, ['work'], at(10), LEASE_MS))!.subjectId);
      // a1 (all at 0), then b1 and c1 (0 running beats a's 1), then a's in due order.
      expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
    });

    it('takes turns between organizations: B’s one job goes next, not after all of A’s earlier ones', async () => {
      for (let n = 0; n < 4; n++) await enqueue(`a${n}`, 'org-a', at(n));
      await enqueue('b0', 'org-b', at(10));
      await enqueue('b1', 'org-b', at(11));
      // One slot: each job ends before the next claim (a FIFO would run a0..a3, then b0).
      const order: string[] = [];
      for (let n = 0; n < 6; n++) {
        const now = at(100 + n);
        const job = (await store.claim('w1', ['work'], now, LEASE_MS))!;
        order.push(job.subjectId);
        await store.finish(job.id, 'w1', now, { state: 'succeeded' });
      }
      expect(order).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'a3']);
    });

    it('puts organizations after the others when asked, and holds each to perOrgLimit across claimers', async () => {
      await enqueue('a1', 'org-a', t0);
      await enqueue('a2', 'org-a', at(1));
      await enqueue('b1', 'org-b', at(2));
      expect((await store.claim('w1', ['work'], at(10), LEASE_MS, { afterOthers: ['org-a'] }))?.subjectId).toBe('b1');
      expect((await store.claim('w2', ['work'], at(10), LEASE_MS, { perOrgLimit: 1 }))?.subjectId).toBe('a1');
      expect(await store.claim('w3', ['work'], at(10), LEASE_MS, { perOrgLimit: 1 })).toBeUndefined();
      expect((await store.claim('w3', ['work'], at(10), LEASE_MS, { perOrgLimit: 2 }))?.subjectId).toBe('a2');
    });

    it('never hands one job to two concurrent claimers', async () => {
      for (let n = 0; n < 6; n++) await enqueue(`s${n}`, `org-${n % 2}`);
      const claims = await Promise.all(Array.from({ length: 10 }, (_, n) => store.claim(`w${n}`, ['work'], t0, LEASE_MS)));
      const subjects = claims.filter((c) => c !== undefined).map((c) => c.subjectId);
      expect(subjects.sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
    });
  });

  describe('runner', () => {
    const runners: JobRunner[] = [];
    const startRunner = (kind: JobKind, options: { concurrency: number; leaseMs?: number; owner?: string; perOrgLimit?: number }) => {
      const runner = new JobRunner({
        store,
        kinds: { work: kind },
        concurrency: options.concurrency,
        leaseMs: options.leaseMs ?? LEASE_MS,
        pollMs: 50,
        perOrgLimit: options.perOrgLimit,
        owner: options.owner ?? `runner-${runners.length}`,
        clock: systemClock,
        logger,
      });
      runners.push(runner);
      runner.start();
      return runner;
    };
    afterEach(async () => {
      await Promise.all(runners.splice(0).map((r) => r.stop()));
    });
    const now = () => new Date();
    /**
     * Due, in the order of n: two jobs enqueued within one millisecond share run_at, and the claim
     * then orders them by id (random), not by when they were enqueued.
     */
    const dueInOrder = (n: number) => new Date(Date.now() - 60_000 + n);

    it('runs several jobs at once, up to its concurrency', async () => {
      const kind = new HeldKind();
      for (let n = 0; n < 5; n++) await enqueue(`s${n}`, `org-${n}`, now());
      startRunner(kind, { concurrency: 3 });
      await waitFor(() => kind.started.length === 3, 'three runs');
      const first = kind.started[0]!.subjectId;
      kind.end(first);
      await waitFor(() => kind.started.length === 4, 'a fourth run once a slot is free');
      await waitFor(async () => (await stateOf(first)) === 'succeeded', 'the first run to succeed');
    });

    it('work-conserving: one organization’s queue fills every slot while nobody else waits', async () => {
      const kind = new HeldKind();
      for (let n = 0; n < 4; n++) await enqueue(`a${n}`, 'org-a', dueInOrder(n));
      startRunner(kind, { concurrency: 2 });
      await waitFor(() => kind.started.length === 2, 'two A jobs at once');
      expect(kind.startedSubjects()).toEqual(['a0', 'a1']);
      kind.end('a0');
      await waitFor(() => kind.started.length === 3, 'the next A job in the freed slot');
      expect(kind.startedSubjects()[2]).toBe('a2');
    });

    it('fairness: the last slot goes to org B’s job when both are due, not to A’s many', async () => {
      const kind = new HeldKind();
      for (let n = 0; n < 6; n++) await enqueue(`a${n}`, 'org-a', now());
      await enqueue('b0', 'org-b', now());
      startRunner(kind, { concurrency: 2 });
      await waitFor(() => kind.started.length === 2, 'both slots in use');
      expect(kind.startedSubjects().sort()).toEqual(['a0', 'b0']);
    });

    it('fairness: org B’s job that comes later takes the next slot that frees, before A’s earlier ones', async () => {
      const kind = new HeldKind();
      for (let n = 0; n < 6; n++) await enqueue(`a${n}`, 'org-a', dueInOrder(n));
      startRunner(kind, { concurrency: 2 });
      await waitFor(() => kind.started.length === 2, 'A’s jobs in both slots');
      await enqueue('b0', 'org-b', now());
      kind.end('a0');
      await waitFor(() => kind.started.length === 3, 'a run in the freed slot');
      expect(kind.startedSubjects()).toEqual(['a0', 'a1', 'b0']);
      // B running and A's queue still long: the slot B leaves goes back to A.
      kind.end('b0');
      await waitFor(() => kind.started.length === 4, 'A again once B is done');
      expect(kind.startedSubjects()[3]).toBe('a2');
      await waitFor(async () => (await stateOf('b0')) === 'succeeded', 'B’s job to succeed');
    });

    it('retries a failing run with backoff, and fails it after its last attempt', async () => {
      const runs: number[] = [];
      const kind: JobKind = {
        retry: { baseMs: 1, maxMs: 1 },
        maxAttempts: 3,
        run: async (job) => (runs.push(job.attempts), { kind: 'retry', error: `outage ${job.attempts}` }),
      };
      await enqueue('flaky', 'org-a', now());
      startRunner(kind, { concurrency: 1 });
      await waitFor(async () => (await stateOf('flaky')) === 'failed', 'the job to fail');
      expect(runs).toEqual([1, 2, 3]);
      expect(await store.get('work', 'flaky')).toMatchObject({ attempts: 3, lastError: 'outage 3' });
    });

    it('aborts a running job that is cancelled (at its next heartbeat) and does not run it again', async () => {
      const kind = new HeldKind();
      await enqueue('c', 'org-a', now());
      startRunner(kind, { concurrency: 1, leaseMs: 300 });
      await waitFor(() => kind.started.length === 1, 'the run to start');
      await cancelJob(database.db, 'work', 'c', now());
      await waitFor(() => kind.aborted.includes('c'), 'the run to be aborted');
      expect(await stateOf('c')).toBe('cancelled');
      expect(kind.started).toHaveLength(1);
    });

    it('takes over the job of a runner that died (its lease expires) and counts the attempt', async () => {
      await enqueue('t', 'org-a', now());
      // A runner that claimed the job and died: its lease is never renewed.
      await store.claim('dead-runner', ['work'], now(), 200);
      const kind = new HeldKind();
      startRunner(kind, { concurrency: 1 });
      await waitFor(() => kind.started.length === 1, 'the takeover');
      expect(kind.started[0]).toMatchObject({ subjectId: 't', attempts: 2 });
      kind.end('t');
      await waitFor(async () => (await stateOf('t')) === 'succeeded', 'the job to succeed');
    });

    it('hands running jobs back when stopped, so another runner takes them at once', async () => {
      const kind = new HeldKind();
      await enqueue('h', 'org-a', now());
      const first = startRunner(kind, { concurrency: 1 });
      await waitFor(() => kind.started.length === 1, 'the run to start');
      await first.stop();
      expect(await store.get('work', 'h')).toMatchObject({ state: 'queued', leaseOwner: null });
      const next = new HeldKind();
      startRunner(next, { concurrency: 1 });
      await waitFor(() => next.started.length === 1, 'the second runner to take it');
      expect(next.started[0]).toMatchObject({ subjectId: 'h', attempts: 2 });
    });

    it('runDue runs what is due now and waits for it, without start()', async () => {
      const ran: string[] = [];
      const kind: JobKind = { retry: RETRY, maxAttempts: 3, run: async (job) => (ran.push(job.subjectId), { kind: 'succeeded' }) };
      for (const subject of ['d1', 'd2', 'd3']) await enqueue(subject, 'org-a', now());
      await enqueue('later', 'org-a', new Date(Date.now() + 3_600_000));
      const runner = new JobRunner({
        store,
        kinds: { work: kind },
        concurrency: 2,
        leaseMs: LEASE_MS,
        pollMs: 50,
        owner: 'drain',
        clock: systemClock,
        logger,
      });
      expect(await runner.runDue()).toBe(3);
      expect(ran.sort()).toEqual(['d1', 'd2', 'd3']);
      expect([await stateOf('d1'), await stateOf('d3'), await stateOf('later')]).toEqual(['succeeded', 'succeeded', 'queued']);
      await runner.stop();
    });

    it('keeps a long run’s lease alive with heartbeats', async () => {
      const kind = new HeldKind();
      await enqueue('long', 'org-a', now());
      startRunner(kind, { concurrency: 1, leaseMs: 300 });
      await waitFor(() => kind.started.length === 1, 'the run to start');
      const claimedUntil = kind.started[0]!.leaseExpiresAt.getTime();
      await waitFor(async () => ((await store.get('work', 'long'))?.leaseExpiresAt?.getTime() ?? 0) > claimedUntil, 'a renewal');
      // Nobody else could take it meanwhile.
      expect(await store.claim('other', ['work'], now(), 300)).toBeUndefined();
      kind.end('long');
      await waitFor(async () => (await stateOf('long')) === 'succeeded', 'the job to succeed');
    });
  });
});
