/**
 * The Kafka event bus (kafkajs): producer, consumer groups with retries and a dead-letter topic,
 * lag metrics and quiet logging through outages. Length (about 430 lines): producing and
 * consuming share one client, its connection state and its log sink.
 */
import type { Logger } from '@vus/core';
import { recordConsumerLag } from '@vus/telemetry';
import { kafkaLogSink, type KafkaLogSink } from './kafka-log';
import {
  Kafka,
  logLevel as KafkaLogLevel,
  Partitioners,
  type Consumer,
  type ConsumerRunConfig,
  type KafkaMessage,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import {
  handleInSpan,
  handlerRetryDelay,
  parseEnvelope,
  type DeadLetter,
  type DeadLetterSubscription,
  type EventBus,
  type EventEnvelope,
  type Subscription,
  type SubscriptionHandle,
} from './bus';
import { allTopics, deadLetterTopicOf, eventTypeOfTopic, topicOf } from './topics';

export interface KafkaBusOptions {
  /** host:port list of bootstrap brokers. */
  brokers: readonly string[];
  /** Names this process on the brokers (logs, quotas): the service name. */
  clientId: string;
  logger: Logger;
  /** Handler attempts before an event goes to its dead-letter topic. */
  maxAttempts?: number;
  /** Delay before the n-th retry is n times this. */
  retryDelayMs?: number;
  /** How long the group waits for a silent member before giving its partitions away. */
  sessionTimeoutMs?: number;
  /** Longest fetch wait; bounds the delivery latency of a quiet topic. */
  maxWaitTimeMs?: number;
  /** How long one request to a broker may take (also bounds a publish during an outage). */
  requestTimeoutMs?: number;
  /** How often repeated kafkajs warnings are summarised (default a minute; see kafka-log.ts). */
  logSummaryMs?: number;
}

/** Message headers on dead letters, for tools that do not parse the value. */
export const DEAD_LETTER_HEADERS = {
  error: 'vus-dlq-error',
  group: 'vus-dlq-group',
  sourceTopic: 'vus-dlq-source-topic',
  sourcePartition: 'vus-dlq-source-partition',
  sourceOffset: 'vus-dlq-source-offset',
} as const;

/** One message and where it came from, as a member handles it. */
interface MessageContext {
  topic: string;
  partition: number;
  message: KafkaMessage;
  heartbeat(): Promise<void>;
}

class Abandoned extends Error {
  constructor() {
    super('consumer abandoned its event in flight');
  }
}

/** The consumer stopped for good while joining its group (kafkajs does not restart it). */
class JoinCrashed extends Error {
  constructor(
    readonly groupId: string,
    readonly reason: Error,
  ) {
    super(`consumer of group ${groupId} crashed while joining: ${reason.message}`);
  }
}

/**
 * Consumers a member tries before `subscribe` fails with the last crash. (On the mock broker about
 * one join in ten of a second member crashed so, and a retry can crash again.)
 */
export const JOIN_ATTEMPTS = 5;

/**
 * The EventBus on Kafka (kafkajs). Topics come from the topic table; a message's key is the
 * event's `key` (the owning entity id) and its value the JSON envelope, so one entity's events
 * stay in one partition, in order. Each `subscribe` is one member of a consumer group; offsets
 * are committed by hand, one message at a time, only after the handler finished (done or
 * skipped) or the event was dead-lettered: a member that dies mid-handler leaves the message
 * uncommitted and the group delivers it again. Delivery is therefore at least once; handlers make
 * it effectively once by remembering handled ids (`handleOnce`).
 *
 * The producer is not idempotent (the Debian mock broker does not serve it): a publish retried
 * after a lost acknowledgement can duplicate a message, which the same ids absorb.
 */
export class KafkaEventBus implements EventBus {
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private producerReady: Promise<void> | undefined;
  private readonly members = new Set<SubscriptionHandle>();
  private closed = false;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly kafkaLog: KafkaLogSink;
  private readonly logSummary: NodeJS.Timeout;

  constructor(private readonly options: KafkaBusOptions) {
    const { logger } = options;
    this.kafkaLog = kafkaLogSink(logger);
    this.logSummary = setInterval(() => this.kafkaLog.flush(), options.logSummaryMs ?? 60_000).unref();
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      connectionTimeout: 3000,
      // Few, short retries inside the client: the outbox relay owns backing off during outages.
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 2000 },
      logLevel: KafkaLogLevel.WARN,
      // Once per kind of failure and a periodic summary, not once per retry of every connection.
      logCreator: () => (entry: LogEntry) => this.kafkaLog.write(entry),
    });
    this.producer = this.kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
      idempotent: false,
      // One request in flight per broker keeps a retried batch from overtaking the next one.
      maxInFlightRequests: 1,
    });
  }

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (this.closed) throw new Error('event bus is closed');
    if (events.length === 0) return;
    await this.connectProducer();
    const byTopic = new Map<string, { key: string; value: string; headers?: Record<string, string> }[]>();
    for (const event of events) {
      const topic = topicOf(event.type);
      const messages = byTopic.get(topic) ?? [];
      // W3C trace context where Kafka tooling looks for it, besides the envelope's copy.
      messages.push({
        key: event.key,
        value: JSON.stringify(event),
        ...(event.traceparent ? { headers: { traceparent: event.traceparent } } : {}),
      });
      byTopic.set(topic, messages);
    }
    await this.producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
  }

  async subscribe(subscription: Subscription): Promise<SubscriptionHandle> {
    const topics = subscription.types.map(topicOf);
    return this.join(subscription.group, topics, async (payload, member) => {
      const { topic, partition, message } = payload;
      let event: EventEnvelope;
      try {
        event = parseEnvelope(message.value?.toString('utf8') ?? '');
      } catch (error) {
        // A message nobody can read must not block its partition: park it and move on.
        await this.sendDeadLetter(payload, subscription.group, undefined, errorText(error), 0);
        return;
      }
      if (!subscription.types.includes(event.type)) return;
      const headerTraceparent = message.headers?.traceparent?.toString();
      if (headerTraceparent) event.traceparent = headerTraceparent;
      let lastError = 'handler asked for a retry';
      for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
        try {
          const outcome = await Promise.race([
            handleInSpan(subscription.group, event, attempt, () => subscription.handler(event)),
            member.abandoned,
          ]);
          if (outcome !== 'retry') return;
        } catch (error) {
          if (error instanceof Abandoned) throw error;
          lastError = errorText(error);
          this.options.logger.warn({ err: error, eventId: event.id, topic, partition, attempt }, 'event handler failed');
        }
        if (attempt < this.maxAttempts) {
          await Promise.race([sleep(handlerRetryDelay(this.retryDelayMs, attempt)), member.abandoned]);
          await payload.heartbeat();
        }
      }
      await this.sendDeadLetter(payload, subscription.group, event, lastError, this.maxAttempts);
    });
  }

  async subscribeDeadLetters(subscription: DeadLetterSubscription): Promise<SubscriptionHandle> {
    const topics = subscription.types.map(deadLetterTopicOf);
    return this.join(subscription.group, topics, async ({ message }, member) => {
      let deadLetter: DeadLetter;
      try {
        deadLetter = JSON.parse(message.value?.toString('utf8') ?? '') as DeadLetter;
        deadLetter.event = parseEnvelope(JSON.stringify(deadLetter.event));
      } catch (error) {
        this.options.logger.warn({ err: error }, 'unreadable dead letter skipped');
        return;
      }
      await Promise.race([subscription.handler(deadLetter), member.abandoned]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.logSummary);
    this.kafkaLog.flush();
    await Promise.all([...this.members].map((m) => m.stop()));
    if (this.producerReady) await this.producer.disconnect();
  }

  private connectProducer(): Promise<void> {
    // A failed connect is forgotten so the next publish tries again (broker outage).
    this.producerReady ??= this.producer.connect().catch((error: unknown) => {
      this.producerReady = undefined;
      throw error;
    });
    return this.producerReady;
  }

  /**
   * One group member: handles each message with `handle`, then commits its offset. `handle`
   * returning normally means "finished with this message"; throwing leaves it uncommitted.
   */
  private async join(
    groupId: string,
    topics: string[],
    handle: (message: MessageContext, member: { abandoned: Promise<never> }) => Promise<void>,
  ): Promise<SubscriptionHandle> {
    if (this.closed) throw new Error('event bus is closed');
    let abandon: (reason: Abandoned) => void = () => undefined;
    const abandoned = new Promise<never>((_, reject) => (abandon = reject));
    abandoned.catch(() => undefined);
    let leaving = false;

    const run: ConsumerRunConfig = {
      autoCommit: false,
      eachBatchAutoResolve: false,
      // Partitions of one member are handled side by side; one partition stays sequential.
      partitionsConsumedConcurrently: 3,
      // eachBatch rather than eachMessage: its commit is not dropped while the consumer stops,
      // so the message in flight at a clean shutdown is committed before the member leaves.
      eachBatch: async (payload) => {
        const { topic, partition } = payload.batch;
        const heartbeat = () => payload.heartbeat();
        for (const message of payload.batch.messages) {
          if (leaving) throw new Abandoned();
          if (!payload.isRunning() || payload.isStale()) return;
          await handle({ topic, partition, message, heartbeat }, { abandoned });
          payload.resolveOffset(message.offset);
          const next = (BigInt(message.offset) + 1n).toString();
          await payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: next }] }] });
          // What is left behind this message in its partition (the end as of this fetch).
          recordConsumerLag(groupId, topic, partition, Number(BigInt(payload.batch.highWatermark) - BigInt(next)));
          await heartbeat();
        }
      },
    };
    let consumer = await this.startMember(groupId, topics, run);
    let stopping = false;
    let replacing = Promise.resolve();
    // A consumer kafkajs gives up on later (a crash it does not restart from, say in a rebalance)
    // is replaced by a fresh one, so the member goes on taking its partitions' events.
    const supervise = (watched: Consumer) =>
      watched.on(watched.events.CRASH, ({ payload }) => {
        if (payload.restart || stopping) return;
        this.options.logger.error({ err: payload.error, groupId }, 'consumer crashed: a fresh one joins the group');
        replacing = this.startMember(groupId, topics, run).then(
          (fresh) => {
            consumer = fresh;
            supervise(fresh);
          },
          (error: unknown) =>
            this.options.logger.error({ err: error, groupId }, 'consumer could not join its group again: this member takes no more events'),
        );
      });
    supervise(consumer);
    const leave = async () => {
      this.members.delete(handle_);
      stopping = true;
      await replacing;
      await consumer.disconnect();
    };

    const handle_: SubscriptionHandle = {
      // kafkajs lets the batch in flight stop after its current message, which is committed.
      stop: leave,
      abandon: async () => {
        leaving = true;
        abandon(new Abandoned());
        await leave();
      },
    };
    this.members.add(handle_);
    return handle_;
  }

  /**
   * A consumer of the group that has joined it (its first assignment received). One that crashes
   * for good while joining is dropped and a fresh one joins, up to JOIN_ATTEMPTS times: waiting
   * for the join alone hung forever then. (The Debian mock broker answers a follower's SyncGroup
   * that arrives after the leader's with INVALID_REQUEST, which kafkajs does not retry.)
   */
  private async startMember(groupId: string, topics: string[], run: ConsumerRunConfig): Promise<Consumer> {
    for (let attempt = 1; ; attempt++) {
      const consumer = this.kafka.consumer({
        groupId,
        sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
        heartbeatInterval: Math.min(3000, Math.floor((this.options.sessionTimeoutMs ?? 30_000) / 3)),
        maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 1000,
        allowAutoTopicCreation: false,
        retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5000 },
      });
      try {
        await joinGroup(consumer, topics, run);
        return consumer;
      } catch (error) {
        await consumer.disconnect().catch(() => undefined);
        if (!(error instanceof JoinCrashed) || attempt >= JOIN_ATTEMPTS) throw error;
        this.options.logger.warn({ err: error.reason, groupId, attempt }, 'consumer crashed while joining its group: joining again');
      }
    }
  }

  private async sendDeadLetter(
    { topic, partition, message }: MessageContext,
    group: string,
    event: EventEnvelope | undefined,
    error: string,
    attempts: number,
  ): Promise<void> {
    const deadLetter: DeadLetter | undefined = event && { group, error, attempts, failed_at: new Date().toISOString(), event };
    const type = event?.type ?? eventTypeOfTopic(topic);
    this.options.logger.error({ group, topic, partition, offset: message.offset, error }, 'event dead-lettered');
    await this.connectProducer();
    await this.producer.send({
      topic: type ? deadLetterTopicOf(type) : `${topic}.dlq`,
      acks: -1,
      messages: [
        {
          key: message.key,
          value: deadLetter ? JSON.stringify(deadLetter) : message.value,
          headers: {
            [DEAD_LETTER_HEADERS.error]: error,
            [DEAD_LETTER_HEADERS.group]: group,
            [DEAD_LETTER_HEADERS.sourceTopic]: topic,
            [DEAD_LETTER_HEADERS.sourcePartition]: String(partition),
            [DEAD_LETTER_HEADERS.sourceOffset]: message.offset,
          },
        },
      ],
    });
  }
}

/**
 * Connects, subscribes and runs a consumer; resolves once it has joined its group, rejects with
 * JoinCrashed when it crashes for good first (a crash kafkajs restarts from is waited through).
 */
async function joinGroup(consumer: Consumer, topics: string[], run: ConsumerRunConfig): Promise<void> {
  // Listening before run(): kafkajs emits both events from inside it.
  const listeners: (() => void)[] = [];
  const joined = new Promise<void>((resolve, reject) => {
    listeners.push(consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    listeners.push(
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart) reject(new JoinCrashed(payload.groupId, payload.error));
      }),
    );
  });
  // Settled (maybe rejected) before it is awaited below.
  joined.catch(() => undefined);
  try {
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run(run);
    await joined;
  } finally {
    for (const off of listeners) off();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Creates every topic of the table on a real broker (partitions, retention), leaving existing ones
 * alone. The Debian mock broker does not serve CreateTopics: its launcher pre-creates them.
 */
export async function ensureKafkaTopics(brokers: readonly string[]): Promise<void> {
  const admin = new Kafka({ clientId: 'vus-topics', brokers: [...brokers], logLevel: KafkaLogLevel.ERROR }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = allTopics().filter((t) => !existing.has(t.name));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        configEntries: [{ name: 'retention.ms', value: String(t.retentionMs) }],
      })),
    });
  } finally {
    await admin.disconnect();
  }
}

/**
 * Cluster mode's bus from `KAFKA_BROKERS` (`host:port[,host:port]`): a Kafka bus, or none when
 * unset (the service's events then wait in its outbox until a bus is configured).
 */
export function kafkaBusFromBrokers(brokers: string | undefined, clientId: string, logger: Logger): KafkaEventBus | undefined {
  const list = brokers
    ?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return list?.length ? new KafkaEventBus({ brokers: list, clientId, logger }) : undefined;
}
