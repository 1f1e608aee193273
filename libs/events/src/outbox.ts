import { Poller, type Logger } from '@vus/core';
import type { Database, MigrationSet, Queryable } from '@vus/db';
import { join } from 'node:path';
import type { EventBus, EventEnvelope } from './bus';
import { topicOf, type EventType } from './topics';

/** Every service that produces or consumes events applies these beside its own migrations. */
export const EVENTS_MIGRATIONS: MigrationSet = {
  dir: join(__dirname, '..', 'migrations'),
  table: 'pgmigrations_events',
};

/** Writes events in the caller's transaction: they exist exactly when the state change does. */
export async function enqueueEvents(tx: Queryable, events: readonly EventEnvelope[]): Promise<void> {
  for (const event of events) {
    await tx.query(
      `INSERT INTO outbox (id, topic, key, type, org_id, payload, occurred_at, request_id, traceparent)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        event.id,
        topicOf(event.type),
        event.key,
        event.type,
        event.org_id,
        JSON.stringify(event.payload),
        event.occurred_at,
        event.request_id ?? null,
        event.traceparent ?? null,
      ],
    );
  }
}

/** Records that `consumer` handled `eventId`; false when it already had (a redelivery). */
export async function markHandled(tx: Queryable, consumer: string, eventId: string): Promise<boolean> {
  const result = await tx.query('INSERT INTO handled_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    consumer,
    eventId,
  ]);
  return result.rowCount === 1;
}

/** Whether `consumer` has handled `eventId` (for a handler whose effect commits in transactions of its own). */
export async function wasHandled(q: Queryable, consumer: string, eventId: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM handled_events WHERE consumer = $1 AND event_id = $2', [consumer, eventId]);
  return rows.length > 0;
}

/** Advisory lock key held by the relay that is publishing (any constant unique in the database). */
const RELAY_LOCK = 0x7675_6f62; // "vuob"

interface OutboxRow {
  seq: string;
  id: string;
  key: string;
  type: EventType;
  org_id: string | null;
  payload: Record<string, unknown>;
  occurred_at: Date;
  request_id: string | null;
  traceparent: string | null;
  [column: string]: unknown;
}

export interface OutboxRelayOptions {
  db: Database;
  bus: EventBus;
  logger: Logger;
  batchSize?: number;
  pollMs?: number;
  maxBackoffMs?: number;
}

/**
 * Publishes the outbox in `seq` order. A batch is claimed inside a transaction that holds the
 * relay's advisory lock and locks its rows (FOR UPDATE SKIP LOCKED), publishes it, and marks it
 * sent in the same transaction: a second replica finds the lock taken and waits for its next
 * poll, so nothing is published twice to completion and a key's events leave in order. A failed
 * publish rolls back (rows stay unsent, attempts and the error are recorded) and the relay backs
 * off exponentially with jitter up to `maxBackoffMs`, then resumes where it stopped. If a publish
 * succeeded but the commit failed, the batch goes again: consumers dedupe by event id.
 */
export class OutboxRelay {
  private readonly poller: Poller;

  constructor(private readonly options: OutboxRelayOptions) {
    const { pollMs = 500, maxBackoffMs = 30_000, logger } = options;
    this.poller = new Poller({
      round: () => this.relayOnce(),
      pollMs,
      maxBackoffMs,
      onError: (error, failures) => logger.warn({ err: error, failures }, 'outbox relay could not publish; backing off'),
    });
  }

  start(): void {
    this.poller.start();
  }

  /** Called after a commit that enqueued events, so they go out without waiting for the poll. */
  wake(): void {
    this.poller.wake();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  /** Publishes one batch; returns how many events went out. */
  async relayOnce(): Promise<number> {
    const { db, bus, batchSize = 100 } = this.options;
    try {
      return await db.withTx(async (tx) => {
        // One relay at a time per database: with SKIP LOCKED alone a second replica would take the
        // next rows and could publish a key's later events before the first replica's earlier ones.
        const lock = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [RELAY_LOCK]);
        if (!lock.rows[0]?.locked) return 0;
        const { rows } = await tx.query<OutboxRow>(
          `SELECT seq, id, key, type, org_id, payload, occurred_at, request_id, traceparent FROM outbox
           WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [batchSize],
        );
        if (rows.length === 0) return 0;
        await bus.publish(rows.map(toEnvelope));
        await tx.query('UPDATE outbox SET published_at = now(), attempts = attempts + 1 WHERE seq = ANY($1::bigint[])', [
          rows.map((r) => r.seq),
        ]);
        return rows.length;
      });
    } catch (error) {
      await db
        .query(
          `UPDATE outbox SET attempts = attempts + 1, last_error = $1
           WHERE seq IN (SELECT seq FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $2)`,
          [error instanceof Error ? error.message : String(error), batchSize],
        )
        .catch(() => undefined);
      throw error;
    }
  }
}

/**
 * A service's relay, started, when it has a bus; without one its events wait in the outbox
 * (said once in the log) until a bus is configured.
 */
export function startOutboxRelay(options: Omit<OutboxRelayOptions, 'bus'> & { bus: EventBus | undefined }): OutboxRelay | undefined {
  const { bus } = options;
  if (!bus) {
    options.logger.warn('no event bus configured: events stay in the outbox until one is');
    return undefined;
  }
  const relay = new OutboxRelay({ ...options, bus });
  relay.start();
  return relay;
}

function toEnvelope(row: OutboxRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    key: row.key,
    org_id: row.org_id,
    occurred_at: new Date(row.occurred_at).toISOString(),
    payload: row.payload,
    ...(row.request_id ? { request_id: row.request_id } : {}),
    ...(row.traceparent ? { traceparent: row.traceparent } : {}),
  };
}
