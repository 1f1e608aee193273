import type { Database } from '@vus/db';
import { enqueueEvents, usageRecorded } from '@vus/events';
import type { Message } from './conversation';
import type { Citation } from './grounding';
import type { SessionStore, TurnRecord } from './responses';

type TurnRow = {
  id: string;
  session_id: string;
  turn: number;
  provider: string;
  input: Message[];
  output: string;
  citations: Citation[];
  status: TurnRecord['status'];
  incomplete_reason: string;
  input_tokens: number;
  output_tokens: number;
  created_at: Date;
};

/** Response sessions and their turns in analyze-service's database; each turn's usage goes out through its outbox. */
export function createSessionStore(db: Database, eventsWritten: () => void = () => undefined): SessionStore {
  return {
    async open(orgId, sessionId, knowledgeStoreId, limit) {
      const { rows: sessions } = await db.query<{ turns: number; knowledge_store_id: string }>(
        `SELECT s.knowledge_store_id, (SELECT count(*)::int FROM response_turns t WHERE t.session_id = s.id) AS turns
           FROM response_sessions s WHERE s.id = $1 AND s.org_id = $2`,
        [sessionId, orgId],
      );
      const session = sessions[0];
      if (!session) return undefined;
      if (session.knowledge_store_id !== knowledgeStoreId) return 'other_store';
      const { rows } = await db.query<TurnRow>(
        `SELECT * FROM (SELECT * FROM response_turns WHERE session_id = $1 ORDER BY turn DESC LIMIT $2) recent ORDER BY turn`,
        [sessionId, limit],
      );
      return {
        turns: session.turns,
        recent: rows.map((r) => ({
          id: r.id,
          orgId,
          sessionId: r.session_id,
          knowledgeStoreId,
          turn: r.turn,
          provider: r.provider,
          input: r.input,
          output: r.output,
          citations: r.citations,
          status: r.status,
          incompleteReason: r.incomplete_reason,
          inputTokens: r.input_tokens,
          outputTokens: r.output_tokens,
          createdAt: new Date(r.created_at),
        })),
      };
    },

    async saveTurn(turn, usage) {
      await db.withTx(async (tx) => {
        await tx.query(
          `INSERT INTO response_sessions (id, org_id, knowledge_store_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
           ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at
           WHERE response_sessions.org_id = excluded.org_id AND response_sessions.knowledge_store_id = excluded.knowledge_store_id`,
          [turn.sessionId, turn.orgId, turn.knowledgeStoreId, turn.createdAt],
        );
        // The session row is locked by the statement above: two turns of one session at once take the next numbers in turn.
        await tx.query(
          `INSERT INTO response_turns (id, session_id, turn, provider, input, output, citations, status, incomplete_reason,
                                       input_tokens, output_tokens, created_at)
           SELECT $1, $2, GREATEST($3, COALESCE(max(turn) + 1, 0)), $4, $5, $6, $7, $8, $9, $10, $11, $12
             FROM response_turns WHERE session_id = $2`,
          [
            turn.id,
            turn.sessionId,
            turn.turn,
            turn.provider,
            JSON.stringify(turn.input),
            turn.output,
            JSON.stringify(turn.citations),
            turn.status,
            turn.incompleteReason,
            turn.inputTokens,
            turn.outputTokens,
            turn.createdAt,
          ],
        );
        await enqueueEvents(
          tx,
          usage.map((u) => usageRecorded(turn.orgId, u)),
        );
      });
      if (usage.length > 0) eventsWritten();
    },
  };
}
