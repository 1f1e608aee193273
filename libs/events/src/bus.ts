import { currentCaller, jitteredBackoff, newId, type Clock, systemClock } from '@vus/core';
import { SpanKind, inSpan, producerTraceparent } from '@vus/telemetry';
import { isEventType, topicOf, type EventType } from './topics';

/**
 * The JSON envelope of every event, on every adapter. On Kafka the message value is this object
 * as JSON and the message key is `key`.
 */
export interface EventEnvelope<P = Record<string, unknown>> {
  id: string;
  type: EventType;
  /** The owning entity id; one key's events are delivered in order. */
  key: string;
  occurred_at: string;
  org_id: string | null;
  payload: P;
  /** The request it was written for (x-request-id), when written on a caller's behalf. */
  request_id?: string;
  /**
   * W3C trace context of the span that wrote it (a producer span, child of the request's), so
   * its consumers' spans join the request's trace. On Kafka it is also the `traceparent` header.
   */
  traceparent?: string;
}

export function buildEvent<P extends Record<string, unknown>>(
  type: EventType,
  key: string,
  orgId: string | null,
  payload: P,
  clock: Clock = systemClock,
): EventEnvelope<P> {
  const requestId = currentCaller()?.requestId;
  const traceparent = producerTraceparent(topicOf(type), { 'messaging.operation.type': 'create', 'vus.event.type': type });
  return {
    id: newId(clock.now()),
    type,
    key,
    occurred_at: clock.now().toISOString(),
    org_id: orgId,
    payload,
    ...(requestId ? { request_id: requestId } : {}),
    ...(traceparent ? { traceparent } : {}),
  };
}

/** What a handler says happened: retry asks for redelivery, skip means "not for me". */
export type HandlerOutcome = 'done' | 'skipped' | 'retry';

export type EventHandler = (event: EventEnvelope) => Promise<HandlerOutcome>;

export interface Subscription {
  /** Consumer group (one per consuming service): each event reaches one member of each group. */
  group: string;
  types: readonly EventType[];
  handler: EventHandler;
}

/** An event that exhausted its attempts in one group, as the dead-letter topic carries it. */
export interface DeadLetter {
  group: string;
  /** The last attempt's error message. */
  error: string;
  attempts: number;
  failed_at: string;
  event: EventEnvelope;
}

export interface DeadLetterSubscription {
  group: string;
  /** Dead letters of these event types (their `<topic>.dlq` topics). */
  types: readonly EventType[];
  handler: (deadLetter: DeadLetter) => Promise<void>;
}

/** One member of a consumer group, as returned by `subscribe`. */
export interface SubscriptionHandle {
  /** Leaves the group cleanly: stops taking events, lets the handler in flight finish and commit. */
  stop(): Promise<void>;
  /**
   * Leaves at once, as a crashed process would: the event in flight is neither finished nor
   * committed, so the group delivers it again (to another member, or to this group's next one).
   */
  abandon(): Promise<void>;
}

/** The port every service talks to; adapters: in-process (embedded, tests) and Kafka (cluster). */
export interface EventBus {
  /** Resolves once every event is accepted by the bus (on Kafka: acknowledged by the brokers). */
  publish(events: readonly EventEnvelope[]): Promise<void>;
  /** Joins `subscription.group` as a new member; resolves once the member takes events. */
  subscribe(subscription: Subscription): Promise<SubscriptionHandle>;
  /** Reads dead letters (operators' replay tools, tests). */
  subscribeDeadLetters(subscription: DeadLetterSubscription): Promise<SubscriptionHandle>;
  /** Stops every member cleanly (see SubscriptionHandle.stop) and releases connections. */
  close(): Promise<void>;
}

/** Parses a message value into an envelope; throws with a readable reason when it is not one. */
export function parseEnvelope(raw: string): EventEnvelope {
  const value: unknown = JSON.parse(raw);
  const e = value as (Partial<Omit<EventEnvelope, 'type'>> & { type?: unknown }) | null;
  if (!e || typeof e !== 'object' || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.key !== 'string') {
    throw new Error('not an event envelope: id, type and key are required');
  }
  if (!isEventType(e.type)) throw new Error(`not an event envelope: unknown type ${e.type}`);
  if (typeof e.occurred_at !== 'string' || typeof e.payload !== 'object' || e.payload === null) {
    throw new Error('not an event envelope: occurred_at and payload are required');
  }
  const envelope: EventEnvelope = {
    id: e.id,
    type: e.type,
    key: e.key,
    occurred_at: e.occurred_at,
    org_id: e.org_id ?? null,
    payload: e.payload,
  };
  if (typeof e.request_id === 'string' && e.request_id) envelope.request_id = e.request_id;
  if (typeof e.traceparent === 'string' && e.traceparent) envelope.traceparent = e.traceparent;
  return envelope;
}

/**
 * Runs one delivery of an event to a group's handler inside a consumer span whose parent is the
 * span that wrote the event (both buses): one trace from the request through every consumer.
 */
export function handleInSpan<T>(group: string, event: EventEnvelope, attempt: number, handle: () => Promise<T>): Promise<T> {
  const attributes = {
    'messaging.destination.name': topicOf(event.type),
    'messaging.consumer.group.name': group,
    'messaging.message.id': event.id,
    'messaging.operation.type': 'process',
    'vus.event.type': event.type,
    'vus.delivery.attempt': attempt,
  };
  return inSpan(`${topicOf(event.type)} process`, { kind: SpanKind.CONSUMER, attributes, parent: event.traceparent ?? null }, handle);
}

/**
 * The wait before a failed handler's attempt `attempt + 1` (both buses): the one backoff
 * (libs/core), so a flaky dependency gets a growing breather, capped well inside a consumer's
 * session timeout.
 */
export function handlerRetryDelay(baseMs: number, attempt: number): number {
  return jitteredBackoff(baseMs, HANDLER_RETRY_MAX_MS, attempt);
}

const HANDLER_RETRY_MAX_MS = 10_000;
