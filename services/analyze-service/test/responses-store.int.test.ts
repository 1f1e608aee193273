/**
 * Response sessions on both databases analyze-service runs on (PostgreSQL in a cluster, PGlite in
 * npm start): a session is its organization's over its knowledge store, its recent turns come back
 * oldest first, turn numbers follow each other, and each turn's usage is one outbox event.
 */
import { newId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { analyzeService } from '../src/main';
import { responseUsage, type SessionStore, type TurnRecord } from '../src/responses/responses';
import { createSessionStore } from '../src/responses/store';

describe.each(DATABASE_KINDS)('response sessions on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let store: SessionStore;

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, analyzeService);
    store = createSessionStore(database.db);
  }, 60_000);
  afterAll(() => database?.drop());

  const turn = (orgId: string, sessionId: string, n: number, question: string): TurnRecord => ({
    id: `resp_${newId()}`,
    orgId,
    sessionId,
    knowledgeStoreId: 'ks_1',
    turn: n,
    provider: 'extractive',
    input: [{ role: 'user', content: question }],
    output: `Answer to ${question} [1].`,
    citations: [{ startIndex: 0, endIndex: 3, itemId: 'ksi_1', videoId: 'v1', startSec: 1, endSec: 2, title: 't' }],
    status: 'completed',
    incompleteReason: '',
    inputTokens: 10,
    outputTokens: 5,
    createdAt: new Date('2026-11-28T10:00:00Z'),
  });

  /** The session over ks_1 (the store its turns are saved with). */
  const openSession = async (org: string, sessionId: string, limit: number) => {
    const opened = await store.open(org, sessionId, 'ks_1', limit);
    if (opened === 'other_store') throw new Error(`session ${sessionId} is over another store`);
    return opened;
  };

  it('keeps the turns of a session, recent ones oldest first, with one usage event each', async () => {
    const org = newId();
    const sessionId = `sess_${newId()}`;
    for (const [n, question] of ['first?', 'second?', 'third?'].entries()) {
      const t = turn(org, sessionId, n, question);
      await store.saveTurn(t, responseUsage(t));
    }
    const opened = await openSession(org, sessionId, 2);
    expect(opened?.turns).toBe(3);
    expect(opened?.recent.map((t) => [t.turn, t.input[0]!.content])).toEqual([
      [1, 'second?'],
      [2, 'third?'],
    ]);
    expect(opened?.recent[0]?.citations[0]).toMatchObject({ itemId: 'ksi_1', startSec: 1 });
    const { rows } = await database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox WHERE payload::text LIKE '%response:resp_%'`,
    );
    expect(rows[0]!.n).toBe(3);
  });

  it('a session is not found for another organization; for another knowledge store it is the other store’s', async () => {
    const org = newId();
    const sessionId = `sess_${newId()}`;
    await store.saveTurn(turn(org, sessionId, 0, 'q?'), []);
    expect(await openSession(org, sessionId, 8)).toBeDefined();
    expect(await store.open(newId(), sessionId, 'ks_1', 8)).toBeUndefined();
    expect(await store.open(newId(), sessionId, 'ks_2', 8)).toBeUndefined();
    expect(await store.open(org, sessionId, 'ks_2', 8)).toBe('other_store');
    expect(await store.open(org, `sess_${newId()}`, 'ks_1', 8)).toBeUndefined();
  });

  it('two turns announced with the same number take the next numbers in turn', async () => {
    const org = newId();
    const sessionId = `sess_${newId()}`;
    await Promise.all([store.saveTurn(turn(org, sessionId, 0, 'a?'), []), store.saveTurn(turn(org, sessionId, 0, 'b?'), [])]);
    const opened = await openSession(org, sessionId, 8);
    expect(opened?.recent.map((t) => t.turn)).toEqual([0, 1]);
  });
});
