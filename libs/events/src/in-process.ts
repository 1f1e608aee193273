import type { Logger } from '@vus/core';
import {
  handleInSpan,
  handlerRetryDelay,
  type DeadLetter,
  type DeadLetterSubscription,
  type EventBus,
  type EventEnvelope,
  type HandlerOutcome,
  type Subscription,
  type SubscriptionHandle,
} from './bus';
import { EVENT_TYPES, topicOf } from './topics';

export interface InProcessOptions {
  maxAttempts?: number;
  retryDelayMs?: number;
  logger?: Logger;
}

interface Member {
  subscription: Subscription;
  /** Resolves when the member is abandoned: its handler in flight no longer counts. */
  abandoned: Promise<'abandoned'>;
  abandon(): void;
  leaving: boolean;
  /** Deliveries this member is working on (one per partition it owns at most). */
  inFlight: Set<Promise<unknown>>;
}

/** A partition of one topic inside one group: its events are handled one at a time, in order. */
interface Lane {
  partition: number;
  queue: EventEnvelope[];
  running: Promise<void> | undefined;
}

interface Group {
  /** Every type a member of the group ever asked for: their events wait for the next member. */
  types: Set<string>;
  members: Member[];
  lanes: Map<string, Lane>;
}

/** FNV-1a: a stable, cheap string hash, so a key always lands in the same partition. */
export function partitionOf(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % partitions;
}

/**
 * The EventBus inside one process (embedded mode and unit tests), shaped like Kafka so the same
 * contract holds: each topic has the partitions of the topic table; a key always maps to one
 * partition; in each group a partition belongs to one member at a time and its events are handled
 * one at a time in publish order. A handler that throws or asks to retry is retried; after
 * `maxAttempts` the event becomes a dead letter. Events wait while a group has no member.
 * Nothing survives the process: durability comes from the outbox, which the relay replays.
 */
export class InProcessEventBus implements EventBus {
  private readonly groups = new Map<string, Group>();
  readonly deadLetters: DeadLetter[] = [];
  private readonly deadLetterSubscriptions: DeadLetterSubscription[] = [];
  private closed = false;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;

  constructor(private readonly options: InProcessOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryDelayMs = options.retryDelayMs ?? 50;
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (this.closed) throw new Error('event bus is closed');
    for (const event of events) {
      for (const group of this.groups.values()) {
        if (!group.types.has(event.type)) continue;
        const partition = partitionOf(event.key, EVENT_TYPES[event.type].partitions);
        const laneKey = `${topicOf(event.type)}/${partition}`;
        let lane = group.lanes.get(laneKey);
        if (!lane) group.lanes.set(laneKey, (lane = { partition, queue: [], running: undefined }));
        lane.queue.push(event);
        this.run(group, lane);
      }
    }
  }

  async subscribe(subscription: Subscription): Promise<SubscriptionHandle> {
    if (this.closed) throw new Error('event bus is closed');
    let group = this.groups.get(subscription.group);
    if (!group) this.groups.set(subscription.group, (group = { types: new Set(), members: [], lanes: new Map() }));
    for (const type of subscription.types) group.types.add(type);
    let abandon = () => undefined as void;
    const abandoned = new Promise<'abandoned'>((resolve) => (abandon = () => resolve('abandoned')));
    const member: Member = { subscription, abandoned, abandon, leaving: false, inFlight: new Set() };
    group.members.push(member);
    this.rebalance(group);
    const leave = (g: Group) => {
      g.members = g.members.filter((m) => m !== member);
      this.rebalance(g);
    };
    return {
      stop: async () => {
        member.leaving = true;
        // The event in flight finishes (and counts) before the member leaves.
        while (member.inFlight.size > 0) await Promise.all(member.inFlight);
        leave(group);
      },
      abandon: async () => {
        member.leaving = true;
        member.abandon();
        leave(group);
      },
    };
  }

  async subscribeDeadLetters(subscription: DeadLetterSubscription): Promise<SubscriptionHandle> {
    this.deadLetterSubscriptions.push(subscription);
    // Like reading a dead-letter topic from its beginning.
    for (const deadLetter of this.deadLetters) {
      if (subscription.types.includes(deadLetter.event.type)) await subscription.handler(deadLetter);
    }
    const remove = async () => {
      const at = this.deadLetterSubscriptions.indexOf(subscription);
      if (at >= 0) this.deadLetterSubscriptions.splice(at, 1);
    };
    return { stop: remove, abandon: remove };
  }

  /** Resolves when every event so far is handled (or waits for a member that is not there). */
  async drain(): Promise<void> {
    for (;;) {
      const running = [...this.groups.values()].flatMap((g) => [...g.lanes.values()].map((l) => l.running));
      const busy = running.filter((r): r is Promise<void> => r !== undefined);
      if (busy.length === 0) return;
      await Promise.all(busy);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.drain();
    this.groups.clear();
  }

  private rebalance(group: Group): void {
    for (const lane of group.lanes.values()) this.run(group, lane);
  }

  /** The member that owns a partition for an event type: partitions are dealt round-robin. */
  private assignee(group: Group, lane: Lane, event: EventEnvelope): Member | undefined {
    const candidates = group.members.filter((m) => !m.leaving && m.subscription.types.includes(event.type));
    return candidates[lane.partition % Math.max(candidates.length, 1)];
  }

  private run(group: Group, lane: Lane): void {
    if (lane.running) return;
    lane.running = (async () => {
      for (;;) {
        const event = lane.queue[0];
        const member = event && this.assignee(group, lane, event);
        if (!event || !member) break;
        const delivery = this.deliver(member, event);
        member.inFlight.add(delivery);
        const result = await delivery.finally(() => member.inFlight.delete(delivery));
        if (result === 'abandoned') continue;
        lane.queue.shift();
      }
    })().finally(() => {
      lane.running = undefined;
      // A member may have joined while the lane was finishing.
      const head = lane.queue[0];
      if (head && this.assignee(group, lane, head)) this.run(group, lane);
    });
  }

  private async deliver(member: Member, event: EventEnvelope): Promise<'handled' | 'abandoned'> {
    const { subscription } = member;
    let lastError = 'handler asked for a retry';
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      try {
        const outcome: HandlerOutcome | 'abandoned' = await Promise.race([
          handleInSpan(subscription.group, event, attempt, () => subscription.handler(event)),
          member.abandoned,
        ]);
        if (outcome === 'abandoned') return 'abandoned';
        if (outcome !== 'retry') return 'handled';
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        this.options.logger?.warn({ err: error, eventId: event.id, attempt }, 'event handler failed');
      }
      if (attempt < this.maxAttempts) await new Promise((r) => setTimeout(r, handlerRetryDelay(this.retryDelayMs, attempt)));
    }
    const deadLetter: DeadLetter = {
      group: subscription.group,
      error: lastError,
      attempts: this.maxAttempts,
      failed_at: new Date().toISOString(),
      event,
    };
    this.deadLetters.push(deadLetter);
    for (const s of this.deadLetterSubscriptions) {
      if (s.types.includes(event.type)) await s.handler(deadLetter).catch(() => undefined);
    }
    return 'handled';
  }
}
