import { newId, type Clock, systemClock } from '@vus/core';
import type { EventType } from './topics';

/** The JSON envelope of every event, on every adapter. */
export interface EventEnvelope<P = Record<string, unknown>> {
  id: string;
  type: EventType;
  /** The owning entity id; one key's events are delivered in order. */
  key: string;
  occurred_at: string;
  org_id: string | null;
  payload: P;
}

export function buildEvent<P extends Record<string, unknown>>(
  type: EventType,
  key: string,
  orgId: string | null,
  payload: P,
  clock: Clock = systemClock,
): EventEnvelope<P> {
  return { id: newId(clock.now()), type, key, occurred_at: clock.now().toISOString(), org_id: orgId, payload };
}

/** What a handler says happened: retry asks for redelivery, skip means "not for me". */
export type HandlerOutcome = 'done' | 'skipped' | 'retry';

export type EventHandler = (event: EventEnvelope) => Promise<HandlerOutcome>;

export interface Subscription {
  /** Consumer group: each event reaches one member of each group. */
  group: string;
  types: readonly EventType[];
  handler: EventHandler;
}

/** The port every service talks to; adapters: in-process (embedded, tests) and Kafka (cluster). */
export interface EventBus {
  publish(events: readonly EventEnvelope[]): Promise<void>;
  subscribe(subscription: Subscription): Promise<void>;
  close(): Promise<void>;
}
