import type { Database, Queryable } from '@vus/db';
import type { EventEnvelope, EventHandler, HandlerOutcome } from './bus';
import { markHandled } from './outbox';

/** Thrown inside the transaction to roll back a handler that asked for a retry. */
class RetryRequested extends Error {}

/**
 * Makes a handler effectively-once on an at-least-once bus: the handled id is recorded in the
 * consumer's database in the same transaction as the handler's own writes, so a redelivered event
 * (a crash before commit, a duplicate publish) finds its id and is skipped, and a handler that
 * fails or asks to retry leaves no trace. Side effects outside `tx` are not covered: write an
 * intent row (an outbox, a delivery) and act on it elsewhere.
 */
export function handleOnce(
  db: Database,
  consumer: string,
  handler: (event: EventEnvelope, tx: Queryable) => Promise<HandlerOutcome>,
): EventHandler {
  return async (event) => {
    try {
      return await db.withTx(async (tx) => {
        if (!(await markHandled(tx, consumer, event.id))) return 'skipped';
        const outcome = await handler(event, tx);
        if (outcome === 'retry') throw new RetryRequested();
        return outcome;
      });
    } catch (error) {
      if (error instanceof RetryRequested) return 'retry';
      throw error;
    }
  };
}
