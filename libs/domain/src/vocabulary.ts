/**
 * The product's words that more than one service speaks — options, engine families, task
 * statuses, video metadata — written once. A service adds its own rules around them (which
 * engine allows which option, which status follows which), never its own copy of the list.
 */

/**
 * The options (modalities) an index is built with and searched through: API v1.2's fine-grained
 * ones. The gateway's v1.3 adapter maps `audio` and its coarser `visual` onto these.
 */
export const CANONICAL_OPTIONS = ['visual', 'conversation', 'text_in_video', 'logo'] as const;
export type CanonicalOption = (typeof CANONICAL_OPTIONS)[number];

/** Engine (model) families: Marengo indexes are searched, Pegasus indexes generate text. */
export const ENGINE_FAMILIES = ['marengo', 'pegasus'] as const;
export type EngineFamily = (typeof ENGINE_FAMILIES)[number];

export function isEngineFamily(value: string): value is EngineFamily {
  return (ENGINE_FAMILIES as readonly string[]).includes(value);
}

/** The family of an engine by its name (`marengo2.7` → marengo), or undefined for an unknown name. */
export function familyOfEngine(name: string): EngineFamily | undefined {
  return ENGINE_FAMILIES.find((family) => name.startsWith(family));
}

/** An indexing task's statuses, in the order a task goes through them (API-CONTRACT §4). */
export const TASK_STATUSES = ['uploading', 'validating', 'pending', 'queued', 'indexing', 'ready', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** User metadata values (API-CONTRACT §5.2): string, number or boolean. */
export type MetadataValue = string | number | boolean;
export type UserMetadata = Record<string, MetadataValue>;

/** What probing a video found. */
export interface SystemMetadata {
  filename: string;
  /** Seconds. */
  duration: number;
  fps: number;
  width: number;
  height: number;
  /** Bytes. */
  size: number;
}
