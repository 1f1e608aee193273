/**
 * Every event type, its topic and how the topic is provisioned: the one place these live.
 * Topics are `vus.<domain>.<event>`; messages are keyed by the owning entity id. Each topic has a
 * dead-letter twin `<topic>.dlq` (same partitions, longer retention: someone must look at it).
 */
const DAY_MS = 24 * 3600 * 1000;

/** Seven days: long enough to replay after an outage of a consumer over a weekend. */
export const DEFAULT_RETENTION_MS = 7 * DAY_MS;
/** Dead letters wait for a person; a month gives one time to notice and replay them. */
export const DEAD_LETTER_RETENTION_MS = 30 * DAY_MS;

export const EVENT_TYPES = {
  'index.created': { topic: 'vus.index.created', partitions: 3, retentionMs: DEFAULT_RETENTION_MS },
  'index.deleted': { topic: 'vus.index.deleted', partitions: 3, retentionMs: DEFAULT_RETENTION_MS },
  'video.deleted': { topic: 'vus.video.deleted', partitions: 3, retentionMs: DEFAULT_RETENTION_MS },
  'task.created': { topic: 'vus.task.created', partitions: 3, retentionMs: DEFAULT_RETENTION_MS },
  'task.status-changed': { topic: 'vus.task.status-changed', partitions: 3, retentionMs: DEFAULT_RETENTION_MS },
  'usage.recorded': { topic: 'vus.usage.recorded', partitions: 3, retentionMs: DEFAULT_RETENTION_MS },
  'analyze-task.status-changed': { topic: 'vus.analyze-task.status-changed', partitions: 3, retentionMs: DEFAULT_RETENTION_MS },
} as const;

export type EventType = keyof typeof EVENT_TYPES;

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}

export function topicOf(type: EventType): string {
  return EVENT_TYPES[type].topic;
}

/** The event type a (non-dead-letter) topic carries, if it is one of ours. */
export function eventTypeOfTopic(topic: string): EventType | undefined {
  return (Object.keys(EVENT_TYPES) as EventType[]).find((type) => topicOf(type) === topic);
}

export function deadLetterTopicOf(type: EventType): string {
  return `${topicOf(type)}.dlq`;
}

export interface TopicSpec {
  name: string;
  partitions: number;
  retentionMs: number;
}

/** Every topic the project uses, dead-letter topics included: what a broker must provide. */
export function allTopics(): TopicSpec[] {
  return (Object.keys(EVENT_TYPES) as EventType[]).flatMap((type) => {
    const { partitions, retentionMs } = EVENT_TYPES[type];
    return [
      { name: topicOf(type), partitions, retentionMs },
      { name: deadLetterTopicOf(type), partitions, retentionMs: DEAD_LETTER_RETENTION_MS },
    ];
  });
}
