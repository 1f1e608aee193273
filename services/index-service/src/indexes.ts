import { ApiError, errors, listPage, newId, type Bounds, type Clock, type PageInfo } from '@vus/core';
import { buildEvent, type EventEnvelope } from '@vus/events';
import { ADDONS, findEngine, type EngineFamily, type EngineOption } from './engines';
import { videoDeletedEvent, type DeletedVideo } from './video-events';

/** An index as the domain sees it; the store maps rows to this and server.ts maps it to proto. */
export interface IndexRecord {
  id: string;
  orgId: string;
  name: string;
  models: ModelConfig[];
  addons: string[];
  videoCount: number;
  totalDuration: number;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
  /** A knowledge store's (issue 33): not listed, and unknown to the gateway's indexes API. */
  internal: boolean;
}

export interface ModelConfig {
  name: string;
  options: EngineOption[];
}

export type TimeBounds = Bounds<Date>;

export interface IndexFilter {
  ids?: string[] | undefined;
  name?: string | undefined;
  options?: EngineOption[] | undefined;
  family?: EngineFamily | undefined;
  modelName?: string | undefined;
  createdAt?: TimeBounds | undefined;
  updatedAt?: TimeBounds | undefined;
}

export interface IndexSort {
  by: 'created_at' | 'updated_at';
  order: 'asc' | 'desc';
}

/** What the domain needs from storage: store.ts implements it on SQL, tests on memory. */
export interface IndexStore {
  // list never answers internal indexes; get does (task-service, search and generation read them).
  /** Inserts the index and its events in one transaction; throws `index_name_already_exists`. */
  insert(index: IndexRecord, events: EventEnvelope[]): Promise<void>;
  get(orgId: string, id: string): Promise<IndexRecord | undefined>;
  list(orgId: string, filter: IndexFilter, sort: IndexSort, limit: number, offset: number): Promise<{ rows: IndexRecord[]; total: number }>;
  /** Returns the renamed index, or undefined when it does not exist; throws on a duplicate name. */
  rename(orgId: string, id: string, name: string, at: Date): Promise<IndexRecord | undefined>;
  /**
   * Deletes the index with its videos, and writes the events built from the deleted videos,
   * in one transaction; false when it did not exist.
   */
  delete(orgId: string, id: string, events: (videos: DeletedVideo[]) => EventEnvelope[]): Promise<boolean>;
}

export interface IndexDeps {
  store: IndexStore;
  clock: Clock;
  /** Nudges the outbox relay after a commit that wrote events. */
  eventsWritten: () => void;
}

export const INDEX_NAME_MAX_LENGTH = 200;

export function normalizeIndexName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw errors.notProvided('index_name');
  if (name.length > INDEX_NAME_MAX_LENGTH) {
    throw errors.invalid('index_name', `It must be at most ${INDEX_NAME_MAX_LENGTH} characters long.`);
  }
  return name;
}

/** Checks a requested engine configuration against the catalogue; returns it deduplicated. */
export function validateModels(models: readonly ModelConfig[], addons: readonly string[]): ModelConfig[] {
  if (models.length === 0) throw errors.notProvided('engines');
  const families = new Set<EngineFamily>();
  const result: ModelConfig[] = [];
  for (const model of models) {
    const engine = findEngine(model.name);
    if (!engine) throw errors.invalid('engine_name', `Unknown engine "${model.name}".`);
    if (families.has(engine.family)) {
      throw errors.invalid('engines', `An index takes at most one ${engine.family} engine.`);
    }
    families.add(engine.family);
    const options = [...new Set(model.options)];
    if (options.length === 0) throw errors.notProvided('engine_options');
    for (const option of options) {
      if (!engine.allowedOptions.includes(option)) {
        throw errors.invalid(
          'engine_options',
          `The option "${option}" is not supported by ${engine.id}. Allowed: ${engine.allowedOptions.join(', ')}.`,
        );
      }
    }
    result.push({ name: engine.id, options });
  }
  for (const addon of addons) {
    if (!(ADDONS as readonly string[]).includes(addon)) throw errors.invalid('addons', `Unknown addon "${addon}".`);
    if (addon === 'thumbnail' && !families.has('marengo')) {
      throw errors.invalid('addons', 'The thumbnail addon requires a Marengo engine.');
    }
  }
  return result;
}

export function createIndexService({ store, clock, eventsWritten }: IndexDeps) {
  return {
    async create(
      orgId: string,
      input: { name: string; models: ModelConfig[]; addons: string[]; internal?: boolean },
    ): Promise<IndexRecord> {
      const name = normalizeIndexName(input.name);
      const addons = [...new Set(input.addons)];
      const models = validateModels(input.models, addons);
      const now = clock.now();
      const index: IndexRecord = {
        id: newId(now),
        orgId,
        name,
        models,
        addons,
        videoCount: 0,
        totalDuration: 0,
        createdAt: now,
        updatedAt: now,
        expiresAt: null,
        internal: input.internal ?? false,
      };
      await store.insert(index, [buildEvent('index.created', index.id, orgId, { index_id: index.id }, clock)]);
      eventsWritten();
      return index;
    },

    async get(orgId: string, id: string): Promise<IndexRecord> {
      const index = await store.get(orgId, id);
      // Another organization's index is indistinguishable from a missing one.
      if (!index) throw errors.notFound('Index', id);
      return index;
    },

    async list(
      orgId: string,
      filter: IndexFilter,
      sort: IndexSort,
      paging: { page?: number; pageLimit?: number },
    ): Promise<{ data: IndexRecord[]; pageInfo: PageInfo }> {
      return listPage(paging, (limit, offset) => store.list(orgId, filter, sort, limit, offset));
    },

    async rename(orgId: string, id: string, rawName: string): Promise<IndexRecord> {
      const name = normalizeIndexName(rawName);
      const index = await store.rename(orgId, id, name, clock.now());
      if (!index) throw errors.notFound('Index', id);
      return index;
    },

    async delete(orgId: string, id: string): Promise<void> {
      // One video.deleted per video, so that their segments and blobs go the same way as a
      // single deleted video's.
      const events = (videos: DeletedVideo[]) => [
        ...videos.map((video) => videoDeletedEvent(orgId, video, 'index_deleted', clock)),
        buildEvent('index.deleted', id, orgId, { index_id: id }, clock),
      ];
      if (!(await store.delete(orgId, id, events))) throw errors.notFound('Index', id);
      eventsWritten();
    },
  };
}

export type IndexService = ReturnType<typeof createIndexService>;

export function duplicateIndexName(name: string): ApiError {
  return new ApiError('index_name_already_exists', `An index named "${name}" already exists.`, { index_name: name });
}
