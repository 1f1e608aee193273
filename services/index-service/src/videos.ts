/*
 * Just over ~400 lines on purpose: the video domain is its record types, the pure validators of what
 * a video carries (user and system metadata, artifacts, time windows: table-tested in videos.test)
 * and createVideoService over one VideoStore; the validators are the seam to split along if it grows.
 */
import { ApiError, errors, isId, listPage, type Bounds, type Clock, type PageInfo } from '@vus/core';
import { type MetadataValue, type SystemMetadata, type UserMetadata } from '@vus/domain';
import type { EventEnvelope } from '@vus/events';
import type { IndexStore, TimeBounds } from './indexes';
import { videoDeletedEvent, type DeletedVideo } from './video-events';

export type { MetadataValue, SystemMetadata, UserMetadata };

export interface HlsInfo {
  videoUrl: string;
  thumbnailUrls: string[];
  status: string;
  updatedAt: Date | null;
}

export interface VideoRecord {
  id: string;
  orgId: string;
  indexId: string;
  system: SystemMetadata;
  userMetadata: UserMetadata;
  title: string | null;
  hls: HlsInfo | null;
  extractorsRun: string[];
  mediaBlobKey: string | null;
  /** ISO 639-1 language of the recognised speech, as the recogniser reported it; null: none. */
  speechLanguage: string | null;
  createdAt: Date;
  updatedAt: Date;
  indexedAt: Date;
}

export type NumberBounds = Bounds<number>;

export const NUMERIC_FILTER_FIELDS = ['duration', 'fps', 'width', 'height', 'size'] as const;
export type NumericFilterField = (typeof NUMERIC_FILTER_FIELDS)[number];

export interface VideoFilter extends Partial<Record<NumericFilterField, NumberBounds>> {
  ids?: string[] | undefined;
  filename?: string | undefined;
  createdAt?: TimeBounds | undefined;
  updatedAt?: TimeBounds | undefined;
  indexedAt?: TimeBounds | undefined;
  /** Per key, the stored values that match it (any of them); every key must match. */
  userMetadata?: Record<string, MetadataValue[]> | undefined;
}

export interface VideoSort {
  by: 'created_at' | 'updated_at';
  order: 'asc' | 'desc';
}

export const TIMED_KINDS = ['transcription', 'text_in_video', 'logo'] as const;
export type TimedKind = (typeof TIMED_KINDS)[number];
export const ARTIFACT_KINDS = [...TIMED_KINDS, 'thumbnails'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

export interface TimedValue {
  start: number;
  end: number;
  value: string;
  confidence: number;
}

export interface ThumbnailRef {
  time: number;
  blobKey: string;
  contentType: string;
}

export interface VideoArtifacts {
  transcription: TimedValue[];
  text_in_video: TimedValue[];
  logo: TimedValue[];
  thumbnails: ThumbnailRef[];
}

export interface TimeWindow {
  start?: number | undefined;
  end?: number | undefined;
}

export interface MetadataChange {
  title?: string | undefined;
  /** Keys to set (merge) or the whole user metadata (replace). */
  set: UserMetadata;
  /** Keys to delete (merge only). */
  unset: string[];
  replace: boolean;
}

/** What the domain needs from storage: store.ts implements it on SQL, tests on memory. */
export interface VideoStore {
  /**
   * Inserts the video, or for an id already in the same index replaces the worker-owned fields
   * (keeping user metadata, title and created_at); keeps the index's counters in step.
   * Undefined when the index does not exist in the organization; throws `videoIdTaken` when
   * the id belongs to another index or organization.
   */
  upsert(video: VideoRecord): Promise<VideoRecord | undefined>;
  /** `indexId` undefined: in any index of the organization. */
  get(orgId: string, indexId: string | undefined, id: string): Promise<VideoRecord | undefined>;
  list(
    orgId: string,
    indexId: string,
    filter: VideoFilter,
    sort: VideoSort,
    limit: number,
    offset: number,
  ): Promise<{ rows: VideoRecord[]; total: number }>;
  /** Ids of the videos passing `filter`, in id order, at most `limit`. */
  listIds(orgId: string, indexId: string, filter: VideoFilter, limit: number): Promise<string[]>;
  updateMetadata(orgId: string, indexId: string, id: string, change: MetadataChange, at: Date): Promise<VideoRecord | undefined>;
  /** Deletes the video and writes the events built from what it leaves behind, in one transaction. */
  delete(orgId: string, indexId: string, id: string, events: (deleted: DeletedVideo) => EventEnvelope[]): Promise<boolean>;
  /** Replaces every artifact of the video; false when the video does not exist. */
  putArtifacts(orgId: string, indexId: string, id: string, artifacts: VideoArtifacts): Promise<boolean>;
  /** Only the asked kinds are filled (the others are empty); timed values overlap the window. */
  getArtifacts(
    orgId: string,
    indexId: string,
    id: string,
    kinds: readonly ArtifactKind[],
    window: TimeWindow,
  ): Promise<VideoArtifacts | undefined>;
}

/** Reads a stored blob; undefined when there is no blob under the key. */
export interface BlobReader {
  read(key: string): Promise<Buffer | undefined>;
}

export interface VideoDeps {
  store: VideoStore;
  indexes: Pick<IndexStore, 'get'>;
  /** Where thumbnails are read from; without one, thumbnail bytes answer service_unavailable. */
  blobs?: BlobReader | undefined;
  clock: Clock;
  eventsWritten: () => void;
}

export const USER_METADATA_LIMITS = { keys: 100, keyLength: 256, stringLength: 10_000 } as const;

/** Checks a user-metadata map; `null` (delete) only where `allowNull`. */
export function validateUserMetadata(
  param: string,
  input: Readonly<Record<string, MetadataValue | null>>,
  { allowNull }: { allowNull: boolean },
): Record<string, MetadataValue | null> {
  const entries = Object.entries(input);
  if (entries.length > USER_METADATA_LIMITS.keys) {
    throw errors.invalid(param, `It may hold at most ${USER_METADATA_LIMITS.keys} keys.`);
  }
  for (const [key, value] of entries) {
    if (key.trim() === '' || key.length > USER_METADATA_LIMITS.keyLength) {
      throw errors.invalid(param, `Keys must be 1 to ${USER_METADATA_LIMITS.keyLength} characters long.`);
    }
    if (value === null) {
      if (!allowNull) throw errors.invalid(`${param}.${key}`, 'null is not allowed here.');
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw errors.invalid(`${param}.${key}`, 'Numbers must be finite.');
    } else if (typeof value === 'string') {
      if (value.length > USER_METADATA_LIMITS.stringLength) {
        throw errors.invalid(`${param}.${key}`, `Strings may be at most ${USER_METADATA_LIMITS.stringLength} characters long.`);
      }
    } else if (typeof value !== 'boolean') {
      throw errors.invalid(`${param}.${key}`, 'Values must be strings, numbers or booleans.');
    }
  }
  return { ...input };
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * The stored values a filter value matches. Query strings carry no types, so "5" also
 * matches the number 5 and "true" the boolean true.
 */
export function metadataMatches(value: MetadataValue): MetadataValue[] {
  if (typeof value !== 'string') return [value];
  const matches: MetadataValue[] = [value];
  const trimmed = value.trim();
  if (NUMBER_TEXT.test(trimmed)) matches.push(Number(trimmed));
  const lower = trimmed.toLowerCase();
  if (lower === 'true' || lower === 'false') matches.push(lower === 'true');
  return matches;
}

/** Splits a merge into keys to set and keys to delete; a replace keeps only non-null values. */
export function metadataChange(
  title: string | undefined,
  input: Readonly<Record<string, MetadataValue | null>>,
  replace: boolean,
): MetadataChange {
  const set: UserMetadata = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (value === null) unset.push(key);
    else set[key] = value;
  }
  return { title, set, unset: replace ? [] : unset, replace };
}

export function validateSystemMetadata(system: SystemMetadata): SystemMetadata {
  if (system.filename.trim() === '') throw errors.notProvided('system_metadata.filename');
  for (const field of NUMERIC_FILTER_FIELDS) {
    const value = system[field];
    if (!Number.isFinite(value) || value < 0) throw errors.invalid(`system_metadata.${field}`, 'It must be a number >= 0.');
  }
  for (const field of ['width', 'height', 'size'] as const) {
    if (!Number.isInteger(system[field])) throw errors.invalid(`system_metadata.${field}`, 'It must be an integer.');
  }
  return system;
}

function validateTimed(param: string, values: readonly TimedValue[]): TimedValue[] {
  values.forEach((v, i) => {
    if (!Number.isFinite(v.start) || !Number.isFinite(v.end) || v.start < 0 || v.end < v.start) {
      throw errors.invalid(`${param}[${i}]`, 'It needs 0 <= start <= end.');
    }
    if (!Number.isFinite(v.confidence) || v.confidence < 0 || v.confidence > 1) {
      throw errors.invalid(`${param}[${i}].confidence`, 'It must be between 0 and 1.');
    }
  });
  return [...values].sort((a, b) => a.start - b.start || a.end - b.end);
}

export function validateArtifacts(artifacts: VideoArtifacts): VideoArtifacts {
  const times = new Set<number>();
  artifacts.thumbnails.forEach((t, i) => {
    if (!Number.isFinite(t.time) || t.time < 0) throw errors.invalid(`thumbnails[${i}].time`, 'It must be a number >= 0.');
    if (t.blobKey === '') throw errors.notProvided(`thumbnails[${i}].blob_key`);
    if (times.has(t.time)) throw errors.invalid(`thumbnails[${i}].time`, `Two thumbnails at ${t.time} s.`);
    times.add(t.time);
  });
  return {
    transcription: validateTimed('transcription', artifacts.transcription),
    text_in_video: validateTimed('text_in_video', artifacts.text_in_video),
    logo: validateTimed('logo', artifacts.logo),
    thumbnails: [...artifacts.thumbnails].sort((a, b) => a.time - b.time),
  };
}

export function validateWindow(window: TimeWindow): TimeWindow {
  for (const bound of ['start', 'end'] as const) {
    const value = window[bound];
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) throw errors.invalid(bound, 'It must be a number of seconds >= 0.');
  }
  if (window.start !== undefined && window.end !== undefined && window.end < window.start) {
    throw errors.invalid('end', 'It must not be before start.');
  }
  return window;
}

/** The thumbnail nearest to `time` (ties: the earlier one); the first one without a time. */
export function nearestThumbnail(thumbnails: readonly ThumbnailRef[], time: number | undefined): ThumbnailRef | undefined {
  if (time === undefined) return thumbnails[0];
  let best: ThumbnailRef | undefined;
  for (const thumbnail of thumbnails) {
    if (!best || Math.abs(thumbnail.time - time) < Math.abs(best.time - time)) best = thumbnail;
  }
  return best;
}

export function videoIdTaken(id: string): ApiError {
  return errors.invalid('video_id', `The id ${id} is already used by another video.`);
}

export interface CreateVideoInput {
  indexId: string;
  videoId: string;
  system: SystemMetadata;
  userMetadata: Record<string, MetadataValue | null>;
  hls: HlsInfo | null;
  extractorsRun: string[];
  mediaBlobKey: string | null;
  speechLanguage?: string | null | undefined;
  createdAt?: Date | undefined;
}

export function createVideoService({ store, indexes, blobs, clock, eventsWritten }: VideoDeps) {
  const found = async (orgId: string, indexId: string | undefined, id: string): Promise<VideoRecord> => {
    const video = await store.get(orgId, indexId, id);
    // Another organization's (or index's) video is indistinguishable from a missing one.
    if (!video) throw errors.notFound('Video', id);
    return video;
  };

  return {
    async create(orgId: string, input: CreateVideoInput): Promise<VideoRecord> {
      if (!isId(input.videoId)) throw errors.invalid('video_id', 'It must be 24 lowercase hex characters.');
      const userMetadata = validateUserMetadata('user_metadata', input.userMetadata, { allowNull: false }) as UserMetadata;
      const now = clock.now();
      const video = await store.upsert({
        id: input.videoId,
        orgId,
        indexId: input.indexId,
        system: validateSystemMetadata(input.system),
        userMetadata,
        title: null,
        hls: input.hls,
        extractorsRun: [...new Set(input.extractorsRun)],
        mediaBlobKey: input.mediaBlobKey,
        speechLanguage: input.speechLanguage ?? null,
        createdAt: input.createdAt ?? now,
        updatedAt: now,
        indexedAt: now,
      });
      if (!video) throw errors.notFound('Index', input.indexId);
      return video;
    },

    get: found,

    async list(
      orgId: string,
      indexId: string,
      filter: VideoFilter,
      sort: VideoSort,
      paging: { page?: number | undefined; pageLimit?: number | undefined },
    ): Promise<{ data: VideoRecord[]; pageInfo: PageInfo }> {
      return listPage(paging, async (limit, offset) => {
        if (!(await indexes.get(orgId, indexId))) throw errors.notFound('Index', indexId);
        return store.list(orgId, indexId, filter, sort, limit, offset);
      });
    },

    /** Every video passing the filter (for search), up to `limit`; says when there were more. */
    async listIds(orgId: string, indexId: string, filter: VideoFilter, limit: number): Promise<{ ids: string[]; truncated: boolean }> {
      if (!(await indexes.get(orgId, indexId))) throw errors.notFound('Index', indexId);
      const ids = await store.listIds(orgId, indexId, filter, limit + 1);
      return { ids: ids.slice(0, limit), truncated: ids.length > limit };
    },

    async update(
      orgId: string,
      indexId: string,
      id: string,
      input: { title?: string | undefined; userMetadata: Record<string, MetadataValue | null>; replace: boolean },
    ): Promise<VideoRecord> {
      const metadata = validateUserMetadata('user_metadata', input.userMetadata, { allowNull: true });
      const updated = await store.updateMetadata(orgId, indexId, id, metadataChange(input.title, metadata, input.replace), clock.now());
      if (!updated) throw errors.notFound('Video', id);
      return updated;
    },

    async delete(orgId: string, indexId: string, id: string): Promise<void> {
      const deleted = await store.delete(orgId, indexId, id, (video) => [videoDeletedEvent(orgId, video, 'video_deleted', clock)]);
      if (!deleted) throw errors.notFound('Video', id);
      eventsWritten();
    },

    async putArtifacts(orgId: string, indexId: string, id: string, artifacts: VideoArtifacts): Promise<void> {
      if (!(await store.putArtifacts(orgId, indexId, id, validateArtifacts(artifacts)))) throw errors.notFound('Video', id);
    },

    async getArtifacts(
      orgId: string,
      indexId: string,
      id: string,
      kinds: readonly ArtifactKind[],
      window: TimeWindow,
    ): Promise<VideoArtifacts> {
      const artifacts = await store.getArtifacts(orgId, indexId, id, kinds.length ? kinds : ARTIFACT_KINDS, validateWindow(window));
      if (!artifacts) throw errors.notFound('Video', id);
      return artifacts;
    },

    /** The thumbnail nearest to `time`, with its bytes when `includeData`. */
    async thumbnail(
      orgId: string,
      indexId: string,
      id: string,
      time: number | undefined,
      includeData: boolean,
    ): Promise<{ time: number; contentType: string; data: Buffer | undefined }> {
      if (time !== undefined) validateWindow({ start: time });
      const index = await indexes.get(orgId, indexId);
      if (!index) throw errors.notFound('Index', indexId);
      const artifacts = await store.getArtifacts(orgId, indexId, id, ['thumbnails'], {});
      if (!artifacts) throw errors.notFound('Video', id);
      if (!index.addons.includes('thumbnail')) {
        throw errors.invalid('index_id', 'The index was created without the thumbnail addon.');
      }
      const chosen = nearestThumbnail(artifacts.thumbnails, time);
      if (!chosen) throw new ApiError('resource_not_exist', `Video with id ${id} has no thumbnail.`, { id });
      if (!includeData) return { time: chosen.time, contentType: chosen.contentType, data: undefined };
      if (!blobs) throw new ApiError('service_unavailable', 'Thumbnails cannot be read: no blob store is configured.');
      const data = await blobs.read(chosen.blobKey);
      if (!data) throw new ApiError('resource_not_exist', `The thumbnail of video ${id} at ${chosen.time} s is missing.`, { id });
      return { time: chosen.time, contentType: chosen.contentType, data };
    },
  };
}

export type VideoService = ReturnType<typeof createVideoService>;
