/**
 * Every event type, its topic and how the topic is provisioned: the one place these live.
 * Topics are `vus.<domain>.<event>`; messages are keyed by the owning entity id.
 */
export const EVENT_TYPES = {
  'index.created': { topic: 'vus.index.created', partitions: 3 },
  'index.deleted': { topic: 'vus.index.deleted', partitions: 3 },
  'video.deleted': { topic: 'vus.video.deleted', partitions: 3 },
  'task.created': { topic: 'vus.task.created', partitions: 3 },
  'task.status-changed': { topic: 'vus.task.status-changed', partitions: 3 },
} as const;

export type EventType = keyof typeof EVENT_TYPES;

/** Seven days: long enough to replay after an outage of a consumer over a weekend. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;

export function topicOf(type: EventType): string {
  return EVENT_TYPES[type].topic;
}

export function deadLetterTopicOf(type: EventType): string {
  return `${topicOf(type)}.dlq`;
}
