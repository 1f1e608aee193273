import { errors, isApiError, isId, listPage, newId, type Bounds, type Clock, type PageInfo } from '@vus/core';
import { type MetadataValue, type SystemMetadata, type UserMetadata } from '@vus/domain';
import { buildEvent, type EventEnvelope, type TaskStatusChangedPayload } from '@vus/events';
import { checkFetchableUrl } from '@vus/fetch';
import { initialStatus, isDeletable, type TaskStatus } from './status';

// SystemMetadata (what the probe found) is empty on the wire until the task is validated.
export type { MetadataValue, SystemMetadata, UserMetadata };

/** Where the video comes from: an upload the gateway stored, or a URL the worker fetches. */
/** `image`: an image the worker first makes into a still video (an image item's, issue 33); `blobKey` is the image. */
export type VideoSource = { kind: 'upload' | 'image'; blobKey: string } | { kind: 'url'; url: string };

/** A transcription the user gave (SRT/VTT/plain text): stored by the gateway, or a URL. */
export type TranscriptionSource = { kind: 'upload'; blobKey: string } | { kind: 'url'; url: string };

export interface TaskFailure {
  code: string;
  message: string;
}

export interface SkippedExtractor {
  name: string;
  reason: string;
}

/** Which extractors produced the video's data, and which the index asked for but could not run. */
export interface ExtractorReport {
  ran: string[];
  skipped: SkippedExtractor[];
}

/** HLS status values (API-CONTRACT §4). */
export type HlsStatus = 'PROCESSING' | 'COMPLETE' | 'CANCELED' | 'ERROR';

/**
 * The video stream made for a task that asked for one (`enable_video_stream`). Blob keys, not
 * URLs: the gateway signs them into expiring URLs when it shows the task or the video.
 */
export interface TaskHls {
  status: HlsStatus;
  /** The playlist (`videos/<video id>/hls/index.m3u8`); null until COMPLETE. */
  videoKey: string | null;
  /** Still images beside the playlist. */
  thumbnailKeys: string[];
  updatedAt: Date;
}

export interface StatusChange {
  status: TaskStatus;
  at: Date;
}

export interface TaskRecord {
  id: string;
  orgId: string;
  indexId: string;
  /** Chosen at creation: v1.3 answers it at once, and the worker creates the video under it (idempotent). */
  videoId: string;
  status: TaskStatus;
  source: VideoSource;
  /** The stored media: the upload, or the copy of `video_url` once fetched. */
  mediaBlobKey: string | null;
  transcription: TranscriptionSource | null;
  language: string | null;
  enableVideoStream: boolean;
  userMetadata: UserMetadata;
  /** The uploaded file's name, or the URL's last path segment. */
  filename: string;
  system: SystemMetadata | null;
  /** 0–100 while indexing. */
  progress: number;
  /** The video stream, once the worker started making it; null when none was asked for. */
  hls: TaskHls | null;
  extractors: ExtractorReport;
  failure: TaskFailure | null;
  idempotencyKey: string | null;
  /** Set on a task made from an asset (an indexed asset, whose id is the video id); the media is the asset's file. */
  assetId?: string | null;
  history: StatusChange[];
  createdAt: Date;
  updatedAt: Date;
}

export type NumberBounds = Bounds<number>;
export type TimeBounds = Bounds<Date>;

export interface TaskFilter {
  ids?: string[] | undefined;
  indexId?: string | undefined;
  filename?: string | undefined;
  duration?: NumberBounds | undefined;
  width?: NumberBounds | undefined;
  height?: NumberBounds | undefined;
  fps?: NumberBounds | undefined;
  size?: NumberBounds | undefined;
  createdAt?: TimeBounds | undefined;
  updatedAt?: TimeBounds | undefined;
  statuses?: TaskStatus[] | undefined;
  /** Only tasks made from assets (indexed assets). */
  assetsOnly?: boolean | undefined;
  videoIds?: string[] | undefined;
  /** Only tasks made from this asset (its indexed assets, in any index). */
  assetId?: string | undefined;
}

export interface TaskSort {
  by: 'created_at' | 'updated_at';
  order: 'asc' | 'desc';
}

export type StatusCounts = Record<TaskStatus, number>;

/** What the API side needs from storage: store.ts implements it on SQL. */
export interface TaskStore {
  /**
   * Inserts the task and its events in one transaction. With an idempotency key already used
   * in the organization, inserts nothing and returns the earlier task.
   */
  insert(task: TaskRecord, events: EventEnvelope[]): Promise<TaskRecord>;
  get(orgId: string, id: string): Promise<TaskRecord | undefined>;
  list(orgId: string, filter: TaskFilter, sort: TaskSort, limit: number, offset: number): Promise<{ rows: TaskRecord[]; total: number }>;
  /** Deletes the task if it is still in one of `statuses`; undefined when it was not deleted. */
  deleteIn(orgId: string, id: string, statuses: readonly TaskStatus[]): Promise<TaskRecord | undefined>;
  countByStatus(orgId: string, indexId: string): Promise<StatusCounts>;
}

/** What task-service asks index-service (over gRPC in production). */
export interface IndexDirectory {
  indexExists(orgId: string, indexId: string): Promise<boolean>;
  videoExists(orgId: string, indexId: string, videoId: string): Promise<boolean>;
}

/** Removes blobs a deleted task leaves behind (its upload when it never became a video). */
export interface BlobRemover {
  delete(key: string): Promise<boolean>;
}

export interface TaskDeps {
  store: TaskStore;
  indexes: IndexDirectory;
  blobs?: BlobRemover | undefined;
  clock: Clock;
  /** Nudges the outbox relay after a commit that wrote events. */
  eventsWritten: () => void;
}

export interface CreateTaskInput {
  indexId: string;
  source: VideoSource;
  transcription: TranscriptionSource | null;
  language: string | null;
  enableVideoStream: boolean;
  userMetadata: UserMetadata;
  filename: string;
  idempotencyKey: string | null;
  /** The asset the media is (indexed assets): its file is the asset's, never removed with the task. */
  assetId?: string | null;
}

/** The payload of `task.created`: enough for the worker (and webhooks) to find the task. */
export function taskEventPayload(task: TaskRecord): Record<string, unknown> {
  return {
    task_id: task.id,
    index_id: task.indexId,
    video_id: task.videoId,
    status: task.status,
    ...(task.failure ? { failure: task.failure } : {}),
  };
}

export function taskCreatedEvent(task: TaskRecord, clock: Clock): EventEnvelope {
  return buildEvent('task.created', task.id, task.orgId, taskEventPayload(task), clock);
}

/** `task.status-changed` (libs/events TaskStatusChangedPayload); `from` is null for the first status. */
export function statusChangedEvent(task: TaskRecord, from: TaskStatus | null, clock: Clock): EventEnvelope {
  const payload: TaskStatusChangedPayload = {
    task_id: task.id,
    index_id: task.indexId,
    video_id: task.videoId,
    status: task.status,
    previous_status: from,
    ...(task.failure ? { failure: task.failure } : {}),
  };
  return buildEvent('task.status-changed', task.id, task.orgId, payload, clock);
}

const URL_FILENAME_FALLBACK = 'video';

/** The name a URL's video is shown under: its last path segment, decoded. */
export function filenameFromUrl(raw: string): string {
  try {
    const segment = new URL(raw).pathname.split('/').filter(Boolean).pop();
    return segment ? decodeURIComponent(segment).slice(0, 255) : URL_FILENAME_FALLBACK;
  } catch {
    return URL_FILENAME_FALLBACK;
  }
}

/** Only http(s) URLs can be fetched (@vus/fetch's rule); the worker applies the address rules when it connects. */
export function validateSourceUrl(param: string, raw: string): string {
  return checkFetchableUrl(param, raw).toString();
}

export function createTaskService({ store, indexes, blobs, clock, eventsWritten }: TaskDeps) {
  const found = async (orgId: string, id: string): Promise<TaskRecord> => {
    const task = isId(id) ? await store.get(orgId, id) : undefined;
    // Another organization's task is indistinguishable from a missing one.
    if (!task) throw errors.notFound('Task', id);
    return task;
  };

  return {
    /** Stores the task (its media is already in the blob store, or is a URL) and `task.created`. */
    async create(orgId: string, input: CreateTaskInput): Promise<TaskRecord> {
      if (!isId(input.indexId) || !(await indexes.indexExists(orgId, input.indexId))) throw errors.notFound('Index', input.indexId);
      const source: VideoSource =
        input.source.kind === 'url' ? { kind: 'url', url: validateSourceUrl('video_url', input.source.url) } : input.source;
      const transcription: TranscriptionSource | null =
        input.transcription?.kind === 'url'
          ? { kind: 'url', url: validateSourceUrl('transcription_url', input.transcription.url) }
          : input.transcription;
      const now = clock.now();
      const status = initialStatus(source);
      const task: TaskRecord = {
        id: newId(now),
        orgId,
        indexId: input.indexId,
        videoId: newId(now),
        status,
        source,
        mediaBlobKey: source.kind === 'upload' ? source.blobKey : null,
        transcription,
        language: input.language,
        enableVideoStream: input.enableVideoStream,
        userMetadata: input.userMetadata,
        filename: input.filename.trim() || (source.kind === 'url' ? filenameFromUrl(source.url) : URL_FILENAME_FALLBACK),
        system: null,
        progress: 0,
        hls: null,
        extractors: { ran: [], skipped: [] },
        failure: null,
        idempotencyKey: input.idempotencyKey,
        assetId: input.assetId ?? null,
        history: [{ status, at: now }],
        createdAt: now,
        updatedAt: now,
      };
      // Webhooks learn of a task from its first status-changed event (previous_status null).
      const stored = await store.insert(task, [taskCreatedEvent(task, clock), statusChangedEvent(task, null, clock)]);
      eventsWritten();
      return stored;
    },

    get: found,

    async list(
      orgId: string,
      filter: TaskFilter,
      sort: TaskSort,
      paging: { page?: number | undefined; pageLimit?: number | undefined },
    ): Promise<{ data: TaskRecord[]; pageInfo: PageInfo }> {
      return listPage(paging, (limit, offset) => store.list(orgId, filter, sort, limit, offset));
    },

    /** Only a finished task can go; a ready task's video must be deleted first (API-CONTRACT §5.3). */
    async delete(orgId: string, id: string): Promise<void> {
      const task = await found(orgId, id);
      if (!isDeletable(task.status)) {
        throw errors.invalid('task_id', `The task is ${task.status}; only a ready or failed task can be deleted.`);
      }
      if (task.status === 'ready' && (await indexes.videoExists(orgId, task.indexId, task.videoId))) {
        throw errors.invalid('task_id', `The task's video ${task.videoId} still exists; delete the video first.`);
      }
      const deleted = await store.deleteIn(orgId, id, ['ready', 'failed']);
      if (!deleted) throw errors.notFound('Task', id);
      // A failed task's upload never became a video, so nothing else will remove it (an asset's file stays the asset's).
      if (deleted.status === 'failed' && deleted.mediaBlobKey && !deleted.assetId)
        await blobs?.delete(deleted.mediaBlobKey).catch(() => false);
      if (deleted.transcription?.kind === 'upload') await blobs?.delete(deleted.transcription.blobKey).catch(() => false);
    },

    async statusCounts(orgId: string, indexId: string): Promise<StatusCounts & { total: number }> {
      if (!isId(indexId) || !(await indexes.indexExists(orgId, indexId))) throw errors.notFound('Index', indexId);
      const counts = await store.countByStatus(orgId, indexId);
      return { ...counts, total: Object.values(counts).reduce((sum, n) => sum + n, 0) };
    },
  };
}

export type TaskService = ReturnType<typeof createTaskService>;

/** The reason a task failed, as the API shows it; unknown errors never leak internals. */
export function failureOf(error: unknown): TaskFailure {
  if (isApiError(error)) return { code: error.code, message: error.message };
  return { code: 'internal_error', message: 'The video could not be indexed because of an internal error.' };
}
